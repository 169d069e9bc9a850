/**
 * The `security` option of `createA2AServer`: builds the security gate from the configured
 * authenticators, makes it the `authenticate` hook, generates the card's security section from
 * the same authenticators (so the card says what is enforced, issue 11.2), scopes anonymous
 * callers, and keeps the extended card from anonymous callers.
 */
import type { Authenticate, AuthRequest } from '../bindings/auth-request.js';
import { ANONYMOUS, type Principal } from '../core/context.js';
import type { ServerInterceptor } from '../core/handler/interceptor.js';
import { UnauthenticatedError } from '../errors/a2a-error.js';
import type { SecurityRequirement } from '../model/schema.js';
import { createSecurityGate, type PrincipalIdMapping, type SecurityGate } from './auth/requirements.js';
import {
  createFailedAuthGuard,
  type FailedAuthOptions,
  type FailedAuthReporting,
} from './auth/failed-auth.js';
import { AuthenticationFailedError, InsufficientScopeError } from './auth/types.js';
import type { Authenticator } from './auth/types.js';
import type { AgentCardConfig } from './card/build.js';
import { withCardSecurity } from './card/security.js';

/**
 * Who an anonymous caller is, when the requirements let callers in without a credential:
 * - `deny`: nobody is let in without a credential (the requirements may not hold an empty entry);
 * - `per-connection`: each transport connection is its own principal (`anonymous:<id>`), so
 *   anonymous callers never see each other's tasks; a connection that closes loses its tasks
 *   (a fetch runtime exposes no connection: there each request is its own principal);
 * - `shared`: every anonymous caller is the one principal `anonymous` and sees the same tasks
 *   (what a server without `security` does).
 */
export type AnonymousAccess = 'deny' | 'per-connection' | 'shared';

/** The `security` option of `createA2AServer`. */
export interface ServerSecurityOptions {
  /**
   * The schemes enforced; each becomes a `securitySchemes` entry of the card, by its `name`.
   * @example authenticators: [createApiKeyAuthenticator({ keys: { 'secret-1': 'alice' } })]
   */
  authenticators: readonly Authenticator[];
  /**
   * The card's `securityRequirements`: alternatives (OR) of schemes that must all pass (AND)
   * with the scopes listed. An entry without schemes admits anonymous callers (see `anonymous`).
   * @default any single authenticator, without scopes
   * @example requirements: [{ schemes: { oauth: { list: ['agent.use'] } } }]
   */
  requirements?: readonly SecurityRequirement[];
  /**
   * Anonymous callers: `deny`, or let them in (`per-connection` or `shared` scope). Allowing
   * them adds an empty entry to the requirements (so the card says so) when it has none.
   * @default 'deny', or 'per-connection' when `requirements` already holds an empty entry
   * @example anonymous: 'shared'
   */
  anonymous?: AnonymousAccess;
  /**
   * How principal ids are formed from what the authenticators return (see
   * `SecurityGateOptions.principalIds`): `<scheme>:<id>` by default, so that API key `alice`
   * and a JWT with `sub: alice` are two callers. `as-is` keeps ids of data stored before.
   * @default 'namespaced'
   * @example principalIds: 'as-is'
   */
  principalIds?: PrincipalIdMapping;
  /**
   * Failed authentications are logged and counted (`a2a.server.auth.failures`); an address
   * that presents more bad credentials than this is answered 429 (with Retry-After) before its
   * authenticators run, until it regains some. `false`: never throttled (still logged).
   * @default { burst: 30, perMinute: 30 }
   * @example failedAuth: { burst: 10, perMinute: 5 }
   */
  failedAuth?: FailedAuthOptions | false;
}

/** What the hosting layer installs for a `security` option. */
export interface SecurityWiring {
  readonly gate: SecurityGate;
  /** The card configuration with the generated security section (checked against the authenticators). */
  readonly card: AgentCardConfig;
  /** The hook every binding runs. */
  readonly authenticate: Authenticate;
  /** Refuses the extended card to anonymous callers (before the handler says whether there is one). */
  readonly interceptor: ServerInterceptor;
}

