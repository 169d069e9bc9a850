/**
 * v0.3 error shapes (SRV-COMPAT-3, SRV-COMPAT-7): a JSON-RPC error whose `data` is free-form, and the bare
 * `{code, message, data?}` body the v0.3 REST SDKs send. Codes are the JSON-RPC codes of the
 * shared table; -32007 was called AuthenticatedExtendedCardNotConfiguredError in v0.3.
 */
import type { A2AError } from '../../errors/a2a-error.js';
import { createError } from '../../errors/a2a-error.js';
import { ERROR_CODES, errorRow, type A2AErrorCode } from '../../errors/table.js';
import type { V03JsonRpcError } from './types.js';

/** The v0.3 JSON-RPC `error` object: `data` carries metadata and field violations when there are any. */
export function v03ErrorObject(error: A2AError): V03JsonRpcError {
  const out: V03JsonRpcError = { code: errorRow(error.code).jsonRpcCode, message: error.message };
  const data: Record<string, unknown> = {};
  if (Object.keys(error.metadata).length > 0) Object.assign(data, error.metadata);
  if (error.violations.length > 0) {
    data.violations = error.violations.map((v) => ({ field: v.path, description: v.description }));
  }
  if (Object.keys(data).length > 0) out.data = data;
  return out;
}

/** `{"jsonrpc":"2.0","id":…,"error":{…}}` in the v0.3 shape. */
export function v03ErrorResponse(idJson: string, error: A2AError): string {
  return '{"jsonrpc":"2.0","id":' + idJson + ',"error":' + JSON.stringify(v03ErrorObject(error)) + '}';
}

/** The v0.3 REST error reply: the table's HTTP status, body `{code, message, data?}`. */
export function v03RestError(error: A2AError, httpStatus?: number): { status: number; body: string } {
  return {
    status: httpStatus ?? errorRow(error.code).httpStatus,
    body: JSON.stringify(v03ErrorObject(error)),
  };
}

const BY_JSONRPC_CODE = new Map<number, A2AErrorCode>();
for (const code of ERROR_CODES) {
  const n = errorRow(code).jsonRpcCode;
  if (!BY_JSONRPC_CODE.has(n)) BY_JSONRPC_CODE.set(n, code);
}

/**
 * The typed error for a v0.3 error object (client side), by its numeric code; an unknown code
 * is InternalError. The raw object is kept in `.raw`.
 */
export function fromV03Error(
  error: { code?: unknown; message?: unknown },
  receivedStatus?: number,
): A2AError {
  const code = typeof error.code === 'number' ? BY_JSONRPC_CODE.get(error.code) : undefined;
  const message = typeof error.message === 'string' && error.message !== '' ? error.message : undefined;
  return createError(code ?? 'InternalError', message, {
    raw: error,
    ...(receivedStatus !== undefined ? { receivedStatus } : {}),
  });
}
