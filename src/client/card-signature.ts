/**
 * Agent Card signature verification (spec 8.4.3, N12, CLI-SIGN-1..3) against keys or
 * a JWKS the caller trusts; {@link cardSignatureVerifier} plugs into the card resolver's
 * `verify` hook.
 */
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeProtectedHeader,
  flattenedVerify,
  base64url,
  type JSONWebKeySet,
  type JWK,
  type FlattenedVerifyGetKey,
} from 'jose';
import { cardPayloadCandidates, type CardPayloadForm } from '../model/card-canonical.js';
import type { AgentCard, AgentCardSignature } from '../model/schema.js';

/** Algorithms accepted by default: asymmetric only. */
export const DEFAULT_CARD_ALGORITHMS: readonly string[] = ['ES256', 'ES384', 'RS256', 'PS256', 'EdDSA'];

/** Where verification keys come from. Give `keys`, `jwks`, or both. */
export interface VerifyAgentCardOptions {
  /** Trusted public keys, matched by `kid` (and `alg`). */
  keys?: JSONWebKeySet | readonly JWK[];
  /** A JWKS URL the caller trusts (fetched and cached by `jose`). */
  jwks?: string | URL;
  /**
   * Decides whether a signature's own `jku` may be fetched. A `jku` lets the card name its own
   * keys, which proves nothing unless the URL is trusted. @default never follow `jku`
   */
  trustJku?: (jku: string) => boolean;
  /** Accepted `alg` values. @default {@link DEFAULT_CARD_ALGORITHMS} */
  algorithms?: readonly string[];
  /** Timeout of a JWKS fetch in ms. @default 5000 */
  timeoutMs?: number;
}

/** Why a card did not verify. */
export type CardVerificationFailure =
  | 'unsigned' // no signatures at all
  | 'malformed' // the card or every signature is not usable JSON/JWS
  | 'no-trusted-key' // no signature names a key we trust
  | 'bad-signature'; // a trusted key exists, but the bytes do not match

/** The result of {@link verifyAgentCard}. */
export type CardVerification =
  | {
      readonly ok: true;
      /** Index in `signatures` of the signature that verified. */
      readonly index: number;
      readonly signature: AgentCardSignature;
      readonly kid: string;
      readonly alg: string;
      /** Which reading of the card matched (N12). */
      readonly form: CardPayloadForm;
      /**
       * The card the signature covers, without `signatures` (CLI-SIGN-4): build the card from this,
       * never from the received JSON, which may carry fields added after signing.
       */
      readonly payload: Record<string, unknown>;
    }
  | {
      readonly ok: false;
      readonly reason: CardVerificationFailure;
      readonly message: string;
      /** What went wrong with each signature, by index. */
      readonly problems: readonly string[];
    };

/** Thrown by {@link cardSignatureVerifier} when a card does not verify. */
export class AgentCardSignatureError extends Error {
  constructor(readonly result: Extract<CardVerification, { ok: false }>) {
    super(`agent card signature check failed (${result.reason}): ${result.message}`);
    this.name = 'AgentCardSignatureError';
  }
}

const MAX_SIGNATURES = 16;

/**
 * Verifies a card's signatures; the first one that verifies wins. Pass the JSON exactly as
 * received (not a re-serialized object), or `optional` field presence is lost (N12).
 */
export async function verifyAgentCard(
  card: unknown,
  options: VerifyAgentCardOptions,
): Promise<CardVerification> {
  const fail = (
    reason: CardVerificationFailure,
    message: string,
    problems: string[] = [],
  ): CardVerification => ({
    ok: false,
    reason,
    message,
    problems,
  });
  if (typeof card !== 'object' || card === null || Array.isArray(card))
    return fail('malformed', 'the card is not a JSON object');
  const signatures = (card as { signatures?: unknown }).signatures;
  if (!Array.isArray(signatures) || signatures.length === 0)
    return fail('unsigned', 'the card has no signatures');
  let candidates: { form: CardPayloadForm; value: Record<string, unknown>; payload: string }[];
  try {
    candidates = cardPayloadCandidates(card as Record<string, unknown>).map((c) => ({
      form: c.form,
      value: c.value,
      payload: base64url.encode(new TextEncoder().encode(c.payload)),
    }));
  } catch (error) {
    return fail('malformed', `the card cannot be canonicalized: ${(error as Error).message}`);
  }
  let keyFor = resolvers.get(options);
  if (!keyFor) {
    keyFor = keyResolver(options);
    resolvers.set(options, keyFor);
  }
  const algorithms = [...(options.algorithms ?? DEFAULT_CARD_ALGORITHMS)];
  const problems: string[] = [];
  let sawTrustedKey = false;
  for (const [index, entry] of signatures.slice(0, MAX_SIGNATURES).entries()) {
    const sig = entry as Partial<AgentCardSignature>;
    if (typeof sig?.protected !== 'string' || typeof sig.signature !== 'string') {
      problems.push(`signatures[${index}]: protected and signature must be strings`);
      continue;
    }
    let header: ReturnType<typeof decodeProtectedHeader>;
    try {
      header = decodeProtectedHeader({ protected: sig.protected });
    } catch {
      problems.push(`signatures[${index}]: the protected header is not base64url JSON`);
      continue;
    }
    if (typeof header.alg !== 'string' || typeof header.kid !== 'string') {
      problems.push(`signatures[${index}]: the protected header needs alg and kid`);
      continue;
    }
    if (!algorithms.includes(header.alg)) {
      problems.push(`signatures[${index}]: algorithm ${header.alg} is not accepted`);
      continue;
    }
    const getKey = keyFor(header.jku);
    if (!getKey) {
      problems.push(`signatures[${index}]: no trusted key source for kid ${header.kid}`);
      continue;
    }
    for (const candidate of candidates) {
      try {
        await flattenedVerify(
          {
            payload: candidate.payload,
            protected: sig.protected,
            signature: sig.signature,
            ...(isObject(sig.header) ? { header: sig.header } : {}),
          },
          getKey,
          { algorithms },
        );
        return {
          ok: true,
          index,
          signature: sig as AgentCardSignature,
          kid: header.kid,
          alg: header.alg,
          form: candidate.form,
          // A copy through JSON, so that later changes to the received object cannot reach it.
          payload: JSON.parse(JSON.stringify(candidate.value)) as Record<string, unknown>,
        };
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED') {
          sawTrustedKey = true;
          if (candidate === candidates[candidates.length - 1]) {
            problems.push(`signatures[${index}]: the signature does not match the card`);
          }
          continue;
        }
        problems.push(
          code === 'ERR_JWKS_NO_MATCHING_KEY'
            ? `signatures[${index}]: no trusted key has kid ${header.kid}`
            : `signatures[${index}]: ${(error as Error).message}`,
        );
        break;
      }
    }
  }
  if (sawTrustedKey) return fail('bad-signature', 'no signature matches the card content', problems);
  if (problems.every((p) => /protected|alg and kid|not base64url/.test(p))) {
    return fail('malformed', 'no signature is a usable JWS', problems);
  }
  return fail('no-trusted-key', 'no signature is made with a trusted key', problems);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

