/**
 * Turning what a server sent into typed values: A2A errors from any binding's error shape
 * (CLI-JSON-3, D13) and validated responses, lenient where the spec asks clients to be
 * (unknown fields ignored, unknown enum values read as UNSPECIFIED, absent = default).
 */
import { Kind, OptionalKind, Type, type TSchema, type Static } from '@sinclair/typebox';
import type { A2AError } from '../../errors/index.js';
import {
  fromJsonRpcError as decodeJsonRpcError,
  fromRestError as decodeRestError,
  readErrorDetails,
} from '../../errors/codec.js';
import { parseRole, parseTaskState, TaskState, Role } from '../../model/enums.js';
import { compile, formatViolations, type Validator } from '../../model/validate.js';
import {
  Message,
  Task,
  TaskArtifactUpdateEvent,
  TaskStatusUpdateEvent,
  type StreamResponse,
} from '../../model/schema.js';
import { OneOf, oneofMembers } from '../../model/schema-kit.js';
import { MAX_ID_LENGTH } from '../../model/ids.js';
import { A2AInvalidResponseError } from '../../errors/client-errors.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const validators = new Map<TSchema, Validator<unknown>>();

/**
 * Checks `value` against `schema` after normalizing enum spellings; throws
 * {@link A2AInvalidResponseError} (`not-a2a`) naming `what` and the wrong fields.
 */
export function expectShape<S extends TSchema>(schema: S, value: unknown, what: string): Static<S> {
  let v = validators.get(schema);
  if (!v) {
    v = compile(schema) as Validator<unknown>;
    validators.set(schema, v);
  }
  const normalized = normalizeEnums(value);
  const checked = v.check(normalized);
  if (!checked.ok) {
    throw new A2AInvalidResponseError(
      'not-a2a',
      `the server's ${what} is not a valid A2A ${String(schema.$id ?? 'object')}: ${formatViolations(checked.violations)}`,
    );
  }
  return checked.value as Static<S>;
}

/** Rewrites `state` and `role` values to their v1.0 names; unknown ones become UNSPECIFIED. */
function normalizeEnums(value: unknown, depth = 0): unknown {
  if (depth > 32) return value;
  if (Array.isArray(value)) return value.map((v) => normalizeEnums(v, depth + 1));
  if (!isObject(value)) return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === 'state' && (typeof v === 'string' || typeof v === 'number')) {
      out[k] = parseTaskState(v) ?? TaskState.UNSPECIFIED;
    } else if (k === 'role' && (typeof v === 'string' || typeof v === 'number')) {
      out[k] = parseRole(v) ?? Role.UNSPECIFIED;
    } else if (k === 'data' || k === 'metadata' || k === 'params') {
      out[k] = v; // free JSON: never rewritten
    } else {
      out[k] = normalizeEnums(v, depth + 1);
    }
  }
  return out;
}

/** Parses JSON text, or throws `not-json` naming `what`. */
export function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    const preview = text.length > 80 ? `${text.slice(0, 80)}...` : text;
    throw new A2AInvalidResponseError(
      'not-json',
      `the server's ${what} is not JSON: ${JSON.stringify(preview)}`,
      {
        cause,
      },
    );
  }
}

/** Builds the typed error from a JSON-RPC `error` object (by ErrorInfo reason, then code). */
export function fromJsonRpcError(error: unknown, httpStatus?: number): A2AError {
  if (!isObject(error) || typeof error.code !== 'number') {
    throw new A2AInvalidResponseError('not-a2a', 'the JSON-RPC error object has no numeric code');
  }
  return decodeJsonRpcError(error, undefined, { httpStatus });
}

/**
 * Builds the typed error from a failed REST response (any D13 shape, via the shared codec).
 * `recognized` is true when the body carried an A2A ErrorInfo, which tells a real
 * TaskNotFound from a route that does not exist.
 */
export function fromRestError(status: number, bodyText: string): { error: A2AError; recognized: boolean } {
  let body: unknown;
  try {
    body = bodyText ? JSON.parse(bodyText) : undefined;
  } catch {
    body = undefined;
  }
  let recognized = false;
  if (isObject(body)) {
    const env = isObject(body.error) ? body.error : body;
    recognized = readErrorDetails(env.details ?? env.data).reason !== undefined;
  }
  return { error: decodeRestError(status, bodyText), recognized };
}

