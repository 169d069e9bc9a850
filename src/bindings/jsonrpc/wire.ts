/**
 * JSON-RPC 2.0 envelopes as A2A uses them (spec §9, G3, G4, G12): request parsing and
 * response writing. Responses are built by string concatenation so a result is serialized once.
 */
import { InvalidRequestError, type A2AError } from '../../errors/a2a-error.js';
import { errorRow } from '../../errors/table.js';

/** A JSON-RPC id as the spec allows it. */
export type JsonRpcId = string | number | null;

/** A syntactically valid JSON-RPC request (the method is not checked here). */
export interface JsonRpcRequest {
  /** The id; `undefined` for a notification. */
  readonly id: JsonRpcId | undefined;
  /** The id as JSON text, ready to echo (`null` for notifications). */
  readonly idJson: string;
  readonly method: string;
  readonly params: unknown;
}

/** The JSON text of an absent or unparseable id. */
export const NULL_ID = 'null';

/** A request envelope that cannot be answered with its own id (answered with `id: null`). */
export class EnvelopeError extends Error {
  constructor(
    readonly error: A2AError,
    readonly idJson: string,
  ) {
    super(error.message);
  }
}

function isValidId(id: unknown): id is JsonRpcId {
  return id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
}

/**
 * Checks the envelope of a parsed body. Batches (arrays) and anything but a request object
 * throw {@link EnvelopeError} carrying InvalidRequest (-32600).
 */
export function parseJsonRpcRequest(value: unknown): JsonRpcRequest {
  if (Array.isArray(value)) {
    throw new EnvelopeError(
      new InvalidRequestError('Batch requests are not supported: send one JSON-RPC request per call'),
      NULL_ID,
    );
  }
  if (value === null || typeof value !== 'object') {
    throw new EnvelopeError(new InvalidRequestError('The body must be a JSON-RPC request object'), NULL_ID);
  }
  const obj = value as Record<string, unknown>;
  const id = obj.id;
  const hasId = id !== undefined;
  if (hasId && !isValidId(id)) {
    throw new EnvelopeError(new InvalidRequestError('"id" must be a string, a number or null'), NULL_ID);
  }
  const idJson = hasId ? JSON.stringify(id) : NULL_ID;
  if (obj.jsonrpc !== '2.0') {
    throw new EnvelopeError(new InvalidRequestError('"jsonrpc" must be exactly "2.0"'), idJson);
  }
  if (typeof obj.method !== 'string' || obj.method === '') {
    throw new EnvelopeError(new InvalidRequestError('"method" must be a non-empty string'), idJson);
  }
  return { id: hasId ? (id as JsonRpcId) : undefined, idJson, method: obj.method, params: obj.params };
}

/** `{"jsonrpc":"2.0","id":…,"result":…}` from already serialized parts. */
export function resultResponse(idJson: string, resultJson: string): string {
  return '{"jsonrpc":"2.0","id":' + idJson + ',"result":' + resultJson + '}';
}

/** The JSON-RPC `error` object of an A2A error: code, message, and `data` = its details (SRV-JRPC-7). */
export function errorObject(error: A2AError): { code: number; message: string; data?: unknown[] } {
  const details = error.details();
  const out: { code: number; message: string; data?: unknown[] } = {
    code: errorRow(error.code).jsonRpcCode,
    message: error.message,
  };
  if (details.length > 0) out.data = details;
  return out;
}

/** `{"jsonrpc":"2.0","id":…,"error":{…}}`. */
export function errorResponse(idJson: string, error: A2AError): string {
  return '{"jsonrpc":"2.0","id":' + idJson + ',"error":' + JSON.stringify(errorObject(error)) + '}';
}

/**
 * The HTTP status of a JSON-RPC error reply: 200 for everything raised while dispatching
 * (G4), the table's status for authentication, permission and rate-limit errors (G3).
 */
export function httpStatusOf(error: A2AError): number {
  return HTTP_LEVEL_ERRORS.has(error.code) ? errorRow(error.code).httpStatus : 200;
}

/** Errors answered at the HTTP layer (401, 403, 429), so that proxies and clients see them. */
const HTTP_LEVEL_ERRORS: ReadonlySet<string> = new Set([
  'Unauthenticated',
  'PermissionDenied',
  'ResourceExhausted',
]);

/** True for v0.3 method names (`message/send`, `tasks/get`, ...): they contain a slash. */
export function isV03MethodName(method: string): boolean {
  return method.includes('/');
}