type KeyLookup = (jku: string | undefined) => FlattenedVerifyGetKey | undefined;
/** One lookup per options object, so that fetched JWKS stay cached between cards. */
const resolvers = new WeakMap<VerifyAgentCardOptions, KeyLookup>();

/** The key lookup for a signature: configured keys, then the trusted JWKS, then a trusted `jku`. */
function keyResolver(
  options: VerifyAgentCardOptions,
): (jku: string | undefined) => FlattenedVerifyGetKey | undefined {
  const timeoutDuration = options.timeoutMs ?? 5000;
  const local = options.keys
    ? createLocalJWKSet({
        keys: [...(Array.isArray(options.keys) ? options.keys : (options.keys as JSONWebKeySet).keys)],
      })
    : undefined;
  const remote = options.jwks ? createRemoteJWKSet(new URL(options.jwks), { timeoutDuration }) : undefined;
  const byJku = new Map<string, ReturnType<typeof createRemoteJWKSet>>();
  return (jku) => {
    const sources: FlattenedVerifyGetKey[] = [];
    if (local) sources.push(local);
    if (remote) sources.push(remote);
    if (jku && options.trustJku?.(jku)) {
      let set = byJku.get(jku);
      if (!set && byJku.size < 16) {
        set = createRemoteJWKSet(new URL(jku), { timeoutDuration });
        byJku.set(jku, set);
      }
      if (set) sources.push(set);
    }
    if (sources.length === 0) return undefined;
    if (sources.length === 1) return sources[0];
    // The first source that has the kid decides; a source without it passes to the next.
    return async (header, token) => {
      let last: unknown;
      for (const source of sources) {
        try {
          return await source(header, token);
        } catch (error) {
          last = error;
          if ((error as { code?: string }).code !== 'ERR_JWKS_NO_MATCHING_KEY') throw error;
        }
      }
      throw last;
    };
  };
}

/**
 * A ready-made `verify` hook for {@link AgentCardResolver}: rejects a card that does not carry
 * a signature verifying against the trusted keys (CLI-SIGN-1), and hands the resolver the
 * signed payload, from which it builds the card (CLI-SIGN-4).
 * @example new AgentCardResolver({ verify: cardSignatureVerifier({ jwks: 'https://keys.example.com/jwks.json' }) })
 */
export function cardSignatureVerifier(
  options: VerifyAgentCardOptions,
): (card: AgentCard, rawJson: unknown) => Promise<VerifiedCardJson> {
  if (!options.keys && !options.jwks && !options.trustJku) {
    throw new Error('cardSignatureVerifier needs keys, jwks or trustJku');
  }
  return async (_card, rawJson) => {
    const result = await verifyAgentCard(rawJson, options);
    if (!result.ok) throw new AgentCardSignatureError(result);
    return verifiedCardJson(result, rawJson);
  };
}

/** What a `verify` hook returns for a card whose signature it checked: the JSON to build it from. */
export interface VerifiedCardJson {
  /** The signed payload with the received `signatures` put back (they are not covered). */
  readonly verifiedJson: Record<string, unknown>;
}

/** The hook result for a successful verification of `rawJson`. */
export function verifiedCardJson(
  result: Extract<CardVerification, { ok: true }>,
  rawJson: unknown,
): VerifiedCardJson {
  const signatures = (rawJson as { signatures?: unknown }).signatures;
  return { verifiedJson: { ...result.payload, signatures } };
}
