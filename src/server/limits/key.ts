import type { ServerCallContext } from '../../core/context.js';

/**
 * The limiter key of a call: who is calling, never what the call names (issue 27, SRV-TRUST-5).
 * An authenticated caller is its principal id (ids are namespaced by scheme, so two schemes'
 * `alice` are two keys), whatever tenant it names; an anonymous caller is its remote address
 * when the transport gave one, so that a new connection (a new per-connection principal) or
 * another tenant does not reset its limits.
 */
export function principalKey(ctx: Pick<ServerCallContext, 'principal'>): string {
  const { principal } = ctx;
  const address = principal.claims?.['remoteAddress'];
  if (principal.claims?.['anonymous'] === true && typeof address === 'string') return `address:${address}`;
  return `principal:${principal.id}`;
}
