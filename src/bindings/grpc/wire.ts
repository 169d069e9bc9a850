/**
 * gRPC wire knowledge shared by the server and the client: protobuf bytes <-> our ProtoJSON
 * model, and A2A errors <-> `google.rpc.Status` in the `grpc-status-details-bin` trailer.
 *
 * Our model IS the ProtoJSON shape of the proto, so protobuf-es `toJson` / `fromJson` are the
 * conversion. The decoded JSON omits proto3 defaults; the client fills REQUIRED fields back in
 * ({@link fillRequired}) so results match the model's static types.
 */
import {
  fromBinary,
  fromJson,
  getOption,
  toBinary,
  toJson,
  type DescField,
  type DescMessage,
  type JsonObject,
  type JsonValue,
} from '@bufbuild/protobuf';
import { anyPack, anyUnpack, type Any } from '@bufbuild/protobuf/wkt';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { Metadata, type ServiceError, type StatusObject } from '@grpc/grpc-js';
import {
  A2A_ERROR_DOMAIN,
  GrpcCode,
  codeForGrpcStatus,
  codeForReason,
  errorRow,
  type A2AErrorCode,
} from '../../errors/table.js';
import { A2AError, createError, toA2AError } from '../../errors/a2a-error.js';
import type { SchemaViolation } from '../../model/validate.js';
import { field_behavior, FieldBehavior } from './gen/google/api/field_behavior_pb.js';
import {
  BadRequestSchema,
  ErrorInfoSchema,
  type BadRequest_FieldViolation,
} from './gen/google/rpc/error_details_pb.js';
import { StatusSchema } from './gen/google/rpc/status_pb.js';
import {
  RoleSchema,
  SendMessageConfigurationSchema,
  SendMessageRequestSchema,
  SendMessageResponseSchema,
  StreamResponseSchema,
  TaskSchema,
  TaskStateSchema,
  type SendMessageRequest,
} from './gen/lf/a2a/v1/a2a_pb.js';

/** The trailer carrying a binary `google.rpc.Status` (standard gRPC rich errors). */
export const STATUS_DETAILS_KEY = 'grpc-status-details-bin';

const JSON_WRITE = { alwaysEmitImplicit: false } as const;
const JSON_READ = { ignoreUnknownFields: false } as const;

// ---- messages ------------------------------------------------------------------------

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

/** Encodes a ProtoJSON model value as protobuf bytes. Throws when the value does not fit the message. */
export function encodeMessage(schema: DescMessage, value: unknown): Uint8Array {
  return toBinary(schema, fromJson(schema, value as JsonValue, JSON_READ));
}

/** A Buffer view of `bytes` without copying (grpc-js wants Buffers). */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
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

// ---- errors --------------------------------------------------------------------------

/** The gRPC status number for an A2A error (spec §5.4, overridable per server). */
export function grpcStatusOf(error: A2AError): number {
  return GrpcCode[errorRow(error.code).grpcStatus];
}

/** The `google.rpc.Status` bytes for an error: code, message, ErrorInfo and BadRequest details. */
export function encodeStatusDetails(error: A2AError, code = grpcStatusOf(error)): Uint8Array {
  const details: Any[] = [];
  const reason = error.reason;
  if (reason) {
    details.push(
      anyPack(
        ErrorInfoSchema,
        fromJson(ErrorInfoSchema, { reason, domain: A2A_ERROR_DOMAIN, metadata: { ...error.metadata } }),
      ),
    );
  }
  if (error.violations.length > 0) {
    details.push(
      anyPack(
        BadRequestSchema,
        fromJson(BadRequestSchema, {
          fieldViolations: error.violations.map((v) => ({ field: v.path, description: v.description })),
        }),
      ),
    );
  }
  const status = fromJson(StatusSchema, { code, message: error.message });
  status.details = details;
  return toBinary(StatusSchema, status);
}

/**
 * What a server answers for anything thrown: an A2AError keeps its table status and gets rich
 * details; anything else becomes INTERNAL without leaking its message.
 */
