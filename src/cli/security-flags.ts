/**
 * Security flags of the `a2a` command: for `serve` (`--api-key PRINCIPAL=KEY`, `--jwks-url
 * --jwt-issuer --jwt-audience`, `--tls-cert --tls-key [--tls-client-ca]`, `--sign-key
 * --sign-kid [--sign-alg]`) turned into createA2AServer options, and for the client commands
 * (`--token`, `--api-key`, `--header K:V`; `card --verify [--jwks URL | --key FILE]`).
 */
import { createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { JSONWebKeySet, JWK } from 'jose';
import {
  AgentCardSignatureError,
  verifyAgentCard,
  verifiedCardJson,
  type CardVerification,
  type VerifiedCardJson,
} from '../client/card-signature.js';
import type { AgentCard } from '../model/schema.js';
import {
  createApiKeyAuthenticator,
  createBearerAuthenticator,
  createMutualTlsAuthenticator,
  type Authenticator,
} from '../server/auth/index.js';
import type { CardSigningAlgorithm } from '../server/card/sign.js';
import type { A2AServerOptions } from '../server/options.js';

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

/** The `serve` security flags as commander parses them. */
export interface ServeSecurityFlags {
  apiKey?: string[];
  jwksUrl?: string;
  jwtIssuer?: string;
  jwtAudience?: string;
  tlsCert?: string;
  tlsKey?: string;
  tlsClientCa?: string;
  signKey?: string;
  signKid?: string;
  signAlg?: string;
}

/** Adds the security flags to `serve`. */
export function addServeSecurityFlags(command: Command): Command {
  return command
    .option('--api-key <principal=key>', 'accept this API key (X-API-Key) as PRINCIPAL; repeatable', collect)
    .option('--jwks-url <url>', 'accept JWT bearer tokens signed by a key of this JWKS')
    .option('--jwt-issuer <iss>', 'required issuer of bearer tokens (with --jwks-url)')
    .option('--jwt-audience <aud>', 'required audience of bearer tokens (with --jwks-url)')
    .option('--tls-cert <file>', 'serve HTTPS (and gRPC over TLS) with this certificate chain (PEM)')
    .option('--tls-key <file>', 'private key of --tls-cert (PEM)')
    .option('--tls-client-ca <file>', 'accept client certificates from this CA as principals (mutual TLS)')
    .option('--sign-key <file>', 'sign the agent card with this private key (PKCS#8 PEM)')
    .option('--sign-kid <kid>', 'key id of --sign-key, as in the JWKS clients verify with')
    .option('--sign-alg <alg>', 'algorithm of --sign-key (ES256, ES384, RS256, PS256, EdDSA)', 'ES256');
}

/** createA2AServer options for the flags (`security`, `tls`, `sign`); throws on inconsistent flags. */
export function serveSecurityOptions(
  flags: ServeSecurityFlags,
): Pick<A2AServerOptions, 'security' | 'tls' | 'sign'> {
  const authenticators: Authenticator[] = [];
  if (flags.apiKey?.length) {
    const keys: Record<string, string> = {};
    for (const entry of flags.apiKey) {
      const eq = entry.indexOf('=');
      if (eq <= 0 || eq === entry.length - 1)
        throw new Error(`--api-key wants PRINCIPAL=KEY, not "${entry}"`);
      const key = entry.slice(eq + 1);
      if (key in keys) throw new Error('--api-key: the same key is given twice');
      keys[key] = entry.slice(0, eq);
    }
    authenticators.push(createApiKeyAuthenticator({ keys }));
  }
  const jwt = [flags.jwksUrl, flags.jwtIssuer, flags.jwtAudience];
  if (jwt.some((v) => v !== undefined)) {
    if (jwt.some((v) => v === undefined)) {
      throw new Error('--jwks-url, --jwt-issuer and --jwt-audience go together');
    }
    authenticators.push(
      createBearerAuthenticator({
        jwksUrl: flags.jwksUrl!,
        issuer: flags.jwtIssuer!,
        audience: flags.jwtAudience!,
      }),
    );
  }
  if ((flags.tlsCert === undefined) !== (flags.tlsKey === undefined)) {
    throw new Error('--tls-cert and --tls-key go together');
  }
  if (flags.tlsClientCa !== undefined && flags.tlsCert === undefined) {
    throw new Error('--tls-client-ca needs --tls-cert and --tls-key');
  }
  if (flags.tlsClientCa !== undefined) authenticators.push(createMutualTlsAuthenticator());
  if ((flags.signKey === undefined) !== (flags.signKid === undefined)) {
    throw new Error('--sign-key and --sign-kid go together');
  }
  return {
    ...(authenticators.length > 0 ? { security: { authenticators } } : {}),
    ...(flags.tlsCert !== undefined
      ? {
          tls: {
            certFile: flags.tlsCert,
            keyFile: flags.tlsKey!,
            ...(flags.tlsClientCa !== undefined ? { clientCaFile: flags.tlsClientCa } : {}),
          },
        }
      : {}),
    ...(flags.signKey !== undefined
      ? {
          sign: {
            keys: {
              privateKey: readFileSync(flags.signKey, 'utf8'),
              alg: (flags.signAlg ?? 'ES256') as CardSigningAlgorithm,
              kid: flags.signKid!,
            },
          },
        }
      : {}),
  };
}

/** The client credential flags as commander parses them. */
export interface ClientAuthFlags {
  token?: string;
  apiKey?: string;
  header?: string[];
}

/** Adds `--token`, `--api-key` and `--header` to a client command. */
export function addClientAuthFlags(command: Command): Command {
  return command
    .option('--token <token>', 'send Authorization: Bearer TOKEN')
    .option('--api-key <key>', 'send X-API-Key: KEY')
    .option('--header <name:value>', 'send this header on every call; repeatable', collect);
}

/** The headers the flags ask for (`--header` last, so it can override). */
export function clientHeaders(flags: ClientAuthFlags): Record<string, string> {
  const headers: Record<string, string> = {};
  if (flags.token !== undefined) headers['authorization'] = `Bearer ${flags.token}`;
  if (flags.apiKey !== undefined) headers['x-api-key'] = flags.apiKey;
  for (const entry of flags.header ?? []) {
    const colon = entry.indexOf(':');
    const name = colon > 0 ? entry.slice(0, colon).trim() : '';
    if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name))
      throw new Error(`--header wants NAME:VALUE, not "${entry}"`);
    const value = entry.slice(colon + 1).trim();
    if (/[\r\n\0]/.test(value)) throw new Error(`--header ${name}: the value has a line break`);
    headers[name.toLowerCase()] = value;
  }
  return headers;
}

