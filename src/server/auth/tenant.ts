/**
 * The tenant a call names must be one its credential grants (issue 27, finding 2; decision
 * SEC-TENANT-1): the principal carries its tenants (a JWT claim, an API key's configuration),
 * and every operation of every binding passes this check before the handler runs.
 */
import type { Principal } from '../../core/context.js';
import type { ServerInterceptor } from '../../core/handler/interceptor.js';
import { PermissionDeniedError } from '../../errors/a2a-error.js';
import { quoteForMessage } from '../../bindings/http/http-body.js';

/** Whether `principal` may act in `tenant` (any tenant when its credential binds none). */
export function holdsTenant(principal: Principal, tenant: string): boolean {
  return principal.tenants === undefined || principal.tenants.includes(tenant);
}

/**
 * Refuses a call whose tenant the caller's credential does not grant, with PermissionDenied
 * (HTTP 403 / gRPC PERMISSION_DENIED), the same answer for every tenant not held (whether or
 * not it exists), so that it tells the caller nothing about other tenants.
 */
export const tenantGuard: ServerInterceptor = (next) => (call) => {
  const principal = call.ctx.principal;
  if (holdsTenant(principal, call.ctx.tenant)) return next(call);
  const named = call.ctx.tenant === '' ? 'no tenant' : `tenant ${quoteForMessage(call.ctx.tenant)}`;
  return Promise.reject(
    new PermissionDeniedError(`the credential does not grant ${named}: name one of the tenants it grants`),
  );
};
