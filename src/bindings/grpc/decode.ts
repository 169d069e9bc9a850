/**
 * gRPC request and reply decoding: protobuf bytes into our ProtoJSON model.
 *
 * Our model IS the ProtoJSON shape of the proto, so protobuf-es `toJson` is the conversion. The
 * decoded JSON omits proto3 defaults; the client fills REQUIRED fields back in
 * ({@link fillRequired}) so results match the model's static types.
 */
import {
  fromBinary,
  getOption,
  toJson,
  type DescField,
  type DescMessage,
  type JsonObject,
  type JsonValue,
} from '@bufbuild/protobuf';
import { field_behavior, FieldBehavior } from './gen/google/api/field_behavior_pb.js';
import { SendMessageRequestSchema, type SendMessageRequest } from './gen/lf/a2a/v1/a2a_pb.js';

const JSON_WRITE = { alwaysEmitImplicit: false } as const;

/** Decodes protobuf bytes into the ProtoJSON model. Throws on bytes that are not a valid message. */
export function decodeMessage(schema: DescMessage, bytes: Uint8Array): JsonValue {
  if (schema.typeName === SendMessageRequestSchema.typeName) {
    const request = fromBinary(SendMessageRequestSchema, bytes);
    return plainSendRequestJson(request) ?? toJson(SendMessageRequestSchema, request, JSON_WRITE);
  }
  return toJson(schema, fromBinary(schema, bytes), JSON_WRITE);
}

const ROLE_NAMES: readonly (string | undefined)[] = [undefined, 'ROLE_USER', 'ROLE_AGENT'];

/**
 * `toJson` of the common SendMessageRequest (text parts, no configuration, no metadata) built
 * directly, the same object `toJson` gives; undefined for anything else, which then takes
 * `toJson` itself. The hot request of the binding, so worth the few lines.
 */
function plainSendRequestJson(request: SendMessageRequest): JsonValue | undefined {
  const message = request.message;
  if (!message || request.configuration || request.metadata || message.metadata) return undefined;
  if (message.role < 0 || message.role >= ROLE_NAMES.length) return undefined;
  const parts: JsonObject[] = [];
  for (const part of message.parts) {
    if (part.content.case !== 'text' || part.metadata) return undefined;
    const json: JsonObject = { text: part.content.value };
    if (part.filename !== '') json.filename = part.filename;
    if (part.mediaType !== '') json.mediaType = part.mediaType;
    parts.push(json);
  }
  const out: JsonObject = {};
  if (message.messageId !== '') out.messageId = message.messageId;
  if (message.contextId !== '') out.contextId = message.contextId;
  if (message.taskId !== '') out.taskId = message.taskId;
  const role = ROLE_NAMES[message.role];
  if (role !== undefined) out.role = role;
  if (parts.length > 0) out.parts = parts;
  if (message.extensions.length > 0) out.extensions = message.extensions;
  if (message.referenceTaskIds.length > 0) out.referenceTaskIds = message.referenceTaskIds;
  return request.tenant === '' ? { message: out } : { tenant: request.tenant, message: out };
}

interface FieldPlan {
  readonly name: string;
  /** Default to set when absent (REQUIRED implicit-presence fields only). */
  readonly fill: (() => unknown) | undefined;
  /** Message type of a message field / list / map value, to recurse into. */
  readonly child: DescMessage | undefined;
  readonly shape: 'one' | 'list' | 'map';
}

const plans = new Map<DescMessage, FieldPlan[]>();

function isRequired(field: DescField): boolean {
  return getOption(field, field_behavior).includes(FieldBehavior.REQUIRED);
}

function planFor(desc: DescMessage): FieldPlan[] {
  let plan = plans.get(desc);
  if (plan) return plan;
  plan = [];
  plans.set(desc, plan);
  for (const field of desc.fields) {
    const required = isRequired(field) && field.oneof === undefined;
    let fill: (() => unknown) | undefined;
    let child: DescMessage | undefined;
    let shape: FieldPlan['shape'] = 'one';
    switch (field.fieldKind) {
      case 'list':
        shape = 'list';
        if (field.listKind === 'message' && !isWellKnownJson(field.message)) child = field.message;
        if (required) fill = () => [];
        break;
      case 'map':
        shape = 'map';
        if (field.mapKind === 'message' && !isWellKnownJson(field.message)) child = field.message;
        if (required) fill = () => ({});
        break;
      case 'scalar':
        if (required && field.presence !== 1 /* EXPLICIT */) {
          const zero = scalarZero(field.scalar);
          fill = () => zero;
        }
        break;
      case 'enum':
        if (required) {
          const zero = field.enum.values.find((v) => v.number === 0)?.name;
          if (zero !== undefined) fill = () => zero;
        }
        break;
      case 'message':
        if (!isWellKnownJson(field.message)) child = field.message;
        if (required && child) {
          const c = child;
          fill = () => fillRequired(c, {});
        }
        break;
    }
    if (fill || child) plan.push({ name: field.jsonName, fill, child, shape });
  }
  return plan;
}

function isWellKnownJson(desc: DescMessage): boolean {
  return desc.typeName.startsWith('google.protobuf.');
}

function scalarZero(scalar: number): unknown {
  // ScalarType: STRING = 9, BYTES = 12, BOOL = 8; 64-bit integers are strings in ProtoJSON.
  if (scalar === 9 || scalar === 12) return '';
  if (scalar === 8) return false;
  if (scalar === 3 || scalar === 4 || scalar === 6 || scalar === 16 || scalar === 18) return '0';
  return 0;
}

/**
 * Puts the proto3 defaults of REQUIRED fields that ProtoJSON omitted back into `value`
 * (e.g. an empty `ListTasksResponse.tasks`), recursively. Mutates and returns `value`.
 */
export function fillRequired<T>(desc: DescMessage, value: T): T {
  if (value === null || typeof value !== 'object') return value;
  const obj = value as Record<string, unknown>;
  for (const f of planFor(desc)) {
    const v = obj[f.name];
    if (v === undefined) {
      if (f.fill) obj[f.name] = f.fill();
      continue;
    }
    if (!f.child) continue;
    if (f.shape === 'one') fillRequired(f.child, v);
    else if (f.shape === 'list' && Array.isArray(v)) for (const item of v) fillRequired(f.child, item);
    else if (f.shape === 'map' && v && typeof v === 'object')
      for (const item of Object.values(v)) fillRequired(f.child, item);
  }
  return value;
}