/** The `card --verify` flags. */
export interface CardVerifyFlags {
  verify?: boolean;
  jwks?: string;
  key?: string;
}

/** Adds `--verify`, `--jwks` and `--key` to `card`. */
export function addCardVerifyFlags(command: Command): Command {
  return command
    .option('--verify', "check the card's signature (with --jwks or --key)")
    .option('--jwks <url>', 'trusted JWKS to verify the card against')
    .option('--key <file>', 'trusted public key: a JWK or JWKS (JSON) or a PEM public key');
}

/**
 * The resolver's `verify` hook for the flags (undefined without `--verify`); it rejects with
 * AgentCardSignatureError, and reports the verifying signature to `onVerified`.
 */
export function cardVerifyHook(
  flags: CardVerifyFlags,
  onVerified: (result: Extract<CardVerification, { ok: true }>) => void,
): ((card: AgentCard, raw: unknown) => Promise<VerifiedCardJson>) | undefined {
  if (!flags.verify) {
    if (flags.jwks !== undefined || flags.key !== undefined)
      throw new Error('--jwks and --key need --verify');
    return undefined;
  }
  if ((flags.jwks === undefined) === (flags.key === undefined)) {
    throw new Error('--verify needs exactly one of --jwks URL or --key FILE');
  }
  return async (_card, raw) => {
    const result = await verifyAgentCard(
      raw,
      flags.jwks !== undefined ? { jwks: flags.jwks } : { keys: trustedKeys(flags.key!, raw) },
    );
    if (!result.ok) throw new AgentCardSignatureError(result);
    onVerified(result);
    return verifiedCardJson(result, raw); // the card shown is the signed one (CLI-SIGN-4)
  };
}

/**
 * The keys of a `--key` file. A PEM key has no key id, so it is trusted under every `kid` the
 * card's signatures name (the operator chose this one key).
 */
function trustedKeys(file: string, raw: unknown): JWK[] {
  const text = readFileSync(file, 'utf8');
  if (text.trimStart().startsWith('{')) {
    const json = JSON.parse(text) as JWK | JSONWebKeySet;
    return 'keys' in json && Array.isArray(json.keys) ? json.keys : [json as JWK];
  }
  const jwk = createPublicKey(text).export({ format: 'jwk' }) as JWK;
  const kids = new Set<string>();
  const signatures = (raw as { signatures?: unknown }).signatures;
  for (const s of Array.isArray(signatures) ? signatures.slice(0, 16) : []) {
    try {
      const header = JSON.parse(
        Buffer.from(String((s as { protected?: unknown }).protected), 'base64url').toString(),
      ) as {
        kid?: unknown;
      };
      if (typeof header.kid === 'string') kids.add(header.kid);
    } catch {
      // A malformed signature is reported by the verifier.
    }
  }
  return [...kids].map((kid) => ({ ...jwk, kid }));
}