export function toGrpcStatus(thrown: unknown): Partial<StatusObject> & { code: number; details: string } {
  const error = toA2AError(thrown);
  const code = grpcStatusOf(error);
  const metadata = new Metadata();
  metadata.set(STATUS_DETAILS_KEY, asBuffer(encodeStatusDetails(error, code)));
  return { code, details: error.message, metadata };
}

/** Decoded rich details of a gRPC error. */
interface RichDetails {
  reason?: string;
  domain?: string;
  metadata?: Record<string, string>;
  violations: SchemaViolation[];
  message?: string;
}

function readRichDetails(metadata: Metadata | undefined): RichDetails {
  const out: RichDetails = { violations: [] };
  const raw = metadata?.get(STATUS_DETAILS_KEY)[0];
  if (!raw || typeof raw === 'string') return out;
  try {
    const status = fromBinary(StatusSchema, raw);
    if (status.message) out.message = status.message;
    for (const any of status.details) {
      const info = anyUnpack(any, ErrorInfoSchema);
      if (info) {
        out.reason = info.reason;
        out.domain = info.domain;
        out.metadata = { ...info.metadata };
        continue;
      }
      const bad = anyUnpack(any, BadRequestSchema);
      if (bad) {
        out.violations.push(
          ...bad.fieldViolations.map((v: BadRequest_FieldViolation) => ({
            path: v.field,
            description: v.description,
          })),
        );
      }
    }
  } catch {
    // Undecodable details: classify by status alone.
  }
  return out;
}

/** Rebuilds a typed A2AError from a grpc-js error: ErrorInfo reason first, then the status code. */
export function fromGrpcError(err: Partial<ServiceError> & { code?: number }): A2AError {
  const status = typeof err.code === 'number' ? err.code : GrpcCode.UNKNOWN;
  const rich = readRichDetails(err.metadata);
  let code: A2AErrorCode | undefined;
  if (rich.reason && (rich.domain === undefined || rich.domain === A2A_ERROR_DOMAIN)) {
    code = codeForReason(rich.reason);
  }
  code ??= status === GrpcCode.INVALID_ARGUMENT ? 'InvalidParams' : codeForGrpcStatus(status);
  const message = rich.message ?? err.details ?? err.message;
  return createError(code, message || undefined, {
    metadata: rich.metadata ?? {},
    violations: rich.violations,
    raw: err,
    receivedStatus: status,
  });
}

/** Shape check used by the client: grpc-js rejects with objects carrying a numeric `code`. */
export function isServiceError(value: unknown): value is ServiceError {
  return value instanceof Error && typeof (value as { code?: unknown }).code === 'number';
}

export { A2AError };

// ---- fast path -----------------------------------------------------------------------
//
// SendMessage replies and stream events are the hot path. Encoding them straight from the
// ProtoJSON model with a BinaryWriter skips building protobuf-es messages (measured ~4x faster
// than fromJson + toBinary for a typical Task). Anything unexpected throws UNFIT and the caller
// falls back to the generic, strict path, which reports the real problem.

const UNFIT = new Error('value does not fit the fast encoder');
const TASK_STATE_NUMBERS = new Map(TaskStateSchema.values.map((v) => [v.name, v.number]));
const ROLE_NUMBERS = new Map(RoleSchema.values.map((v) => [v.name, v.number]));
const LEN = WireType.LengthDelimited;
type W = BinaryWriter;
type Obj = Record<string, unknown>;

function str(w: W, no: number, v: unknown): void {
  if (v === undefined || v === '') return;
  if (typeof v !== 'string') throw UNFIT;
  w.tag(no, LEN).string(v);
}

function strList(w: W, no: number, v: unknown): void {
  if (v === undefined) return;
  if (!Array.isArray(v)) throw UNFIT;
  for (const s of v) {
    if (typeof s !== 'string') throw UNFIT;
    w.tag(no, LEN).string(s);
  }
}

function bool(w: W, no: number, v: unknown): void {
  if (v === undefined || v === false) return;
  if (v !== true) throw UNFIT;
  w.tag(no, WireType.Varint).bool(true);
}

