/**
 * The authenticator contract: one configured scheme turns an {@link AuthRequest} into a
 * principal or a typed failure, and says which card `securitySchemes` entry it enforces.
 */
import { PermissionDeniedError, UnauthenticatedError } from '../../errors/a2a-error.js';
import type { SecurityScheme } from '../../model/schema.js';
import type { Principal } from '../../core/context.js';
import type { AuthRequest } from './request.js';

/** An authenticated caller, as an authenticator sees it. */
export interface AuthPrincipal extends Principal {
  /**
   * The tenant the credential belongs to, when the credential says so (shorthand for one
   * entry of `tenants`; the gate turns it into `tenants`).
   */
  readonly tenant?: string;
  /** Names of the card security schemes that authenticated this caller. */
  readonly schemes?: readonly string[];
}

/**
 * Why a request was not authenticated.
 * - `missing`: no credential for this scheme was sent (401);
 * - `invalid`: a credential was sent but is wrong, expired, for another audience... (401);
 * - `insufficient-scope`: the credential is good but lacks required scopes (403).
 */
export type AuthFailureKind = 'missing' | 'invalid' | 'insufficient-scope';

/** A refused request: what went wrong and the challenges to answer with. */
export interface AuthFailure {
  readonly kind: AuthFailureKind;
  /** Card scheme name (or names) that refused. */
  readonly scheme: string;
  /** Safe to show the caller: never contains the credential. */
  readonly message: string;
  /** `WWW-Authenticate` values (one per scheme); empty when the scheme has none (mTLS). */
  readonly challenges: readonly string[];
  /** Scopes that were required and not granted (`insufficient-scope`). */
  readonly missingScopes?: readonly string[];
}

/** The result of one authentication attempt. */
export type AuthOutcome =
  | { readonly ok: true; readonly principal: AuthPrincipal }
  | { readonly ok: false; readonly failure: AuthFailure };

/** One configured authentication scheme. */
export interface Authenticator {
  /** The key of this scheme in the card's `securitySchemes`. */
  readonly name: string;
  /** The `securitySchemes` entry this authenticator enforces. */
  readonly scheme: SecurityScheme;
  /**
   * Reads the credential from the request and checks it. Resolves to a failure for anything
   * the caller got wrong; rejects only when the server cannot decide (e.g. JWKS unreachable).
   */
  authenticate(request: AuthRequest): Promise<AuthOutcome>;
}

/** Shorthand for a successful outcome. */
export function authenticated(principal: AuthPrincipal): AuthOutcome {
  return { ok: true, principal };
}

/** Shorthand for a failed outcome. */
export function refused(
  kind: AuthFailureKind,
  scheme: string,
  message: string,
  challenges: readonly string[] = [],
  missingScopes?: readonly string[],
): AuthOutcome {
  return {
    ok: false,
    failure: { kind, scheme, message, challenges, ...(missingScopes ? { missingScopes } : {}) },
  };
}

/** 401 / UNAUTHENTICATED carrying the `WWW-Authenticate` challenges a binding should send. */
export class AuthenticationFailedError extends UnauthenticatedError {
  readonly challenges: readonly string[];
  readonly failure: AuthFailure;
  constructor(failure: AuthFailure) {
    super(failure.message);
    this.challenges = failure.challenges;
    this.failure = failure;
  }
}

/** 403 / PERMISSION_DENIED for a good credential without the required scopes. */
export class InsufficientScopeError extends PermissionDeniedError {
  readonly challenges: readonly string[];
  readonly failure: AuthFailure;
  constructor(failure: AuthFailure) {
    super(failure.message);
    this.challenges = failure.challenges;
    this.failure = failure;
  }
}

/** The protocol error to raise for a failure (401 for missing/invalid, 403 for scopes). */
export function authFailureError(failure: AuthFailure): AuthenticationFailedError | InsufficientScopeError {
  return failure.kind === 'insufficient-scope'
    ? new InsufficientScopeError(failure)
    : new AuthenticationFailedError(failure);
}

/** Quotes a value for an auth-param (RFC 9110 §11.2 quoted-string). */
export function quoteParam(value: string): string {
  return `"${value.replace(/[\\"]/g, '\\$&').replace(/[\r\n]/g, ' ')}"`;
}

/** Scopes of `required` that `granted` does not include. */
export function missingScopes(required: readonly string[], granted: readonly string[] | undefined): string[] {
  const have = new Set(granted ?? []);
  return required.filter((s) => !have.has(s));
}

/** The tenants `principal` holds (`tenants`, else `tenant`); undefined when it binds none. */
export function tenantsOf(principal: AuthPrincipal): readonly string[] | undefined {
  if (principal.tenants !== undefined) return principal.tenants;
  return principal.tenant !== undefined ? [principal.tenant] : undefined;
}
