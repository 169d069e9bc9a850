/**
 * HTTP bearer authentication with JWT access tokens (`httpAuthSecurityScheme` with scheme
 * `Bearer`, RFC 6750), validated with `jose`: signature against a JWKS URL or static keys,
 * issuer, audience, expiry with clock skew, and an algorithm allow-list.
 */
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  errors as joseErrors,
  jwtVerify,
  type CryptoKey,
  type JSONWebKeySet,
  type JWK,
  type JWTPayload,
  type JWTVerifyGetKey,
  type KeyObject,
} from 'jose';
import { UnavailableError } from '../../errors/a2a-error.js';
import type { SecurityScheme } from '../../model/schema.js';
import type { AuthRequest } from './request.js';
import {
  authenticated,
  quoteParam,
  refused,
  type AuthOutcome,
  type AuthPrincipal,
  type Authenticator,
} from './types.js';

/** Algorithms accepted when none are configured: asymmetric only, so a public key can never be used as an HMAC secret. */
export const DEFAULT_JWT_ALGORITHMS: readonly string[] = ['RS256', 'PS256', 'ES256', 'ES384', 'EdDSA'];

/** Where token signing keys come from: exactly one of these. */
export interface JwtKeySource {
  /** A JWKS endpoint, fetched and cached by `jose` (HTTPS in production). */
  jwksUrl?: string | URL;
  /** Static public keys (a JWKS or a list of JWKs), matched by `kid`/`alg`. */
  keys?: JSONWebKeySet | readonly JWK[];
  /** One static key. */
  key?: CryptoKey | KeyObject | Uint8Array;
}

/** How tokens are checked; shared by the bearer and OpenID Connect authenticators. */
export interface JwtValidationOptions {
  /** Accepted `iss` value(s). Required: a token from any issuer is never accepted. */
  issuer: string | readonly string[];
  /** Accepted `aud` value(s). Required: a token minted for another service is never accepted. */
  audience: string | readonly string[];
  /** Accepted `alg` values. @default {@link DEFAULT_JWT_ALGORITHMS} */
  algorithms?: readonly string[];
  /** Tolerated clock difference for `exp`/`nbf`/`iat`, in seconds. @default 30 */
  clockToleranceSeconds?: number;
  /** Refuse tokens issued longer ago than this (needs `iat`), in seconds. */
  maxTokenAgeSeconds?: number;
  /** Required JWT `typ` header, e.g. `at+jwt` for RFC 9068 access tokens. @default not checked */
  typ?: string;
  /**
   * Claim that names the tenant(s) the token grants (e.g. `tid`; a string or an array of
   * strings): the caller may then act only in those, and a token without the claim is refused.
   * Absent: the token binds no tenant.
   */
  tenantClaim?: string;
  /**
   * Accept tokens without an `exp` claim (they never expire, so a leaked one works forever).
   * Only for issuers that cannot set one; revocation is then yours.
   * @default false (a token without `exp` is refused)
   */
  allowMissingExpiry?: boolean;
  /**
   * Turns verified claims into the principal. @default id = `sub`, scopes from `scope` / `scp`,
   * tenant from `tenantClaim`. Return `undefined` to refuse the token.
   */
  principalFrom?: (claims: JWTPayload) => AuthPrincipal | undefined;
  /** Timeout of a JWKS fetch in ms. @default 5000 */
  jwksTimeoutMs?: number;
}

/** Options of {@link createBearerAuthenticator}. */
export interface BearerAuthenticatorOptions extends JwtKeySource, JwtValidationOptions {
  /** Scheme name on the card. @default 'bearer' */
  name?: string;
  /** Realm in the challenge. @default 'a2a' */
  realm?: string;
  description?: string;
}

