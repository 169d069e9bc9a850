/**
 * Evaluates a card's `securityRequirements` over named authenticators: the array lists
 * alternatives (OR), each entry's schemes must all pass (AND) with the scopes it lists
 * (N3, OpenAPI convention). Also checks a principal against per-skill requirements.
 */
import type { AgentSkill, SecurityRequirement } from '../../model/schema.js';
import type { AuthRequest } from './request.js';
import {
  InsufficientScopeError,
  authFailureError,
  missingScopes,
  type AuthFailure,
  type AuthOutcome,
  type AuthPrincipal,
  type Authenticator,
  tenantsOf,
} from './types.js';
import { ANONYMOUS } from '../../core/context.js';

/** Options of {@link createSecurityGate}. */
export interface SecurityGateOptions {
  /** The configured schemes; names must be unique. */
  authenticators: readonly Authenticator[];
  /**
   * Alternatives of schemes (with required scopes). @default each authenticator alone, so any
   * one of them suffices. An entry without schemes lets in callers who present no credential
   * (a presented but bad one is still refused).
   */
  requirements?: readonly SecurityRequirement[];
  /**
   * How a principal's id is formed: `namespaced` prefixes the id the authenticator gave with
   * its name (`apiKey:alice`, `bearer:alice`), so that two schemes naming the same id never
   * share tasks or limits; `as-is` keeps the authenticator's id (for data stored before
   * ids were namespaced, when every scheme's ids denote the same people); a function maps them
   * itself (it gets the principal and the name of the scheme that named it).
   * @default 'namespaced'
   * @example principalIds: (p, scheme) => (scheme === 'mtls' ? p.id : `${scheme}:${p.id}`)
   */
  principalIds?: PrincipalIdMapping;
}

/** See {@link SecurityGateOptions.principalIds}. */
export type PrincipalIdMapping =
  'namespaced' | 'as-is' | ((principal: AuthPrincipal, scheme: string) => string);

/** Decides, for each request, who is calling according to the requirements. */
export interface SecurityGate {
  readonly authenticators: ReadonlyMap<string, Authenticator>;
  /** The requirements in force (the card's `securityRequirements`). */
  readonly requirements: readonly SecurityRequirement[];
  /** The principal, or why not. Rejects only when the server cannot decide (keys unreachable). */
  authenticate(request: AuthRequest): Promise<AuthOutcome>;
  /** The principal, or throws {@link AuthenticationFailedError} (401) / {@link InsufficientScopeError} (403). */
  principalOf(request: AuthRequest): Promise<AuthPrincipal>;
}

/** The default requirements: any single configured scheme, without scopes. */
export function anyOf(authenticators: readonly Authenticator[]): SecurityRequirement[] {
  return authenticators.map((a) => ({ schemes: { [a.name]: { list: [] } } }));
}

/** Builds a {@link SecurityGate}; throws on requirements naming an unknown scheme. */
export function createSecurityGate(options: SecurityGateOptions): SecurityGate {
  const byName = new Map<string, Authenticator>();
  for (const a of options.authenticators) {
    if (byName.has(a.name)) throw new Error(`two authenticators are named ${a.name}`);
    byName.set(a.name, a);
  }
  if (options.authenticators.length === 0) {
    throw new Error('a security gate needs at least one authenticator (leave authentication off instead)');
  }
  const requirements = options.requirements ?? anyOf(options.authenticators);
  if (requirements.length === 0) throw new Error('securityRequirements is empty: nobody could call');
  for (const r of requirements) {
    for (const scheme of Object.keys(r.schemes ?? {})) {
      if (!byName.has(scheme))
        throw new Error(`securityRequirements names ${scheme}, which no authenticator enforces`);
    }
  }
  const ids = options.principalIds ?? 'namespaced';
  if (typeof ids !== 'function' && ids !== 'namespaced' && ids !== 'as-is') {
    throw new Error(`principalIds must be 'namespaced', 'as-is' or a function, not ${String(ids)}`);
  }
  const gate: SecurityGate = {
    authenticators: byName,
    requirements,
    authenticate: async (request) => {
      const outcome = await evaluate(byName, requirements, request);
      if (!outcome.ok || outcome.principal === ANONYMOUS) return outcome;
      return { ok: true, principal: withId(outcome.principal, ids) };
    },
    async principalOf(request) {
      const outcome = await gate.authenticate(request);
      if (!outcome.ok) throw authFailureError(outcome.failure);
      return outcome.principal;
    },
  };
  return gate;
}

