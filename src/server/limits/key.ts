import type { ServerCallContext } from '../../core/context.js';

/**
 * The limiter key of a call: who is calling, never what the call names (issue 27, SRV-TRUST-5).
 * An authenticated caller is its principal id (ids are namespaced by scheme, so two schemes'
 * `alice` are two keys), whatever tenant it names; an anonymous caller is its remote address
 * when the transport gave one (else all anonymous callers share one key), so that a new
 * connection (a new per-connection principal) or another tenant does not reset its limits.
 */
export function principalKey(ctx: Pick<ServerCallContext, 'principal'>): string {
  const { principal } = ctx;
  if (principal.claims?.['anonymous'] !== true) return `principal:${principal.id}`;
  const address = principal.claims['remoteAddress'];
  // No address (a fetch runtime): one bucket for every anonymous caller, never one per request.
  return typeof address === 'string' ? `address:${address}` : 'anonymous';
}
