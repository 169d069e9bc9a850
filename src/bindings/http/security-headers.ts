/**
 * Reply headers that go with a security error: `WWW-Authenticate` for 401/403 (RFC 9110
 * §11.6.1, RFC 6750 §3) and `Retry-After` for 429 (RFC 9110 §10.2.3). Every binding adds them
 * (gRPC: as trailing metadata of the same names). The challenges are read from a
 * `challenges: string[]` property of the error, as the authenticators in `src/server/auth` set it:
 * the bindings know no authenticator.
 */
import { A2AError, ResourceExhaustedError } from '../../errors/a2a-error.js';

const CHALLENGE_CODES: ReadonlySet<string> = new Set(['Unauthenticated', 'PermissionDenied']);

/** The `WWW-Authenticate` values an Unauthenticated / PermissionDenied error carries. */
function challengesOf(error: A2AError): readonly string[] {
  const challenges = (error as { challenges?: unknown }).challenges;
  if (!Array.isArray(challenges)) return [];
  return challenges.filter((c): c is string => typeof c === 'string' && c !== '');
}

/** The extra reply headers for `error` (lowercase names); empty for other errors. */
export function securityHeadersFor(error: unknown): Record<string, string> {
  if (!(error instanceof A2AError)) return {};
  if (CHALLENGE_CODES.has(error.code)) {
    const challenges = challengesOf(error);
    // Several challenges may share one header, comma-separated (RFC 9110 §11.6.1).
    return challenges.length > 0 ? { 'www-authenticate': challenges.join(', ') } : {};
  }
  if (error instanceof ResourceExhaustedError && error.retryAfterSeconds !== undefined) {
    return { 'retry-after': String(error.retryAfterSeconds) };
  }
  return {};
}
