/**
 * Compiled validators for every request of the eleven operations and for every object a
 * client reads off the wire, plus the two entry points bindings use:
 * {@link parseRequest} (server side, strict) and {@link parseWireObject} (client side, lenient).
 *
 * Fast path: one compiled check against a strict schema (no unknown fields, canonical
 * spellings). Only when that fails is the input normalized (snake_case names, enum numbers
 * and v0.3 spellings, `null`s, numeric strings, aliases) into a fresh object and checked again.
 */
import { Kind, type Static, type TSchema } from '@sinclair/typebox';
import type { A2AMethod } from './operations.js';
import { normalizeValue } from './normalize.js';
import {
  AgentCard,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  Empty,
  GetExtendedAgentCardRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  SendMessageRequest,
  SendMessageResponse,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from './schema.js';
import { compile, type Checked, type SchemaViolation, type Validator } from './validate.js';

// ---- limits ------------------------------------------------------------------------------

/** Size limits applied to requests after the schema check. Every field is optional. */
export interface ValidationLimits {
  /** Most parts in one message. @default 100 */
  maxParts?: number;
  /** Longest `text` part, in UTF-16 code units. @default 4_194_304 */
  maxTextLength?: number;
  /** Longest `raw` part, in base64 characters. @default 16_777_216 */
  maxRawLength?: number;
  /** Longest `url` part. @default 8192 */
  maxUrlLength?: number;
  /** Largest `metadata` object (request, message or part), measured as JSON characters. @default 65_536 */
  maxMetadataSize?: number;
  /** Largest `data` part, measured as JSON characters. @default 4_194_304 */
  maxDataSize?: number;
  /** Deepest nesting inside `metadata` and `data` values. @default 32 */
  maxDepth?: number;
}

/** The limits used when none are given. */
export const DEFAULT_VALIDATION_LIMITS: Readonly<Required<ValidationLimits>> = Object.freeze({
  maxParts: 100,
  maxTextLength: 4_194_304,
  maxRawLength: 16_777_216,
  maxUrlLength: 8192,
  maxMetadataSize: 65_536,
  maxDataSize: 4_194_304,
  maxDepth: 32,
});

// ---- schema variants ---------------------------------------------------------------------

/**
 * Deep copy of `schema` (symbols kept) where every object rejects unknown properties, so the
 * compiled check also tells whether normalization is needed. `lenient` also drops `minItems`
 * (a client accepts empty REQUIRED arrays, N4).
 */
function variant(schema: TSchema, lenient: boolean): TSchema {
  const copy = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(copy);
    if (typeof node !== 'object' || node === null) return node;
    const out: Record<string | symbol, unknown> = {};
    for (const key of Reflect.ownKeys(node)) {
      out[key] = copy((node as Record<string | symbol, unknown>)[key]);
    }
    if (out[Kind] === 'Object') out['additionalProperties'] = false;
    if (lenient && out[Kind] === 'Array') delete out['minItems'];
    return out;
  };
  return copy(schema) as TSchema;
}

interface Entry<T> {
  /** Schema the normalizer walks (strict or lenient variant). */
  readonly shape: TSchema;
  /** Compiled check of the variant. */
  readonly validator: Validator<T>;
}

/**
 * A compiled check of `schema` that also rejects unknown properties at every level (the
 * server's check of what an agent emits, where no normalization applies).
 */
export function compileStrict<S extends TSchema>(schema: S): Validator<Static<S>> {
  return compile(variant(schema, false)) as Validator<Static<S>>;
}

function entry<S extends TSchema>(schema: S, lenient: boolean): Entry<Static<S>> {
  const shape = variant(schema, lenient);
  return { shape, validator: compile(shape) as Validator<Static<S>> };
}

// ---- requests ----------------------------------------------------------------------------