/** An authenticator for JWT bearer tokens. */
export function createBearerAuthenticator(options: BearerAuthenticatorOptions): Authenticator {
  const name = options.name ?? 'bearer';
  const check = createJwtCheck(jwtKeyResolver(options, options.jwksTimeoutMs), options);
  const scheme: SecurityScheme = {
    httpAuthSecurityScheme: {
      ...(options.description ? { description: options.description } : {}),
      scheme: 'Bearer',
      bearerFormat: 'JWT',
    },
  };
  return bearerAuthenticator(name, scheme, options.realm ?? 'a2a', check);
}

/** Verifies one compact JWT; resolves to the principal or a failure message. */
export type JwtCheck = (token: string) => Promise<{ principal: AuthPrincipal } | { error: string }>;

/** The bearer authenticator around a token check (also used by OAuth 2.0 / OIDC). */
export function bearerAuthenticator(
  name: string,
  scheme: SecurityScheme,
  realm: string,
  check: JwtCheck,
): Authenticator & { scopeChallenge(missing: readonly string[]): string } {
  const base = `Bearer realm=${quoteParam(realm)}`;
  return {
    name,
    scheme,
    scopeChallenge: (missing) =>
      `${base}, error="insufficient_scope", scope=${quoteParam(missing.join(' '))}`,
    async authenticate(request: AuthRequest): Promise<AuthOutcome> {
      const token = authorizationCredentials(request, 'bearer');
      if (token === undefined) return refused('missing', name, 'a bearer token is required', [base]);
      const result = await check(token);
      if ('error' in result) {
        return refused('invalid', name, result.error, [
          `${base}, error="invalid_token", error_description=${quoteParam(result.error)}`,
        ]);
      }
      return authenticated({ ...result.principal, schemes: [name] });
    },
  };
}

/** The key resolver for a key source (exactly one of `jwksUrl`, `keys`, `key`). */
export function jwtKeyResolver(
  source: JwtKeySource,
  timeoutMs = 5000,
): JWTVerifyGetKey | CryptoKey | KeyObject | Uint8Array {
  const given = [source.jwksUrl, source.keys, source.key].filter((v) => v !== undefined).length;
  if (given !== 1) throw new Error('JWT validation needs exactly one of jwksUrl, keys or key');
  if (source.jwksUrl !== undefined) {
    return createRemoteJWKSet(new URL(source.jwksUrl), { timeoutDuration: timeoutMs });
  }
  if (source.keys !== undefined) {
    const keys = Array.isArray(source.keys) ? source.keys : (source.keys as JSONWebKeySet).keys;
    return createLocalJWKSet({ keys: [...keys] });
  }
  return source.key!;
}

/** A {@link JwtCheck} with the given keys and rules. */
export function createJwtCheck(
  key: JWTVerifyGetKey | CryptoKey | KeyObject | Uint8Array,
  options: JwtValidationOptions,
): JwtCheck {
  if (!options.issuer || (Array.isArray(options.issuer) && options.issuer.length === 0)) {
    throw new Error('JWT validation needs an issuer');
  }
  if (!options.audience || (Array.isArray(options.audience) && options.audience.length === 0)) {
    throw new Error('JWT validation needs an audience');
  }
  const algorithms = [...(options.algorithms ?? DEFAULT_JWT_ALGORITHMS)];
  if (algorithms.length === 0 || algorithms.some((a) => a.toLowerCase() === 'none')) {
    throw new Error('JWT validation needs a non-empty algorithm allow-list without "none"');
  }
  const verifyOptions = {
    issuer: typeof options.issuer === 'string' ? options.issuer : [...options.issuer],
    audience: typeof options.audience === 'string' ? options.audience : [...options.audience],
    algorithms,
    clockTolerance: options.clockToleranceSeconds ?? 30,
    ...(options.maxTokenAgeSeconds !== undefined ? { maxTokenAge: options.maxTokenAgeSeconds } : {}),
    ...(options.typ !== undefined ? { typ: options.typ } : {}),
    // A token without `exp` would be valid forever (finding 6 of issue 27, SRV-TRUST-7).
    ...(options.allowMissingExpiry === true ? {} : { requiredClaims: ['exp'] }),
  };
  const toPrincipal =
    options.principalFrom ?? ((claims: JWTPayload) => defaultPrincipal(claims, options.tenantClaim));
  return async (token) => {
    let claims: JWTPayload;
    try {
      // The overloads of jwtVerify differ only in the key type.
      claims = (
        typeof key === 'function'
          ? await jwtVerify(token, key, verifyOptions)
          : await jwtVerify(token, key, verifyOptions)
      ).payload;
    } catch (error) {
      const reason = tokenError(error);
      if (reason === undefined) {
        throw new UnavailableError('cannot validate the token now: the signing keys are unavailable', {
          cause: error,
        });
      }
      return { error: reason };
    }
    const principal = toPrincipal(claims);
    if (!principal) return { error: 'the token does not identify a principal' };
    if (options.tenantClaim !== undefined && options.principalFrom === undefined && !principal.tenants) {
      return { error: `the token's ${options.tenantClaim} claim names no tenant` };
    }
    return { principal };
  };
}

