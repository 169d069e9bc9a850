/**
 * Turning what a server sent into typed values: A2A errors from any binding's error shape
 * (CLI-JSON-3, D13) and validated responses, lenient where the spec asks clients to be
 * (unknown fields ignored, unknown enum values read as UNSPECIFIED, absent = default).
 */
import type { TSchema, Static } from '@sinclair/typebox';
import type { A2AError } from '../errors/index.js';
import {
  fromJsonRpcError as decodeJsonRpcError,
  fromRestError as decodeRestError,
  readErrorDetails,
} from '../errors/codec.js';
import { parseRole, parseTaskState, TaskState, Role } from '../model/enums.js';
import { compile, formatViolations, type Validator } from '../model/validate.js';
import { A2AInvalidResponseError } from './errors.js';

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
