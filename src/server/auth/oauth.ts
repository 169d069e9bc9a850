/**
 * OAuth 2.0 and OpenID Connect resource-server authentication: bearer JWT access tokens whose
 * issuer and signing keys come from a discovery document (OIDC Discovery 1.0 or RFC 8414),
 * plus the scopes each skill needs, kept as data for the card and for later checks.
 */
import { UnavailableError } from '../../errors/a2a-error.js';
import type { OAuthFlows, SecurityScheme } from '../../model/schema.js';
import {
  bearerAuthenticator,
  createJwtCheck,
  jwtKeyResolver,
  type JwtCheck,
  type JwtKeySource,
  type JwtValidationOptions,
} from './bearer.js';
import type { Authenticator } from './types.js';

/** Validation rules without the issuer, which may come from discovery. */
export type DiscoveredJwtOptions = Omit<JwtValidationOptions, 'issuer'> & {
  /** Expected issuer; when discovery is used it must equal the document's `issuer`. */
  issuer?: string;
};

/** Common options of the OAuth 2.0 and OIDC authenticators. */
export interface OAuthCommonOptions extends DiscoveredJwtOptions {
  /** Scopes each skill needs, by skill id; goes onto the card's skill `securityRequirements`. */
  skillScopes?: Readonly<Record<string, readonly string[]>>;
  /** Realm in the challenge. @default 'a2a' */
  realm?: string;
  description?: string;
  /** Used to read the discovery document. @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Timeout of the discovery fetch in ms. @default 5000 */
  discoveryTimeoutMs?: number;
}

/** An OAuth 2.0 / OIDC authenticator: also knows per-skill scopes. */
export interface OAuthAuthenticator extends Authenticator {
  /** Scopes each skill needs (by skill id). */
  readonly skillScopes: Readonly<Record<string, readonly string[]>>;
  /** The `WWW-Authenticate` value for a token that lacks `missing` scopes (RFC 6750 §3.1). */
  scopeChallenge(missing: readonly string[]): string;
  /** Reads the discovery document now (e.g. at start) instead of on the first request. */
  ready(): Promise<void>;
}

/** Options of {@link createOpenIdConnectAuthenticator}. */
export interface OpenIdConnectAuthenticatorOptions extends OAuthCommonOptions {
  /** Scheme name on the card. @default 'oidc' */
  name?: string;
  /** The discovery document URL. @default `${issuer}/.well-known/openid-configuration` */
  discoveryUrl?: string;
}

/** An authenticator for access tokens of an OpenID Connect provider (`openIdConnectSecurityScheme`). */
export function createOpenIdConnectAuthenticator(
  options: OpenIdConnectAuthenticatorOptions,
): OAuthAuthenticator {
  const discoveryUrl =
    options.discoveryUrl ??
    (options.issuer ? `${options.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration` : undefined);
  if (!discoveryUrl) throw new Error('OpenID Connect needs discoveryUrl or issuer');
  const scheme: SecurityScheme = {
    openIdConnectSecurityScheme: {
      ...(options.description ? { description: options.description } : {}),
      openIdConnectUrl: discoveryUrl,
    },
  };
  return oauthAuthenticator(options.name ?? 'oidc', scheme, options, discoveryUrl, undefined);
}

/** Options of {@link createOAuth2Authenticator}. */
export interface OAuth2AuthenticatorOptions extends OAuthCommonOptions, JwtKeySource {
  /** Scheme name on the card. @default 'oauth2' */
  name?: string;
  /** The one flow clients use to get tokens (declared on the card; D11: not implicit/password). */
  flows: OAuthFlows;
  /**
   * RFC 8414 metadata (or OIDC discovery) URL; gives issuer and `jwks_uri`. Without it, give
   * `issuer` and one key source (`jwksUrl`, `keys`, `key`).
   */
  metadataUrl?: string;
}

