/**
 * Credentials for each request (CLI-AUTH-1): API key, HTTP bearer, OAuth 2.0 client
 * credentials (token cached until it expires, refreshed once on a 401) or a custom hook.
 */
import type { AgentCard, SecurityScheme } from '../model/schema.js';
import { A2ATransportError, networkCode } from '../errors/client-errors.js';

/** What a credential adds to one request. */
export interface RequestCredentials {
  headers?: Record<string, string>;
  query?: Record<string, string>;
}

/** What an auth handler knows about the call. */
export interface AuthContext {
  /** The agent's card, when the client was connected from one. */
  card?: AgentCard;
  /**
   * The public card when its signature was verified on the way in (the resolver's `verify`
   * hook) and it was built from the signed payload: the only card whose URLs may be sent a
   * secret the operator did not point at them (CLI-SIGN-4).
   */
  verifiedCard?: AgentCard;
  /** The A2A method being called. */
  method: string;
}

/** Supplies credentials per request. */
export interface AuthHandler {
  /** The credentials to send on this call (headers, query parameters or cookies). */
  credentials(ctx: AuthContext): Promise<RequestCredentials>;
  /** Called after a 401 / UNAUTHENTICATED; return true to have the call retried once. */
  onUnauthorized?(ctx: AuthContext): Promise<boolean>;
}

/** Options of {@link apiKeyAuth}. */
export interface ApiKeyOptions {
  /** Header, query parameter or cookie name; read from the card's API-key scheme when absent. */
  name?: string;
  /** Where the key goes; read from the card when absent. @default 'header' */
  location?: 'header' | 'query' | 'cookie';
  /** Which scheme of the card to follow, by its key in `securitySchemes`. */
  scheme?: string;
}

function apiKeyScheme(card: AgentCard | undefined, key?: string) {
  const schemes: Record<string, SecurityScheme> = card?.securitySchemes ?? {};
  const entries = Object.entries(schemes).filter(([k, s]) => s.apiKeySecurityScheme && (!key || k === key));
  return entries[0]?.[1].apiKeySecurityScheme;
}

/** Sends an API key where the card's `apiKeySecurityScheme` says (header, query or cookie). */
export function apiKeyAuth(key: string, options: ApiKeyOptions = {}): AuthHandler {
  return {
    async credentials(ctx) {
      const scheme = apiKeyScheme(ctx.card, options.scheme);
      const name = options.name ?? scheme?.name ?? 'X-API-Key';
      const location =
        options.location ?? (scheme?.location?.toLowerCase() as ApiKeyOptions['location']) ?? 'header';
      if (location === 'query') return { query: { [name]: key } };
      if (location === 'cookie') return { headers: { cookie: `${name}=${encodeURIComponent(key)}` } };
      return { headers: { [name]: key } };
    },
  };
}

/** Sends `Authorization: Bearer <token>`; `token` may be a function that returns a fresh one. */
export function bearerAuth(token: string | (() => string | Promise<string>)): AuthHandler {
  return {
    async credentials() {
      const value = typeof token === 'string' ? token : await token();
      return { headers: { authorization: `Bearer ${value}` } };
    },
  };
}

/** Options of {@link oauth2ClientCredentials}. */
export interface ClientCredentialsOptions {
  clientId: string;
  clientSecret: string;
  /**
   * Token endpoint. When absent, the clientCredentials flow of the card is used only if the
   * card's signature was verified (`AuthContext.verifiedCard`): an unverified card could name
   * any URL and receive the client secret (CLI-AUTH-2).
   */
  tokenUrl?: string;
  scopes?: string[];
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Renew this long before the token expires, in ms. @default 30000 */
  skewMs?: number;
}

/**
 * OAuth 2.0 client credentials (RFC 6749 §4.4): fetches a token from the token URL, caches it
 * until it expires, and fetches a new one after a 401.
 */
export function oauth2ClientCredentials(options: ClientCredentialsOptions): AuthHandler & {
  /** The number of tokens fetched so far. */
  readonly fetchedTokens: number;
} {
  let cached: { token: string; expiresAt: number } | undefined;
  let pending: Promise<string> | undefined;
  let fetched = 0;

  const tokenUrlOf = (ctx: AuthContext): string | undefined =>
    options.tokenUrl ?? (ctx.verifiedCard ? clientCredentialsTokenUrl(ctx.verifiedCard) : undefined);

  const fetchToken = async (ctx: AuthContext): Promise<string> => {
    const url = tokenUrlOf(ctx);
    if (!url) {
      throw new Error(
        ctx.card && clientCredentialsTokenUrl(ctx.card)
          ? 'oauth2ClientCredentials: no tokenUrl given, and the card naming one is not verified; ' +
              'give tokenUrl, or check the card with a verify hook (cardSignatureVerifier) so its token URL may be used'
          : 'oauth2ClientCredentials: no tokenUrl given and no verified card declares a clientCredentials flow',
      );
    }
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (options.scopes?.length) form.set('scope', options.scopes.join(' '));
    const basic = Buffer.from(
      `${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`,
    ).toString('base64');
    let response: Response;
    try {
      response = await (options.fetch ?? globalThis.fetch)(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
          authorization: `Basic ${basic}`,
        },
        body: form.toString(),
        signal: AbortSignal.timeout(15_000),
      });
    } catch (error) {
      throw new A2ATransportError(`token request to ${url} failed: ${networkCode(error) ?? String(error)}`, {
        cause: error,
        networkCode: networkCode(error),
      });
    }
    const text = await response.text();
    let body: { access_token?: unknown; expires_in?: unknown } = {};
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      /* reported below */
    }
    if (!response.ok || typeof body.access_token !== 'string') {
      throw new A2ATransportError(
        `token endpoint ${url} answered HTTP ${response.status} without an access_token`,
        {
          status: response.status,
        },
      );
    }
    fetched++;
    const ttl = typeof body.expires_in === 'number' ? body.expires_in * 1000 : 3600_000;
    cached = { token: body.access_token, expiresAt: Date.now() + ttl - (options.skewMs ?? 30_000) };
    return body.access_token;
  };

  return {
    get fetchedTokens() {
      return fetched;
    },
    async credentials(ctx) {
      let token = cached && cached.expiresAt > Date.now() ? cached.token : undefined;
      // The public card is fetched before any card is known: it goes without a token then.
      if (!token && ctx.method === 'GetAgentCard' && !tokenUrlOf(ctx)) return {};
      if (!token) {
        pending ??= fetchToken(ctx).finally(() => (pending = undefined));
        token = await pending;
      }
      return { headers: { authorization: `Bearer ${token}` } };
    },
    async onUnauthorized() {
      cached = undefined;
      return true;
    },
  };
}

/** The token URL of the first clientCredentials flow among the card's schemes. */
export function clientCredentialsTokenUrl(card: AgentCard): string | undefined {
  for (const s of Object.values(card.securitySchemes ?? {})) {
    const url = s.oauth2SecurityScheme?.flows.clientCredentials?.tokenUrl;
    if (url) return url;
  }
  return undefined;
}

/** Wraps a function as an auth handler (signing requests, reading a vault...). */
export function customAuth(
  credentials: (ctx: AuthContext) => Promise<RequestCredentials> | RequestCredentials,
  onUnauthorized?: (ctx: AuthContext) => Promise<boolean>,
): AuthHandler {
  return { credentials: async (ctx) => credentials(ctx), onUnauthorized };
}
