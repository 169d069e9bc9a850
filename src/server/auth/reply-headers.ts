/**
 * HTTP headers that go with a security error: `WWW-Authenticate` for 401/403 from an
 * authenticator (RFC 9110 §11.6.1, RFC 6750 §3) and `Retry-After` for 429 (RFC 9110 §10.2.3).
 * Bindings add them to the reply (gRPC: as trailing metadata of the same names).
 */
import { ResourceExhaustedError } from '../../errors/a2a-error.js';
import { AuthenticationFailedError, InsufficientScopeError } from './types.js';

/** The extra reply headers for `error` (lowercase names); empty for other errors. */
export function securityHeadersFor(error: unknown): Record<string, string> {
  if (error instanceof AuthenticationFailedError || error instanceof InsufficientScopeError) {
    // Several challenges may share one header, comma-separated (RFC 9110 §11.6.1).
    return error.challenges.length > 0 ? { 'www-authenticate': error.challenges.join(', ') } : {};
  }
  if (error instanceof ResourceExhaustedError && error.retryAfterSeconds !== undefined) {
    return { 'retry-after': String(error.retryAfterSeconds) };
  }
  return {};
}