/** An authenticator for OAuth 2.0 access tokens in JWT form (`oauth2SecurityScheme`). */
export function createOAuth2Authenticator(options: OAuth2AuthenticatorOptions): OAuthAuthenticator {
  const flows = options.flows as Record<string, unknown>;
  if (flows.implicit !== undefined || flows.password !== undefined) {
    throw new Error('the implicit and password OAuth flows are deprecated; use another flow');
  }
  const scheme: SecurityScheme = {
    oauth2SecurityScheme: {
      ...(options.description ? { description: options.description } : {}),
      flows: options.flows,
      ...(options.metadataUrl ? { oauth2MetadataUrl: options.metadataUrl } : {}),
    },
  };
  let direct: JwtCheck | undefined;
  const hasKeys = options.jwksUrl !== undefined || options.keys !== undefined || options.key !== undefined;
  if (!options.metadataUrl || hasKeys) {
    if (!options.issuer) throw new Error('OAuth 2.0 without metadataUrl needs an issuer');
    direct = createJwtCheck(jwtKeyResolver(options, options.jwksTimeoutMs), {
      ...options,
      issuer: options.issuer,
    });
  }
  return oauthAuthenticator(options.name ?? 'oauth2', scheme, options, options.metadataUrl, direct);
}

function oauthAuthenticator(
  name: string,
  scheme: SecurityScheme,
  options: OAuthCommonOptions,
  discoveryUrl: string | undefined,
  direct: JwtCheck | undefined,
): OAuthAuthenticator {
  let pending: Promise<JwtCheck> | undefined;
  const discovered = (): Promise<JwtCheck> => {
    pending ??= discover(discoveryUrl!, options).catch((error: unknown) => {
      pending = undefined; // try again on the next request
      throw error;
    });
    return pending;
  };
  const check: JwtCheck = direct ?? (async (token) => (await discovered())(token));
  const inner = bearerAuthenticator(name, scheme, options.realm ?? 'a2a', check);
  return {
    ...inner,
    skillScopes: { ...(options.skillScopes ?? {}) },
    async ready() {
      if (!direct) await discovered();
    },
  };
}

/** The fields of a discovery document this module needs. */
interface DiscoveryDocument {
  issuer: string;
  jwks_uri: string;
}

const MAX_DISCOVERY_BYTES = 256 * 1024;

async function discover(url: string, options: OAuthCommonOptions): Promise<JwtCheck> {
  const doc = await fetchDiscovery(url, options);
  // OIDC Discovery §4.3 / RFC 8414 §3.3: the document's issuer must be the one expected.
  if (options.issuer !== undefined && doc.issuer !== options.issuer) {
    throw new UnavailableError(
      `the discovery document at ${url} names issuer ${doc.issuer}, not the configured ${options.issuer}`,
    );
  }
  return createJwtCheck(jwtKeyResolver({ jwksUrl: doc.jwks_uri }, options.jwksTimeoutMs), {
    ...options,
    issuer: doc.issuer,
  });
}

async function fetchDiscovery(url: string, options: OAuthCommonOptions): Promise<DiscoveryDocument> {
  let text: string;
  try {
    const response = await (options.fetch ?? globalThis.fetch)(url, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(options.discoveryTimeoutMs ?? 5000),
      redirect: 'error',
    });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    text = await readBounded(response, MAX_DISCOVERY_BYTES);
  } catch (error) {
    throw new UnavailableError(`cannot read the discovery document at ${url}: ${String(error)}`, {
      cause: error,
    });
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    doc = undefined;
  }
  const d = doc as Partial<DiscoveryDocument> | undefined;
  if (!d || typeof d.issuer !== 'string' || typeof d.jwks_uri !== 'string') {
    throw new UnavailableError(`the discovery document at ${url} lacks issuer or jwks_uri`);
  }
  return { issuer: d.issuer, jwks_uri: d.jwks_uri };
}

/** The body as text, failing as soon as it passes `limit` bytes. */
async function readBounded(response: Response, limit: number): Promise<string> {
  if (Number(response.headers.get('content-length') ?? 0) > limit) throw new Error('document too large');
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw new Error('document too large');
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