// ---- stream events: one decode path for every binding ---------------------------------

/**
 * StreamResponse as a client accepts it. The proto marks the update events' `context_id`
 * REQUIRED, but proto3 cannot tell an empty string from an absent one and ProtoJSON omits
 * it, so a peer's update without it (the official SDK sends some so) reads as `""`, on every
 * binding alike.
 */
const PeerContextId = () => Type.String({ maxLength: MAX_ID_LENGTH });
const PeerStreamResponse = OneOf(
  {
    task: Task,
    message: Message,
    statusUpdate: Type.Object({ ...TaskStatusUpdateEvent.properties, contextId: PeerContextId() }),
    artifactUpdate: Type.Object({ ...TaskArtifactUpdateEvent.properties, contextId: PeerContextId() }),
  },
  {},
  { $id: 'StreamResponse' },
);

/**
 * Decodes one stream event from any binding (the JSON bindings' parsed `data`, gRPC's decoded
 * message): absent fields the schema requires get their proto3 default (`""`, `false`, `0`,
 * `[]`, `{}`, the enum's zero value), as a protobuf decoder does, then the event is checked.
 */
export function decodeStreamResponse(value: unknown, what: string): StreamResponse {
  const event = expectShape(PeerStreamResponse, fillDefaults(PeerStreamResponse, value), what);
  return event as StreamResponse;
}

/**
 * A copy of `value` with proto3 defaults for the absent required members of `schema`'s
 * objects (recursively; a oneof's present member only). Members whose default would break a
 * constraint (an empty id) are filled too and then rejected by the check, as on gRPC.
 */
export function fillDefaults(schema: TSchema, value: unknown, depth = 0): unknown {
  if (depth > 32) return value;
  const kind = schema[Kind] as string;
  if (kind === 'Union') {
    // A oneof: the variant of the member that is present decides (none or several: left as
    // is, for the check to name).
    const members = oneofMembers(schema);
    if (!members || !isObject(value)) return value;
    const present = members.filter((m) => value[m] !== undefined);
    if (present.length !== 1) return value;
    const member = present[0] as string;
    const variant = (schema as TSchema & { anyOf: TSchema[] }).anyOf.find(
      (v) => (v as TSchema & { properties: Record<string, TSchema> }).properties[member]?.[Kind] !== 'Never',
    );
    return variant ? fillDefaults(variant, value, depth + 1) : value;
  }
  if (kind === 'Array') {
    const items = (schema as TSchema & { items: TSchema }).items;
    return Array.isArray(value) ? value.map((v) => fillDefaults(items, v, depth + 1)) : value;
  }
  if (kind !== 'Object' || !isObject(value)) return value;
  const props = (schema as TSchema & { properties: Record<string, TSchema> }).properties;
  const out: Json = { ...value };
  for (const [key, prop] of Object.entries(props)) {
    if (key === 'data' || key === 'metadata') continue; // free JSON
    const v = out[key];
    if (v === undefined) {
      if (prop[OptionalKind] !== 'Optional') {
        const zero = protoDefault(prop);
        if (zero !== undefined) out[key] = zero;
      }
    } else out[key] = fillDefaults(prop, v, depth + 1);
  }
  return out;
}

function protoDefault(schema: TSchema): unknown {
  switch (schema[Kind]) {
    case 'String':
      return '';
    case 'Boolean':
      return false;
    case 'Integer':
    case 'Number':
      return 0;
    case 'Array':
      return [];
    case 'Record':
      return {};
    case 'Object':
      return fillDefaults(schema, {});
    case 'Union': {
      // An enum: its first literal is the zero value (`..._UNSPECIFIED`).
      const first = (schema as TSchema & { anyOf: TSchema[] }).anyOf[0] as TSchema & { const?: unknown };
      return first?.[Kind] === 'Literal' ? first.const : undefined;
    }
    default:
      return undefined;
  }
}
