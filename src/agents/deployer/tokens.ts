/**
 * The deployer's demo credentials: static bearer tokens mapped to principals with scopes. The
 * agent never reads a header itself; these turn a request into `ctx.principal` through the
 * server's `authenticate` option (see {@link demoTokenAuthenticate}).
 */
import type { Principal } from '../../core/context.js';
import type { AuthRequest } from '../../server/auth/request.js';
import { AuthenticationFailedError } from '../../server/auth/types.js';

/** Scope needed to deploy to `env`. */
export const deployScope = (env: string): string => `deploy:${env}`;

/** The token `a2a demo` uses: may deploy to staging only. */
export const DEMO_TOKEN = 'demo-staging-token';
/** A stronger token that may also deploy to production. */
export const DEMO_PRODUCTION_TOKEN = 'demo-production-token';

/**
 * Every demo token and what it grants. Both name the same user: tasks belong to their caller,
 * so the stronger token must be the same principal to continue a task the weaker one started.
 * A Map, not an object: a caller's token is a key, and `constructor` or `__proto__` must not
 * find anything an object inherits.
 */
export const DEMO_TOKENS: ReadonlyMap<string, Principal> = new Map<string, Principal>([
  [DEMO_TOKEN, Object.freeze({ id: 'demo-user', scopes: Object.freeze([deployScope('staging')]) })],
  [
    DEMO_PRODUCTION_TOKEN,
    Object.freeze({
      id: 'demo-user',
      scopes: Object.freeze([deployScope('staging'), deployScope('production')]),
    }),
  ],
]);

/** True when `principal` holds `scope`. */
export function hasScope(principal: Principal, scope: string): boolean {
  return principal.scopes?.includes(scope) ?? false;
}

/**
 * Authenticates a request by its `Authorization: Bearer <token>` against {@link DEMO_TOKENS};
 * refuses a missing or unknown token with a challenge naming the realm.
 */
export function demoTokenAuthenticate(request: AuthRequest): Principal {
  const header = request.headers.get('authorization') ?? '';
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  const principal = match ? DEMO_TOKENS.get(match[1]!) : undefined;
  if (principal) return principal;
  throw new AuthenticationFailedError({
    kind: match ? 'invalid' : 'missing',
    scheme: 'bearer',
    message: match ? 'unknown bearer token' : 'a bearer token is required',
    challenges: ['Bearer realm="a2a-kit demo deployer"'],
  });
}