function enumValue(w: W, no: number, v: unknown, names: Map<string, number>): void {
  if (v === undefined) return;
  const n = typeof v === 'string' ? names.get(v) : undefined;
  if (n === undefined) throw UNFIT;
  if (n !== 0) w.tag(no, WireType.Varint).int32(n);
}

function obj(v: unknown): Obj {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw UNFIT;
  return v as Obj;
}

function sub(w: W, no: number, v: unknown, encode: (w: W, o: Obj) => void): void {
  if (v === undefined) return;
  w.tag(no, LEN).fork();
  encode(w, obj(v));
  w.join();
}

function list(w: W, no: number, v: unknown, encode: (w: W, o: Obj) => void): void {
  if (v === undefined) return;
  if (!Array.isArray(v)) throw UNFIT;
  for (const item of v) sub(w, no, item, encode);
}

function encodeValue(w: W, v: unknown): void {
  switch (typeof v) {
    case 'string':
      w.tag(3, LEN).string(v);
      return;
    case 'number':
      if (!Number.isFinite(v)) throw UNFIT;
      w.tag(2, WireType.Bit64).double(v);
      return;
    case 'boolean':
      w.tag(4, WireType.Varint).bool(v);
      return;
    case 'object':
      if (v === null) {
        w.tag(1, WireType.Varint).int32(0);
      } else if (Array.isArray(v)) {
        w.tag(6, LEN).fork();
        for (const item of v) {
          w.tag(1, LEN).fork();
          encodeValue(w, item);
          w.join();
        }
        w.join();
      } else {
        w.tag(5, LEN).fork();
        encodeStruct(w, v as Obj);
        w.join();
      }
      return;
    default:
      throw UNFIT;
  }
}

function encodeStruct(w: W, o: Obj): void {
  for (const key of Object.keys(o)) {
    const value = o[key];
    if (value === undefined) continue;
    w.tag(1, LEN).fork().tag(1, LEN).string(key).tag(2, LEN).fork();
    encodeValue(w, value);
    w.join().join();
  }
}

function struct(w: W, no: number, v: unknown): void {
  if (v === undefined) return;
  w.tag(no, LEN).fork();
  encodeStruct(w, obj(v));
  w.join();
}

const RFC3339 = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/i;

/** The last timestamp parsed: the tasks of one millisecond share their status timestamp text. */
let lastTimestamp = '';
let lastSeconds = 0;
let lastNanos = 0;

function timestamp(w: W, no: number, v: unknown): void {
  if (v === undefined) return;
  if (v !== lastTimestamp) {
    const m = typeof v === 'string' ? RFC3339.exec(v) : null;
    if (!m) throw UNFIT;
    const ms = Date.parse(`${m[1]}${m[3]}`);
    if (Number.isNaN(ms)) throw UNFIT;
    lastSeconds = Math.floor(ms / 1000);
    lastNanos = m[2] ? Number(m[2].padEnd(9, '0')) : 0;
    lastTimestamp = v as string;
  }
  const seconds = lastSeconds;
  const nanos = lastNanos;
  w.tag(no, LEN).fork();
  if (seconds !== 0) w.tag(1, WireType.Varint).int64(seconds);
  if (nanos !== 0) w.tag(2, WireType.Varint).int32(nanos);
  w.join();
}

function encodePart(w: W, p: Obj): void {
  let members = 0;
  if (p.text !== undefined) {
    if (typeof p.text !== 'string') throw UNFIT;
    w.tag(1, LEN).string(p.text);
    members++;
  }
  if (p.raw !== undefined) {
    if (typeof p.raw !== 'string') throw UNFIT;
    w.tag(2, LEN).bytes(Buffer.from(p.raw, 'base64'));
    members++;
  }
  if (p.url !== undefined) {
    if (typeof p.url !== 'string') throw UNFIT;
    w.tag(3, LEN).string(p.url);
    members++;
  }
  if (p.data !== undefined) {
    w.tag(4, LEN).fork();
    encodeValue(w, p.data);
    w.join();
    members++;
  }
  if (members > 1) throw new TypeError('Part has more than one of text, raw, url, data');
  struct(w, 5, p.metadata);
  str(w, 6, p.filename);
  str(w, 7, p.mediaType);
}

