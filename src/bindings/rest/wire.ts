/**
 * HTTP+JSON wire details (spec §11, D13, N14): the error envelope, the response media
 * type, and query-parameter decoding for GET requests.
 */
import { InvalidParamsError, type A2AError } from '../../errors/a2a-error.js';
import { errorRow } from '../../errors/table.js';
import type { SchemaViolation } from '../../model/validate.js';
import { quoteForMessage } from '../http/http-body.js';

/** The REST media type (spec 11.1). */
export const A2A_JSON = 'application/a2a+json';

/**
 * The media type of a JSON reply: `application/json` when the request body used it, or when
 * `Accept` names application/json and not application/a2a+json; else `application/a2a+json`.
 */
export function responseMediaType(contentType: string | undefined, accept: string | undefined): string {
  if (contentType !== undefined && contentType.startsWith('application/json')) return 'application/json';
  if (accept !== undefined && accept.includes('application/json') && !accept.includes(A2A_JSON)) {
    return 'application/json';
  }
  return A2A_JSON;
}

/**
 * The §11.6 error envelope (`httpStatus` overrides the table, e.g. 405, 413, 415): `{"error":{"code":<http>,"status":<gRPC name>,"message",details}}`.
 */
export function errorEnvelope(error: A2AError, httpStatus?: number): { status: number; body: string } {
  const row = errorRow(error.code);
  const status = httpStatus ?? row.httpStatus;
  const details = error.details();
  const envelope: { code: number; status: string; message: string; details?: unknown[] } = {
    code: status,
    status: row.grpcStatus,
    message: error.message,
  };
  if (details.length > 0) envelope.details = details;
  return { status, body: JSON.stringify({ error: envelope }) };
}

/** How one query parameter is decoded. */
export type QueryKind = 'string' | 'int' | 'bool' | 'list';

/** The query parameters a route understands: camelCase name → kind. */
export type QuerySpec = Readonly<Record<string, QueryKind>>;

const INT = /^-?\d+$/;

function snakeToCamel(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

/**
 * Decodes the query string for a GET route (SRV-REST-2, SRV-REST-3): camelCase or snake_case
 * names, decimal integers, `true`/`false`, lists as repeated or comma-separated values.
 * Unknown parameters (and `A2A-Version`, N8) are ignored. Malformed values throw
 * InvalidParamsError naming the parameter.
 */
export function decodeQuery(query: string, spec: QuerySpec, into: Record<string, unknown>): void {
  if (query === '') return;
  const violations: SchemaViolation[] = [];
  for (const [rawName, value] of new URLSearchParams(query)) {
    const name = spec[rawName] ? rawName : snakeToCamel(rawName);
    const kind = spec[name];
    if (!kind) continue;
    switch (kind) {
      case 'string':
        into[name] = value;
        break;
      case 'int':
        if (INT.test(value)) into[name] = Number(value);
        else
          violations.push({ path: name, description: `expected an integer, got ${quoteForMessage(value)}` });
        break;
      case 'bool':
        if (value === 'true' || value === '1') into[name] = true;
        else if (value === 'false' || value === '0') into[name] = false;
        else
          violations.push({
            path: name,
            description: `expected true or false, got ${quoteForMessage(value)}`,
          });
        break;
      case 'list': {
        const list = (into[name] as string[] | undefined) ?? [];
        for (const item of value.split(',')) if (item !== '') list.push(item);
        into[name] = list;
        break;
      }
    }
  }
  if (violations.length > 0) {
    throw new InvalidParamsError(
      `Invalid parameters: ${violations.map((v) => `${v.path}: ${v.description}`).join('; ')}`,
      { violations },
    );
  }
}
