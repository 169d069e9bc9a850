/**
 * A2A errors on the two JSON bindings, both directions (spec §5.4; D13, N1, N2, G3).
 * Encoders emit exactly the v1.0.1 shapes; decoders accept anything a peer may send and
 * never throw: the error is classified by `ErrorInfo.reason`, then by the JSON-RPC code,
 * then by the HTTP status, and the peer's raw body is kept on `error.raw`.
 */
import type { SchemaViolation } from '../model/validate.js';
import { A2AError, createError, toA2AError, type ErrorDetail } from './a2a-error.js';
import {
  A2A_ERROR_DOMAIN,
  codeForHttpStatus,
  codeForJsonRpc,
  codeForReason,
  errorRow,
  type A2AErrorCode,
  type GrpcStatusName,
} from './table.js';

/** The `error` member of a JSON-RPC 2.0 response. */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  /** `@type`-tagged details: ErrorInfo for A2A errors, BadRequest for violations (may be empty). */
  data: ErrorDetail[];
}

/** The HTTP+JSON error body (AIP-193 envelope, D13). */
export interface RestErrorBody {
  error: { code: number; status: GrpcStatusName; message: string; details: ErrorDetail[] };
}

/** What a REST server sends for an error. */
export interface RestErrorResponse {
  /** HTTP status from the error table (overridable per N1). */
  status: number;
  /** `application/a2a+json`, or `application/json` when the request asked for it (N14). */
  contentType: string;
  body: RestErrorBody;
}

const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';
const BAD_REQUEST_TYPE = 'type.googleapis.com/google.rpc.BadRequest';
const MAX_TEXT = 1000;

// ---- encoding ----------------------------------------------------------------------------

/** Encodes any thrown value as a JSON-RPC `error` object (unknown failures become -32603 without detail). */
export function toJsonRpcError(err: unknown): JsonRpcErrorObject {
  const e = toA2AError(err);
  return { code: errorRow(e.code).jsonRpcCode, message: e.message, data: e.details() };
}

/**
 * Encodes any thrown value as a REST error response. `contentTypeHint` is the request's
 * `Content-Type` or `Accept`: plain `application/json` there (and no a2a+json) selects
 * `application/json` for the answer.
 */
export function toRestError(err: unknown, contentTypeHint?: string): RestErrorResponse {
  const e = toA2AError(err);
  const row = errorRow(e.code);
  const hint = (contentTypeHint ?? '').toLowerCase();
  const contentType =
    hint.includes('application/json') && !hint.includes('application/a2a+json')
      ? 'application/json'
      : 'application/a2a+json';
  return {
    status: row.httpStatus,
    contentType,
    body: {
      error: { code: row.httpStatus, status: row.grpcStatus, message: e.message, details: e.details() },
    },
  };
}

// ---- decoding ----------------------------------------------------------------------------

/**
 * What a `details` / `data` array says, read tolerantly.
 * @internal
 */
