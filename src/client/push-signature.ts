/**
 * Verifies signed push notifications (SRV-PUSH-7, G15) on the receiving side: the JWT in
 * `X-A2A-Notification-Signature` must verify against the agent's push JWKS (fetched once, then
 * cached and refreshed by `jose` when an unknown key id appears), name this webhook as `aud`,
 * be current (`iat`, `exp`), carry the notification id as `jti`, and hash to the exact body.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  errors as joseErrors,
  jwtVerify,
  type JSONWebKeySet,
} from 'jose';
import type { AgentCard } from '../model/schema.js';

/** URI of the card extension that names the push JWKS (same value as the server's). */
export const PUSH_SIGNING_EXTENSION_URI = 'https://a2a-kit.dev/extensions/push-signature/v1';

/** Options of {@link createPushSignatureVerifier}. */
export interface PushSignatureOptions {
  /**
   * The agent's push JWKS URL (see {@link pushJwksUrlOf}), or the key set itself. The URL is
   * fetched: take it from a card whose signature you verified, or check that it is on the
   * agent's own origin, or a card can make this process GET any address it names.
   */
  jwks: string | URL | JSONWebKeySet;
  /** This webhook's URL exactly as registered in the push config (the JWT's `aud`). */
  audience: string;
  /** Accepted algorithms. @default ['ES256', 'ES384', 'EdDSA', 'RS256', 'PS256'] */
  algorithms?: string[];
  /** Clock tolerance in seconds. @default 30 */
  clockToleranceS?: number;
  /** Oldest accepted `iat`, seconds. @default 300 */
  maxTokenAgeS?: number;
}

/** A notification whose signature did not verify; the message says why. */
export class PushSignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PushSignatureError';
  }
}

/** The push JWKS URL an agent's card names, or undefined when it signs no notifications. */
export function pushJwksUrlOf(card: AgentCard): string | undefined {
  const ext = card.capabilities.extensions?.find((e) => e.uri === PUSH_SIGNING_EXTENSION_URI);
  const url = ext?.params?.['jwksUrl'];
  return typeof url === 'string' ? url : undefined;
}

/** What a verified notification's token says about it. */
export interface VerifiedNotification {
  /** The token's `jti`: the notification id the signer bound to this body (a replay has the same). */
  readonly jti: string;
}

/** The origins a client already talks to for an agent: its card's URL and its interfaces'. */
export function agentOriginsOf(card: AgentCard | undefined, cardUrl: string | undefined): string[] {
  const origins = new Set<string>();
  for (const u of [cardUrl, ...(card?.supportedInterfaces ?? []).map((i) => i.url)]) {
    if (u && URL.canParse(u)) origins.add(new URL(u).origin);
  }
  return [...origins];
}

/**
 * The card's push JWKS URL when it is safe to fetch: http(s) on one of `agentOrigins` (see
 * {@link agentOriginsOf}). Any other URL would let a card make this process GET an address of
 * its choosing (a cloud metadata endpoint, a router's page) when a signed notification arrives;
 * `refused` says why, for the caller to show. Give the JWKS URL yourself to use another one.
 */
export function pushJwksOnAgentOrigin(
  card: AgentCard | undefined,
  agentOrigins: readonly string[],
): { jwks: string } | { refused: string } {
  const named = card ? pushJwksUrlOf(card) : undefined;
  if (!named) return { refused: 'the card names no push JWKS' };
  if (!URL.canParse(named)) return { refused: `the card's push JWKS ${JSON.stringify(named)} is not a URL` };
  const url = new URL(named);
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return { refused: `the card's push JWKS uses ${url.protocol}; only http(s) is fetched` };
  if (!agentOrigins.includes(url.origin))
    return {
      refused:
        `the card's push JWKS ${url.href} is not on the agent's origin ` +
        `(${agentOrigins.join(', ') || 'none known'}), so it is not fetched`,
    };
  return { jwks: url.href };
}

/**
 * Checks one notification: `(signature header, notification id header, raw body)`; throws
 * PushSignatureError, or resolves to the token's claims a replay check needs.
 */
export type PushSignatureVerifier = (
  signature: string | undefined,
  notificationId: string | undefined,
  body: Buffer,
) => Promise<VerifiedNotification>;

/** A verifier for notifications from one agent to one webhook. */
export function createPushSignatureVerifier(options: PushSignatureOptions): PushSignatureVerifier {
  const keys =
    typeof options.jwks === 'string' || options.jwks instanceof URL
      ? createRemoteJWKSet(new URL(options.jwks))
      : createLocalJWKSet(options.jwks);
  const audience = normalizeUrl(options.audience);
  return async (signature, notificationId, body) => {
    if (!signature)
      throw new PushSignatureError('the notification is not signed (no X-A2A-Notification-Signature)');
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(signature, keys, {
        audience,
        algorithms: options.algorithms ?? ['ES256', 'ES384', 'EdDSA', 'RS256', 'PS256'],
        clockTolerance: options.clockToleranceS ?? 30,
        maxTokenAge: options.maxTokenAgeS ?? 300,
        requiredClaims: ['iat', 'exp', 'jti'],
      }));
    } catch (error) {
      throw new PushSignatureError(`the notification signature does not verify: ${describe(error)}`);
    }
    if (typeof payload.jti !== 'string' || payload.jti === '') {
      throw new PushSignatureError('the notification token has no jti: it could be replayed unnoticed');
    }
    if (notificationId !== undefined && payload.jti !== notificationId) {
      throw new PushSignatureError(
        'the signature belongs to another notification (jti differs from X-A2A-Notification-Id)',
      );
    }
    const claimed = payload['request_body_sha256'];
    const actual = createHash('sha256').update(body).digest('hex');
    if (
      typeof claimed !== 'string' ||
      claimed.length !== actual.length ||
      !timingSafeEqual(Buffer.from(claimed), Buffer.from(actual))
    ) {
      throw new PushSignatureError('the body was changed: its SHA-256 is not the signed one');
    }
    return { jti: payload.jti };
  };
}

function normalizeUrl(url: string): string {
  try {
    return new URL(url).href;
  } catch {
    return url;
  }
}

function describe(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return 'it has expired';
  if (error instanceof joseErrors.JWTClaimValidationFailed) return `claim ${error.claim} ${error.reason}`;
  if (error instanceof joseErrors.JWKSNoMatchingKey)
    return 'it is signed with a key the agent does not publish';
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return 'the signature is wrong';
  return error instanceof Error ? error.message : String(error);
}
