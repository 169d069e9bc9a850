import type { ServerCallContext } from '../../core/context.js';

/**
 * The limiter key of a call: tenant and principal id, so that the same id in two tenants
 * (or an anonymous caller) never shares another's bucket by accident.
 */
export function principalKey(ctx: Pick<ServerCallContext, 'tenant' | 'principal'>): string {
  return `${ctx.tenant}\u0000${ctx.principal.id}`;
}
