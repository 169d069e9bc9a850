/** API key authentication (`apiKeySecurityScheme`): a key in a header, query parameter or cookie. */
import type { SecurityScheme } from '../../model/schema.js';
import type { AuthRequest } from './request.js';
import { SecretTable } from './secrets.js';
import {
  authenticated,
  quoteParam,
  refused,
  type AuthOutcome,
  type AuthPrincipal,
  type Authenticator,
} from './types.js';

/** Where the key travels (the card's `location`). */
export type ApiKeyLocation = 'header' | 'query' | 'cookie';

/** Options of {@link createApiKeyAuthenticator}. */
export interface ApiKeyAuthenticatorOptions {
  /** Scheme name on the card. @default 'apiKey' */
  name?: string;
  /** @default 'header' */
  in?: ApiKeyLocation;
  /** Header, query parameter or cookie name. @default 'X-API-Key' */
  parameterName?: string;
  /**
   * Accepted keys: key -> principal id, or key -> principal. Keys are kept only as SHA-256
   * digests and compared in constant time. Either this or `verify`.
   */
  keys?: Readonly<Record<string, string | AuthPrincipal>> | ReadonlyMap<string, string | AuthPrincipal>;
  /** Custom check; resolves to the principal for a good key, `undefined` for a bad one. */
  verify?: (key: string) => Promise<AuthPrincipal | undefined> | AuthPrincipal | undefined;
  description?: string;
}

/** An authenticator for API keys. */
export function createApiKeyAuthenticator(options: ApiKeyAuthenticatorOptions): Authenticator {
  const name = options.name ?? 'apiKey';
  const location = options.in ?? 'header';
  const parameter = options.parameterName ?? 'X-API-Key';
  if (!['header', 'query', 'cookie'].includes(location)) {
    throw new Error(`API key location must be header, query or cookie, not ${String(location)}`);
  }
  if (!options.keys === !options.verify) throw new Error('API key authenticator: give either keys or verify');
  let verify: (key: string) => Promise<AuthPrincipal | undefined> | AuthPrincipal | undefined;
  if (options.keys) {
    const entries = options.keys instanceof Map ? [...options.keys] : Object.entries(options.keys);
    const table = new SecretTable<AuthPrincipal>(
      entries.map(([key, who]) => [key, typeof who === 'string' ? { id: who } : who] as const),
    );
    verify = (key) => table.lookup(key);
  } else verify = options.verify!;
  const scheme: SecurityScheme = {
    apiKeySecurityScheme: {
      ...(options.description ? { description: options.description } : {}),
      location,
      name: parameter,
    },
  };
  const challenge = `ApiKey realm=${quoteParam(name)}, in=${quoteParam(location)}, name=${quoteParam(parameter)}`;
  return {
    name,
    scheme,
    async authenticate(request: AuthRequest): Promise<AuthOutcome> {
      const key = readKey(request, location, parameter);
      if (key === undefined || key === '') {
        return refused('missing', name, `an API key is required in the ${location} ${parameter}`, [
          challenge,
        ]);
      }
      const principal = await verify(key);
      if (!principal) return refused('invalid', name, 'the API key is not valid', [challenge]);
      return authenticated({ ...principal, schemes: [name] });
    },
  };
}

function readKey(request: AuthRequest, location: ApiKeyLocation, parameter: string): string | undefined {
  switch (location) {
    case 'header':
      return request.headers.get(parameter)?.trim();
    case 'query':
      return request.url.searchParams.get(parameter) ?? undefined;
    case 'cookie':
      return request.cookies.get(parameter);
  }
}