const isOpen = (r: SecurityRequirement): boolean => Object.keys(r.schemes ?? {}).length === 0;

/** Whether `principal` is an anonymous caller (shared or per connection). */
export function isAnonymous(principal: Principal): boolean {
  return principal.id === ANONYMOUS.id || principal.claims?.['anonymous'] === true;
}

/**
 * Builds the gate and the card's security section. Throws (InvalidAgentCardError or Error, at
 * start) when the card declares a scheme no authenticator enforces, a skill scope names an
 * unknown skill, or the requirements contradict `anonymous`.
 */
export function wireSecurity(
  options: ServerSecurityOptions,
  card: AgentCardConfig,
  reporting: FailedAuthReporting = {},
): SecurityWiring {
  const given = options.requirements ?? card.securityRequirements;
  const hasOpenEntry = given?.some(isOpen) ?? false;
  const anonymous = options.anonymous ?? (hasOpenEntry ? 'per-connection' : 'deny');
  if (!['deny', 'per-connection', 'shared'].includes(anonymous)) {
    throw new Error(
      `security.anonymous must be 'deny', 'per-connection' or 'shared', not ${String(anonymous)}`,
    );
  }
  if (anonymous === 'deny' && hasOpenEntry) {
    throw new Error("security.requirements admits anonymous callers but security.anonymous is 'deny'");
  }
  let requirements: readonly SecurityRequirement[] | undefined = given;
  if (anonymous !== 'deny' && !hasOpenEntry) {
    const alternatives =
      given ?? options.authenticators.map((a) => ({ schemes: { [a.name]: { list: [] } } }));
    requirements = [...alternatives, {}];
  }
  const secured = withCardSecurity(card, options.authenticators, requirements);
  const gate = createSecurityGate({
    authenticators: options.authenticators,
    ...(secured.securityRequirements ? { requirements: secured.securityRequirements } : {}),
    ...(options.principalIds !== undefined ? { principalIds: options.principalIds } : {}),
  });
  const failedAuth = createFailedAuthGuard(options.failedAuth, reporting);
  const authenticate: Authenticate = async (request: AuthRequest) => {
    failedAuth.admit(request.remoteAddress);
    let principal: Principal;
    try {
      principal = await gate.principalOf(request);
    } catch (error) {
      if (error instanceof AuthenticationFailedError || error instanceof InsufficientScopeError) {
        failedAuth.failed(error.failure, request.remoteAddress);
      }
      throw error;
    }
    if (principal !== ANONYMOUS) return principal;
    return anonymous === 'shared' ? sharedAnonymous(request) : anonymousFor(request);
  };
  const interceptor: ServerInterceptor = (next) => (call) => {
    if (call.method === 'GetExtendedAgentCard' && isAnonymous(call.ctx.principal)) {
      return Promise.reject(
        new UnauthenticatedError('the extended agent card needs an authenticated caller'),
      );
    }
    return next(call);
  };
  return { gate, card: secured, authenticate, interceptor };
}

/** The anonymous principal of one connection (or of one request, when there is no connection). */
function anonymousFor(request: AuthRequest): Principal {
  const connection = request.connectionId ?? `request:${crypto.randomUUID()}`;
  return Object.freeze({ id: `anonymous:${connection}`, claims: anonymousClaims(request) });
}

/** The one shared anonymous principal, with the caller's address for the limits. */
function sharedAnonymous(request: AuthRequest): Principal {
  return request.remoteAddress === undefined
    ? ANONYMOUS
    : Object.freeze({ id: ANONYMOUS.id, claims: anonymousClaims(request) });
}

/** `anonymous: true`, and the remote address the limits key anonymous callers by. */
function anonymousClaims(request: AuthRequest): Readonly<Record<string, unknown>> {
  return Object.freeze(
    request.remoteAddress === undefined
      ? { anonymous: true }
      : { anonymous: true, remoteAddress: request.remoteAddress },
  );
}