export interface DecodedDetails {
  /** `ErrorInfo.reason` in the A2A domain (or with no domain), if any. */
  reason?: string;
  /** `ErrorInfo.metadata` (string values only). */
  metadata: Record<string, string>;
  /** `BadRequest.fieldViolations` as violations. */
  violations: SchemaViolation[];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Reads ErrorInfo and BadRequest out of a details array; ignores anything else.
 * @internal
 */
export function readErrorDetails(details: unknown): DecodedDetails {
  const out: DecodedDetails = { metadata: {}, violations: [] };
  if (!Array.isArray(details)) return out;
  for (const d of details.slice(0, 32)) {
    if (!isObject(d)) continue;
    const type = typeof d['@type'] === 'string' ? d['@type'] : '';
    if (
      (type === ERROR_INFO_TYPE || type.endsWith('google.rpc.ErrorInfo') || (!type && 'reason' in d)) &&
      typeof d['reason'] === 'string' &&
      out.reason === undefined &&
      (d['domain'] === undefined || d['domain'] === A2A_ERROR_DOMAIN)
    ) {
      out.reason = d['reason'];
      if (isObject(d['metadata'])) {
        for (const [k, v] of Object.entries(d['metadata'])) {
          if (typeof v === 'string' && k !== '__proto__') out.metadata[k] = v;
        }
      }
    } else if (type === BAD_REQUEST_TYPE || type.endsWith('google.rpc.BadRequest')) {
      const list = d['fieldViolations'];
      if (!Array.isArray(list)) continue;
      for (const v of list.slice(0, 64)) {
        if (!isObject(v)) continue;
        out.violations.push({
          path: typeof v['field'] === 'string' ? v['field'] : '',
          description: typeof v['description'] === 'string' ? v['description'] : 'invalid',
        });
      }
    }
  }
  return out;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.slice(0, MAX_TEXT) : undefined;
}

function jsonRpcCode(value: unknown): A2AErrorCode | undefined {
  return typeof value === 'number' && Number.isInteger(value) ? codeForJsonRpc(value) : undefined;
}

/** Options of {@link fromJsonRpcError}. */
export interface JsonRpcDecodeOptions {
  /** HTTP status of the response: tells 401, 403 and 429 apart (all -32000, G3) and 503 from 500 (-32603). */
  httpStatus?: number;
}

/**
 * Rebuilds the typed error from a JSON-RPC `error` object: by `ErrorInfo.reason` in `data[]`,
 * then by `code` (N1, N2). Anything unrecognizable becomes InternalError; never throws.
 * @param raw what to keep on `error.raw` (default: `obj`), e.g. the whole response.
 */
export function fromJsonRpcError(obj: unknown, raw?: unknown, options: JsonRpcDecodeOptions = {}): A2AError {
  const keep = raw === undefined ? obj : raw;
  const status = options.httpStatus;
  if (!isObject(obj)) {
    return createError('InternalError', 'Malformed JSON-RPC error', { raw: keep, receivedStatus: status });
  }
  const details = readErrorDetails(obj['data']);
  let code = (details.reason && codeForReason(details.reason)) || jsonRpcCode(obj['code']);
  if (code === 'Unauthenticated' && status === 403) code = 'PermissionDenied';
  if (code === 'Unauthenticated' && status === 429) code = 'ResourceExhausted';
  if (code === 'InternalError' && status === 503) code = 'Unavailable';
  return createError(code ?? 'InternalError', text(obj['message']), {
    metadata: details.metadata,
    violations: details.violations,
    raw: keep,
    receivedStatus: status,
  });
}

/**
 * Rebuilds the typed error from a REST error response, reading the body in D13 order:
 * `error.details[]` envelope, bare `google.rpc.Status`, RFC 9457 problem, v0.3
 * `{code,message,data}`, plain text. Classifies by `ErrorInfo.reason`, then by the HTTP
 * status (or the v0.3 JSON-RPC code). The body as received is kept on `error.raw`.
 */
export function fromRestError(status: number, body: unknown): A2AError {
  let parsed: unknown = body;
  if (typeof body === 'string') {
    try {
      parsed = JSON.parse(body) as unknown;
    } catch {
      parsed = body;
    }
  } else if (body instanceof Uint8Array) {
    return fromRestError(status, new TextDecoder().decode(body));
  }
  const httpCode = Number.isInteger(status) ? codeForHttpStatus(status) : 'InternalError';
  const build = (
    code: A2AErrorCode | undefined,
    message: string | undefined,
    details: DecodedDetails = { metadata: {}, violations: [] },
  ): A2AError =>
    createError((details.reason && codeForReason(details.reason)) || code || httpCode, message, {
      metadata: details.metadata,
      violations: details.violations,
      raw: parsed,
      receivedStatus: status,
    });

  if (isObject(parsed)) {
    // 1. AIP-193 envelope {error:{code,status,message,details}}
    const envelope = parsed['error'];
    if (isObject(envelope)) {
      const code =
        typeof envelope['code'] === 'number' && envelope['code'] < 0
          ? jsonRpcCode(envelope['code'])
          : undefined;
      return build(code, text(envelope['message']), readErrorDetails(envelope['details']));
    }
    if (typeof envelope === 'string') return build(undefined, text(envelope));
    // 2. bare google.rpc.Status {code,message,details}
    if (Array.isArray(parsed['details'])) {
      return build(undefined, text(parsed['message']), readErrorDetails(parsed['details']));
    }
    // 3. RFC 9457 problem details
    if (
      typeof parsed['title'] === 'string' ||
      typeof parsed['detail'] === 'string' ||
      typeof parsed['type'] === 'string'
    ) {
      return build(undefined, text(parsed['detail']) ?? text(parsed['title']), {
        metadata: {},
        violations: problemViolations(parsed['errors']),
      });
    }
    // 4. v0.3 {code, message, data}
    if (typeof parsed['code'] === 'number' || typeof parsed['message'] === 'string') {
      const details = readErrorDetails(parsed['data']);
      return build(jsonRpcCode(parsed['code']), text(parsed['message']), details);
    }
    return build(undefined, undefined);
  }
  // 5. plain text (or JSON that is no error shape)
  return build(undefined, typeof parsed === 'string' ? text(parsed.trim()) : undefined);
}

/** RFC 9457 `errors: [{field|pointer, message|detail}]` as violations, when present. */
function problemViolations(errors: unknown): SchemaViolation[] {
  if (!Array.isArray(errors)) return [];
  const out: SchemaViolation[] = [];
  for (const e of errors.slice(0, 64)) {
    if (!isObject(e)) continue;
    const path = [e['field'], e['pointer'], e['name']].find((v) => typeof v === 'string') as
      string | undefined;
    const description = [e['message'], e['detail'], e['reason']].find((v) => typeof v === 'string') as
      string | undefined;
    if (path !== undefined || description !== undefined)
      out.push({ path: path ?? '', description: description ?? 'invalid' });
  }
  return out;
}

/** True when `err` is an A2AError (handy for narrowing in callers of the decoders). */
export function isA2AError(err: unknown): err is A2AError {
  return err instanceof A2AError;
}
