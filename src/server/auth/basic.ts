/** HTTP Basic authentication (RFC 7617, `httpAuthSecurityScheme` with scheme `Basic`). */
import type { SecurityScheme } from '../../model/schema.js';
import { authorizationCredentials } from './bearer.js';
import type { AuthRequest } from './request.js';
import { constantTimeEqual } from './secrets.js';
import {
  authenticated,
  quoteParam,
  refused,
  type AuthOutcome,
  type AuthPrincipal,
  type Authenticator,
} from './types.js';

/** Checks a user name and password; resolves to the principal, or `undefined` when wrong. */
export type BasicVerify = (
  user: string,
  password: string,
) => Promise<AuthPrincipal | undefined> | AuthPrincipal | undefined;

/** Options of {@link createBasicAuthenticator}. */
export interface BasicAuthenticatorOptions {
  /** Scheme name on the card. @default 'basic' */
  name?: string;
  /** The check; {@link staticBasicCredentials} makes one from a fixed table. */
  verify: BasicVerify;
  /** Realm in the challenge. @default 'a2a' */
  realm?: string;
  description?: string;
}

/** An authenticator for HTTP Basic. Serve it over TLS only: the password travels in clear. */
export function createBasicAuthenticator(options: BasicAuthenticatorOptions): Authenticator {
  const name = options.name ?? 'basic';
  const challenge = `Basic realm=${quoteParam(options.realm ?? 'a2a')}, charset="UTF-8"`;
  const scheme: SecurityScheme = {
    httpAuthSecurityScheme: {
      ...(options.description ? { description: options.description } : {}),
      scheme: 'Basic',
    },
  };
  return {
    name,
    scheme,
    async authenticate(request: AuthRequest): Promise<AuthOutcome> {
      const encoded = authorizationCredentials(request, 'basic');
      if (encoded === undefined)
        return refused('missing', name, 'HTTP Basic credentials are required', [challenge]);
      const decoded = decodeBasic(encoded);
      if (!decoded) return refused('invalid', name, 'malformed HTTP Basic credentials', [challenge]);
      const principal = await options.verify(decoded.user, decoded.password);
      if (!principal) return refused('invalid', name, 'wrong user name or password', [challenge]);
      return authenticated({ ...principal, schemes: [name] });
    },
  };
}

function decodeBasic(encoded: string): { user: string; password: string } | undefined {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return undefined;
  const text = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = text.indexOf(':');
  if (colon < 0) return undefined;
  return { user: text.slice(0, colon), password: text.slice(colon + 1) };
}

/**
 * A {@link BasicVerify} over fixed credentials (user -> password, or user -> {password,
 * principal}). Passwords are compared in constant time; an unknown user costs the same as a
 * wrong password.
 */
export function staticBasicCredentials(
  users: Readonly<Record<string, string | { password: string; principal?: AuthPrincipal }>>,
): BasicVerify {
  const table = new Map(
    Object.entries(users).map(([user, entry]) => {
      const e = typeof entry === 'string' ? { password: entry } : entry;
      if (!e.password) throw new Error(`Basic credentials: user ${user} has an empty password`);
      return [user, { password: e.password, principal: e.principal ?? { id: user } }] as const;
    }),
  );
  return (user, password) => {
    const entry = table.get(user);
    if (!entry) {
      // Same work as for a known user, so that timing does not tell which users exist.
      constantTimeEqual(password, user);
      return undefined;
    }
    return constantTimeEqual(password, entry.password) ? entry.principal : undefined;
  };
}