/** id = `sub`; scopes from `scope` (space-separated) or `scp` (array or string). */
function defaultPrincipal(claims: JWTPayload, tenantClaim: string | undefined): AuthPrincipal | undefined {
  if (typeof claims.sub !== 'string' || claims.sub === '') return undefined;
  const tenants = tenantClaim ? tenantsFromClaim(claims[tenantClaim]) : undefined;
  return {
    id: claims.sub,
    scopes: scopesOf(claims),
    claims,
    ...(tenants ? { tenants, ...(tenants.length === 1 ? { tenant: tenants[0] } : {}) } : {}),
  };
}

/** The tenants of a tenant claim: a non-empty string, or an array of them; undefined otherwise. */
function tenantsFromClaim(value: unknown): string[] | undefined {
  const list = typeof value === 'string' ? [value] : Array.isArray(value) ? value : [];
  const tenants = list.filter((t): t is string => typeof t === 'string' && t !== '');
  return tenants.length > 0 ? [...new Set(tenants)] : undefined;
}

/** The scopes a token grants, from `scope` (RFC 8693/9068) or `scp` (common in Azure AD/Okta). */
export function scopesOf(claims: JWTPayload): string[] {
  const raw = claims.scope ?? claims.scp;
  const list = typeof raw === 'string' ? raw.split(' ') : Array.isArray(raw) ? raw : [];
  return [...new Set(list.filter((s): s is string => typeof s === 'string' && s !== ''))];
}

/** A caller-side reason for a rejected token, or `undefined` when the server itself is at fault. */
function tokenError(error: unknown): string | undefined {
  if (error instanceof joseErrors.JWTExpired) return 'the token has expired';
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    return `the token's ${error.claim} claim is not accepted (${error.reason})`;
  }
  if (error instanceof joseErrors.JOSEAlgNotAllowed)
    return 'the token is signed with an algorithm that is not allowed';
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return 'the token signature is not valid';
  if (error instanceof joseErrors.JWKSNoMatchingKey) return 'the token is signed with an unknown key';
  if (error instanceof joseErrors.JWKSMultipleMatchingKeys) return 'the token does not name its key (kid)';
  if (
    error instanceof joseErrors.JWTInvalid ||
    error instanceof joseErrors.JWSInvalid ||
    error instanceof joseErrors.JOSENotSupported
  ) {
    return 'the token is malformed';
  }
  return undefined;
}

/**
 * The credentials after `Authorization: <scheme> ` (scheme compared case-insensitively), from
 * the first Authorization header that uses that scheme.
 */
export function authorizationCredentials(request: AuthRequest, scheme: string): string | undefined {
  const prefix = scheme.toLowerCase() + ' ';
  for (const value of request.headers.getAll('authorization')) {
    const v = value.trim();
    if (v.toLowerCase().startsWith(prefix)) {
      const credentials = v.slice(prefix.length).trim();
      return credentials === '' ? undefined : credentials;
    }
  }
  return undefined;
}