/** The request type of each operation. */
export interface A2ARequestMap {
  SendMessage: SendMessageRequest;
  SendStreamingMessage: SendMessageRequest;
  GetTask: GetTaskRequest;
  ListTasks: ListTasksRequest;
  CancelTask: CancelTaskRequest;
  SubscribeToTask: SubscribeToTaskRequest;
  CreateTaskPushNotificationConfig: TaskPushNotificationConfig;
  GetTaskPushNotificationConfig: GetTaskPushNotificationConfigRequest;
  ListTaskPushNotificationConfigs: ListTaskPushNotificationConfigsRequest;
  DeleteTaskPushNotificationConfig: DeleteTaskPushNotificationConfigRequest;
  GetExtendedAgentCard: GetExtendedAgentCardRequest;
}
/** The request type of operation `M`. */
export type A2ARequest<M extends A2AMethod> = A2ARequestMap[M];

/** Compiled validators of the canonical request schemas (unknown fields allowed, no normalization). */
export const REQUEST_VALIDATORS: { readonly [M in A2AMethod]: Validator<A2ARequestMap[M]> } = {
  SendMessage: compile(SendMessageRequest),
  SendStreamingMessage: compile(SendMessageRequest),
  GetTask: compile(GetTaskRequest),
  ListTasks: compile(ListTasksRequest),
  CancelTask: compile(CancelTaskRequest),
  SubscribeToTask: compile(SubscribeToTaskRequest),
  CreateTaskPushNotificationConfig: compile(TaskPushNotificationConfig),
  GetTaskPushNotificationConfig: compile(GetTaskPushNotificationConfigRequest),
  ListTaskPushNotificationConfigs: compile(ListTaskPushNotificationConfigsRequest),
  DeleteTaskPushNotificationConfig: compile(DeleteTaskPushNotificationConfigRequest),
  GetExtendedAgentCard: compile(GetExtendedAgentCardRequest),
};

const sendEntry = entry(SendMessageRequest, false);
const STRICT_REQUESTS: { readonly [M in A2AMethod]: Entry<A2ARequestMap[M]> } = {
  SendMessage: sendEntry,
  SendStreamingMessage: sendEntry,
  GetTask: entry(GetTaskRequest, false),
  ListTasks: entry(ListTasksRequest, false),
  CancelTask: entry(CancelTaskRequest, false),
  SubscribeToTask: entry(SubscribeToTaskRequest, false),
  CreateTaskPushNotificationConfig: entry(TaskPushNotificationConfig, false),
  GetTaskPushNotificationConfig: entry(GetTaskPushNotificationConfigRequest, false),
  ListTaskPushNotificationConfigs: entry(ListTaskPushNotificationConfigsRequest, false),
  DeleteTaskPushNotificationConfig: entry(DeleteTaskPushNotificationConfigRequest, false),
  GetExtendedAgentCard: entry(GetExtendedAgentCardRequest, false),
};

const STRICT = { lenient: false } as const;
const LENIENT = { lenient: true } as const;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function checkWith<T>(e: Entry<T>, input: unknown, lenient: boolean): Checked<T> {
  if (e.validator.is(input)) return { ok: true, value: input };
  if (!isPlainObject(input))
    return { ok: false, violations: [{ path: '', description: 'expected a JSON object' }] };
  return e.validator.check(normalizeValue(e.shape, input, lenient ? LENIENT : STRICT));
}

/**
 * Checks the params of `method` without throwing: the canonical request, or the violations
 * (schema first, then `limits`). See {@link parseRequest}.
 */
export function checkRequest<M extends A2AMethod>(
  method: M,
  params: unknown,
  limits?: ValidationLimits,
): Checked<A2ARequest<M>> {
  const e = Object.prototype.hasOwnProperty.call(STRICT_REQUESTS, method)
    ? (STRICT_REQUESTS[method] as Entry<A2ARequest<M>>)
    : undefined;
  if (!e) return { ok: false, violations: [{ path: '', description: `unknown method ${String(method)}` }] };
  // JSON-RPC may omit params (GetExtendedAgentCard); a missing body counts as `{}`.
  const result = checkWith(e, params ?? {}, false);
  if (!result.ok) return result;
  const violations = checkLimits(method, result.value, limits);
  return violations.length > 0 ? { ok: false, violations } : result;
}