async function evaluate(
  byName: ReadonlyMap<string, Authenticator>,
  requirements: readonly SecurityRequirement[],
  request: AuthRequest,
): Promise<AuthOutcome> {
  // Each scheme runs at most once per request, however many alternatives name it.
  const results = new Map<string, Promise<AuthOutcome>>();
  const run = (name: string): Promise<AuthOutcome> => {
    let p = results.get(name);
    if (!p) {
      p = byName.get(name)!.authenticate(request);
      results.set(name, p);
    }
    return p;
  };
  const failures: AuthFailure[] = [];
  let allowsAnonymous = false;
  for (const requirement of requirements) {
    const entries = Object.entries(requirement.schemes ?? {});
    if (entries.length === 0) {
      allowsAnonymous = true;
      continue;
    }
    const passed: { name: string; principal: AuthPrincipal }[] = [];
    let failed = false;
    for (const [name, scopes] of entries) {
      const outcome = await run(name);
      if (!outcome.ok) {
        failures.push(outcome.failure);
        failed = true;
        break;
      }
      const missing = missingScopes(scopes.list ?? [], outcome.principal.scopes);
      if (missing.length > 0) {
        const authenticator = byName.get(name) as Authenticator & {
          scopeChallenge?: (m: readonly string[]) => string;
        };
        failures.push({
          kind: 'insufficient-scope',
          scheme: name,
          message: `the credential lacks the scope(s) ${missing.join(', ')}`,
          challenges: authenticator.scopeChallenge ? [authenticator.scopeChallenge(missing)] : [],
          missingScopes: missing,
        });
        failed = true;
        break;
      }
      passed.push({ name, principal: outcome.principal });
    }
    if (failed) continue;
    const merged = merge(passed);
    if ('kind' in merged) failures.push(merged);
    else return { ok: true, principal: merged };
  }
  // Anonymous only when nothing was presented: a bad or too weak credential is refused.
  if (allowsAnonymous && failures.every((f) => f.kind === 'missing'))
    return { ok: true, principal: ANONYMOUS };
  return { ok: false, failure: pickFailure(failures) };
}

/** The principal with its id formed by `ids` from the scheme that named it (its first scheme). */
function withId(principal: AuthPrincipal, ids: PrincipalIdMapping): AuthPrincipal {
  if (ids === 'as-is') return principal;
  const scheme = principal.schemes?.[0] ?? '';
  const id = typeof ids === 'function' ? ids(principal, scheme) : `${scheme}:${principal.id}`;
  if (typeof id !== 'string' || id === '') throw new Error('principalIds returned an empty id');
  return { ...principal, id };
}

/**
 * One principal for an AND of schemes: the first scheme names it; scopes are united; the
 * tenants are those every credential that binds tenants grants (none in common: refused).
 */
function merge(passed: { name: string; principal: AuthPrincipal }[]): AuthPrincipal | AuthFailure {
  const first = passed[0]!.principal;
  let tenants: string[] | undefined;
  for (const p of passed) {
    const held = tenantsOf(p.principal);
    if (held === undefined) continue;
    tenants = tenants === undefined ? [...new Set(held)] : tenants.filter((t) => held.includes(t));
  }
  if (tenants !== undefined && tenants.length === 0) {
    return {
      kind: 'invalid',
      scheme: passed.map((p) => p.name).join('+'),
      message: 'the credentials name different tenants',
      challenges: [],
    };
  }
  const scopes = new Set(passed.flatMap((p) => p.principal.scopes ?? []));
  const { tenant: _single, ...rest } = first;
  void _single;
  return {
    ...rest,
    scopes: [...scopes],
    schemes: passed.map((p) => p.name),
    ...(tenants !== undefined ? { tenants, ...(tenants.length === 1 ? { tenant: tenants[0] } : {}) } : {}),
  };
}

/**
 * The failure to answer with: a presented but bad credential first (the caller should learn
 * it is wrong), then missing scopes (403), then missing credentials with every challenge.
 */
function pickFailure(failures: AuthFailure[]): AuthFailure {
  const invalid = failures.find((f) => f.kind === 'invalid');
  if (invalid) return invalid;
  const scope = failures.find((f) => f.kind === 'insufficient-scope');
  if (scope) return scope;
  const challenges = [...new Set(failures.flatMap((f) => f.challenges))];
  const schemes = [...new Set(failures.map((f) => f.scheme))];
  return {
    kind: 'missing',
    scheme: schemes.join(','),
    message:
      failures.length === 1 ? failures[0]!.message : `credentials are required (${schemes.join(' or ')})`,
    challenges,
  };
}

/** Whether `principal` (from a {@link SecurityGate}) meets `requirements`; absent or empty means yes. */
export function satisfiesRequirements(
  principal: AuthPrincipal,
  requirements: readonly SecurityRequirement[] | undefined,
): { ok: true } | { ok: false; missingScopes: string[] } {
  if (!requirements || requirements.length === 0) return { ok: true };
  const via = new Set(principal.schemes ?? []);
  let fewest: string[] | undefined;
  for (const r of requirements) {
    const entries = Object.entries(r.schemes ?? {});
    if (entries.some(([name]) => !via.has(name))) continue;
    const missing = [...new Set(entries.flatMap(([, s]) => missingScopes(s.list ?? [], principal.scopes)))];
    if (missing.length === 0) return { ok: true };
    if (!fewest || missing.length < fewest.length) fewest = missing;
  }
  return { ok: false, missingScopes: fewest ?? [] };
}

/** Throws {@link InsufficientScopeError} unless `principal` meets the skill's `securityRequirements`. */
export function authorizeSkill(
  principal: AuthPrincipal,
  skill: Pick<AgentSkill, 'id' | 'securityRequirements'>,
): void {
  const result = satisfiesRequirements(principal, skill.securityRequirements);
  if (result.ok) return;
  throw new InsufficientScopeError({
    kind: 'insufficient-scope',
    scheme: Object.keys(skill.securityRequirements?.[0]?.schemes ?? {}).join('+'),
    message:
      result.missingScopes.length > 0
        ? `skill ${skill.id} needs the scope(s) ${result.missingScopes.join(', ')}`
        : `skill ${skill.id} needs another kind of credential`,
    challenges: [],
    missingScopes: result.missingScopes,
  });
}