function encodeMessageModel(w: W, m: Obj): void {
  str(w, 1, m.messageId);
  str(w, 2, m.contextId);
  str(w, 3, m.taskId);
  enumValue(w, 4, m.role, ROLE_NUMBERS);
  list(w, 5, m.parts, encodePart);
  struct(w, 6, m.metadata);
  strList(w, 7, m.extensions);
  strList(w, 8, m.referenceTaskIds);
}

function encodeArtifact(w: W, a: Obj): void {
  str(w, 1, a.artifactId);
  str(w, 2, a.name);
  str(w, 3, a.description);
  list(w, 4, a.parts, encodePart);
  struct(w, 5, a.metadata);
  strList(w, 6, a.extensions);
}

function encodeStatus(w: W, s: Obj): void {
  enumValue(w, 1, s.state, TASK_STATE_NUMBERS);
  sub(w, 2, s.message, encodeMessageModel);
  timestamp(w, 3, s.timestamp);
}

function encodeTask(w: W, t: Obj): void {
  str(w, 1, t.id);
  str(w, 2, t.contextId);
  sub(w, 3, t.status, encodeStatus);
  list(w, 4, t.artifacts, encodeArtifact);
  list(w, 5, t.history, encodeMessageModel);
  struct(w, 6, t.metadata);
}

function encodeStatusUpdate(w: W, e: Obj): void {
  str(w, 1, e.taskId);
  str(w, 2, e.contextId);
  sub(w, 3, e.status, encodeStatus);
  struct(w, 4, e.metadata);
}

function encodeArtifactUpdate(w: W, e: Obj): void {
  str(w, 1, e.taskId);
  str(w, 2, e.contextId);
  sub(w, 3, e.artifact, encodeArtifact);
  bool(w, 4, e.append);
  bool(w, 5, e.lastChunk);
  struct(w, 6, e.metadata);
}

const PAYLOAD: readonly [number, string, (w: W, o: Obj) => void][] = [
  [1, 'task', encodeTask],
  [2, 'message', encodeMessageModel],
  [3, 'statusUpdate', encodeStatusUpdate],
  [4, 'artifactUpdate', encodeArtifactUpdate],
];

/** SendMessageResponse and StreamResponse share field numbers 1 (task) and 2 (message). */
function encodePayload(w: W, r: Obj): void {
  let members = 0;
  for (const [no, key, encode] of PAYLOAD) {
    if (r[key] === undefined) continue;
    sub(w, no, r[key], encode);
    members++;
  }
  // protobuf-es would silently keep one member; a reply with two is a bug worth surfacing.
  if (members > 1) throw new TypeError('response payload has more than one member');
  if (members === 0) throw UNFIT;
}

function encodeSendRequest(w: W, r: Obj): void {
  str(w, 1, r.tenant);
  sub(w, 2, r.message, encodeMessageModel);
  if (r.configuration !== undefined) {
    // Rare and nested: encode with the generic path, embedded as bytes.
    w.tag(3, LEN).bytes(encodeMessage(SendMessageConfigurationSchema, r.configuration));
  }
  struct(w, 4, r.metadata);
}

const FAST: ReadonlyMap<string, (w: W, o: Obj) => void> = new Map<string, (w: W, o: Obj) => void>([
  [SendMessageResponseSchema.typeName, encodePayload],
  [StreamResponseSchema.typeName, encodePayload],
  [TaskSchema.typeName, encodeTask],
  [SendMessageRequestSchema.typeName, encodeSendRequest],
]);

/**
 * Encodes a model value as `schema` bytes: the hand-written fast path for the hot messages,
 * else (or when the value is unusual) the generic protobuf-es path.
 */
export function encodeFast(schema: DescMessage, value: unknown): Uint8Array {
  const fast = FAST.get(schema.typeName);
  if (fast && value !== null && typeof value === 'object' && !Array.isArray(value)) {
    try {
      const w = new BinaryWriter();
      fast(w, value as Obj);
      return w.finish();
    } catch (err) {
      if (err !== UNFIT) throw err;
    }
  }
  return encodeMessage(schema, value);
}