// ---- limits check ------------------------------------------------------------------------

function limitOf(limits: ValidationLimits | undefined, key: keyof ValidationLimits): number {
  return limits?.[key] ?? DEFAULT_VALIDATION_LIMITS[key];
}

type Part = { text?: string; raw?: string; url?: string; data?: unknown; metadata?: Record<string, unknown> };

// Paths are only built once something is wrong: the valid path allocates nothing here.
function checkLimits(
  method: A2AMethod,
  value: unknown,
  limits: ValidationLimits | undefined,
): SchemaViolation[] {
  const out: SchemaViolation[] = [];
  if (method === 'SendMessage' || method === 'SendStreamingMessage') {
    const req = value as SendMessageRequest;
    const maxMeta = limitOf(limits, 'maxMetadataSize');
    const maxDepth = limitOf(limits, 'maxDepth');
    checkJsonSize(req.metadata, 'metadata', maxMeta, maxDepth, out);
    const m = req.message;
    if (m.role === 'ROLE_UNSPECIFIED') {
      out.push({ path: 'message.role', description: 'required (ROLE_UNSPECIFIED is not a role)' });
    }
    checkJsonSize(m.metadata, 'message.metadata', maxMeta, maxDepth, out);
    const maxParts = limitOf(limits, 'maxParts');
    if (m.parts.length > maxParts) {
      out.push({ path: 'message.parts', description: `more than ${maxParts} parts` });
      return out;
    }
    const maxText = limitOf(limits, 'maxTextLength');
    const maxRaw = limitOf(limits, 'maxRawLength');
    const maxUrl = limitOf(limits, 'maxUrlLength');
    const maxData = limitOf(limits, 'maxDataSize');
    for (let i = 0; i < m.parts.length && out.length < 8; i++) {
      const p = m.parts[i] as Part;
      if (p.text !== undefined) {
        if (p.text.length > maxText)
          out.push({ path: `message.parts[${i}].text`, description: `longer than ${maxText} characters` });
      } else if (p.raw !== undefined) {
        if (p.raw.length > maxRaw)
          out.push({ path: `message.parts[${i}].raw`, description: `longer than ${maxRaw} characters` });
      } else if (p.url !== undefined) {
        if (p.url.length > maxUrl)
          out.push({ path: `message.parts[${i}].url`, description: `longer than ${maxUrl} characters` });
      } else if (p.data !== undefined) {
        checkJsonSize(p.data, i, maxData, maxDepth, out, 'data');
      }
      if (p.metadata !== undefined) checkJsonSize(p.metadata, i, maxMeta, maxDepth, out, 'metadata');
    }
  } else if (method === 'CancelTask') {
    const maxMeta = limitOf(limits, 'maxMetadataSize');
    checkJsonSize(
      (value as CancelTaskRequest).metadata,
      'metadata',
      maxMeta,
      limitOf(limits, 'maxDepth'),
      out,
    );
  }
  return out;
}

/** Adds a violation when `value` is larger than `max` JSON characters or deeper than `maxDepth`. */
function checkJsonSize(
  value: unknown,
  at: string | number,
  max: number,
  maxDepth: number,
  out: SchemaViolation[],
  partField?: string,
): void {
  if (value === undefined) return;
  const size = jsonSize(value, max, maxDepth);
  if (size !== TOO_DEEP && size <= max) return;
  const path = typeof at === 'number' ? `message.parts[${at}].${partField ?? ''}` : at;
  out.push({
    path,
    description:
      size === TOO_DEEP ? `nested deeper than ${maxDepth} levels` : `larger than ${max} characters of JSON`,
  });
}

const TOO_DEEP = -1;

/**
 * Approximate JSON length of `value`, walking at most until `budget` is exceeded (so the
 * cost is bounded by the limit, not by the input); `TOO_DEEP` past `maxDepth`.
 */
