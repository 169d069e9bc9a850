import {
  Kind,
  Type,
  type Static,
  type TNever,
  type TObject,
  type TOptional,
  type TProperties,
  type TSchema,
} from '@sinclair/typebox';
import { MAX_ID_LENGTH } from './ids.js';
import { ROLE_NAMES, TASK_STATE_NAMES } from './enums.js';

/** Schema option that marks a union built by {@link OneOf}; the validator reports it by name. */
export const ONEOF_MEMBERS = 'x-oneof';

/** A required identifier: non-empty, bounded. */
export const Id = () => Type.String({ minLength: 1, maxLength: MAX_ID_LENGTH });
/** An optional identifier: may be empty (proto3 default) but bounded. */
export const OptId = () => Type.Optional(Type.String({ maxLength: MAX_ID_LENGTH }));
/** `google.protobuf.Struct`: a JSON object. */
export const Struct = () => Type.Record(Type.String(), Type.Unknown());
/** `google.protobuf.Timestamp` in ProtoJSON: an RFC 3339 string with a zone. */
export const Timestamp = () => Type.String({ format: 'timestamp' });
/** `int32` in ProtoJSON. */
export const Int32 = (extra: { minimum?: number; maximum?: number } = {}) =>
  Type.Integer({ minimum: -2147483648, maximum: 2147483647, ...extra });
/**
 * `int64` in ProtoJSON: a decimal string (what we write), or a JSON number (accepted on input).
 * Readers convert with `Number()`: the values a2a-kit keeps (task generations) stay far below 2^53.
 */
export const Int64 = () => Type.Union([Type.String({ pattern: '^-?[0-9]{1,19}$' }), Type.Integer()]);
/** `bytes` in ProtoJSON: standard or URL-safe base64, padded or not. */
export const Bytes = () => Type.String({ format: 'base64' });

export const TaskStateSchema = Type.Union(TASK_STATE_NAMES.map((n) => Type.Literal(n)));
export const RoleSchema = Type.Union(ROLE_NAMES.map((n) => Type.Literal(n)));

type OneOfVariant<M extends TProperties, K extends keyof M, C extends TProperties> = TObject<
  { [P in K]: M[P] } & { [P in Exclude<keyof M, K>]: TOptional<TNever> } & C
>;
type OneOfUnion<M extends TProperties, C extends TProperties> = {
  [K in keyof M]: OneOfVariant<M, K, C>;
}[keyof M];

/**
 * A proto `oneof` as a union of objects where exactly one member is present and the
 * others are absent, so `Static<>` is a discriminated union the compiler checks.
 */
export function OneOf<M extends TProperties, C extends TProperties>(
  members: M,
  common: C,
  options: { $id?: string } = {},
): TSchema & { static: Static<OneOfUnion<M, C>> } {
  const names = Object.keys(members);
  const variants = names.map((name) => {
    const props: TProperties = { ...common };
    for (const other of names) {
      props[other] = other === name ? (members[other] as TSchema) : Type.Optional(Type.Never());
    }
    return Type.Object(props);
  });
  return Type.Union(variants, { ...options, [ONEOF_MEMBERS]: names }) as unknown as TSchema & {
    static: Static<OneOfUnion<M, C>>;
  };
}

/** True when `schema` was built by {@link OneOf}. */
export function oneofMembers(schema: TSchema): string[] | undefined {
  return schema[Kind] === 'Union'
    ? ((schema as Record<string, unknown>)[ONEOF_MEMBERS] as string[] | undefined)
    : undefined;
}

/** A required string. */
export const Str = () => Type.String();
/** An optional string. */
export const OptStr = () => Type.Optional(Type.String());
/** An optional list of strings. */
export const StrList = () => Type.Optional(Type.Array(Type.String()));
/** A map of string to string. */
export const StringMap = () => Type.Record(Type.String(), Type.String());