export function jsonSize(value: unknown, budget: number, maxDepth: number): number {
  return sizeOf(value, budget, maxDepth, 0, 0);
}

/** Running total after adding `v` to `total`; stops early past `budget`. */
function sizeOf(v: unknown, budget: number, maxDepth: number, depth: number, total: number): number {
  if (typeof v === 'string') return total + v.length + 2;
  if (typeof v !== 'object' || v === null) return total + 5;
  if (depth >= maxDepth) return TOO_DEEP;
  total += 2;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length && total <= budget; i++) {
      total = sizeOf(v[i], budget, maxDepth, depth + 1, total + 1);
      if (total === TOO_DEEP) return TOO_DEEP;
    }
  } else {
    for (const key in v) {
      if (!Object.prototype.hasOwnProperty.call(v, key)) continue;
      total = sizeOf(
        (v as Record<string, unknown>)[key],
        budget,
        maxDepth,
        depth + 1,
        total + key.length + 4,
      );
      if (total === TOO_DEEP) return TOO_DEEP;
      if (total > budget) break;
    }
  }
  return total;
}

// ---- wire objects (client side) ----------------------------------------------------------

/** The objects a client reads from a server, by name. */
export interface WireObjectMap {
  Task: Task;
  Message: Message;
  StreamResponse: StreamResponse;
  SendMessageResponse: SendMessageResponse;
  ListTasksResponse: ListTasksResponse;
  AgentCard: AgentCard;
  TaskPushNotificationConfig: TaskPushNotificationConfig;
  ListTaskPushNotificationConfigsResponse: ListTaskPushNotificationConfigsResponse;
  Empty: Empty;
}
/** Name of an object a client reads from a server. */
export type WireObjectName = keyof WireObjectMap;

/** Compiled validators of the canonical wire schemas (unknown fields allowed, no normalization). */
export const WIRE_VALIDATORS: { readonly [K in WireObjectName]: Validator<WireObjectMap[K]> } = {
  Task: compile(Task),
  Message: compile(Message),
  StreamResponse: compile(StreamResponse),
  SendMessageResponse: compile(SendMessageResponse),
  ListTasksResponse: compile(ListTasksResponse),
  AgentCard: compile(AgentCard),
  TaskPushNotificationConfig: compile(TaskPushNotificationConfig),
  ListTaskPushNotificationConfigsResponse: compile(ListTaskPushNotificationConfigsResponse),
  Empty: compile(Empty),
};

const LENIENT_WIRE: { readonly [K in WireObjectName]: Entry<WireObjectMap[K]> } = {
  Task: entry(Task, true),
  Message: entry(Message, true),
  StreamResponse: entry(StreamResponse, true),
  SendMessageResponse: entry(SendMessageResponse, true),
  ListTasksResponse: entry(ListTasksResponse, true),
  AgentCard: entry(AgentCard, true),
  TaskPushNotificationConfig: entry(TaskPushNotificationConfig, true),
  ListTaskPushNotificationConfigsResponse: entry(ListTaskPushNotificationConfigsResponse, true),
  Empty: entry(Empty, true),
};

/**
 * Client-side read of a wire object, without throwing. Lenient (CLI-JSON-2): unknown fields
 * are dropped, unknown enum values become `*_UNSPECIFIED`, absent REQUIRED lists and scalars
 * take their defaults, empty REQUIRED arrays are accepted (N4), `null` means absent, and an
 * Empty may be `null` (CLI-JSON-4).
 */
export function checkWireObject<K extends WireObjectName>(name: K, json: unknown): Checked<WireObjectMap[K]> {
  const e = Object.prototype.hasOwnProperty.call(LENIENT_WIRE, name)
    ? (LENIENT_WIRE[name] as Entry<WireObjectMap[K]>)
    : undefined;
  if (!e) return { ok: false, violations: [{ path: '', description: `unknown object ${String(name)}` }] };
  return checkWith(e, name === 'Empty' ? (json ?? {}) : json, true);
}
