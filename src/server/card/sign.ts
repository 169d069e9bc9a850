/**
 * Agent Card signing (spec 8.4, N12, SRV-SIGN-1..5): a detached JWS per key over the
 * RFC 8785 form of the card after the 8.4.1 presence rules, without `signatures`. The signed
 * object is what must be served, so that a verifier canonicalizing the received JSON gets the
 * same bytes.
 */
import { FlattenedSign, importJWK, importPKCS8, type CryptoKey, type JWK, type KeyObject } from 'jose';
import { cardSigningPayload, cardWithoutDefaults } from '../../model/card-canonical.js';
import type { AgentCard, AgentCardSignature } from '../../model/schema.js';

/** Algorithms a card can be signed with. */
export type CardSigningAlgorithm = 'ES256' | 'ES384' | 'RS256' | 'PS256' | 'EdDSA';
const ALGORITHMS: readonly string[] = ['ES256', 'ES384', 'RS256', 'PS256', 'EdDSA'];

/** One signing key from configuration. */
export interface CardSigningKey {
  /** The private key: a key object, a private JWK, or a PKCS#8 PEM string. */
  privateKey: CryptoKey | KeyObject | JWK | string;
  alg: CardSigningAlgorithm;
  /** Key id in the protected header (required by 8.4.2), found in the JWKS clients use. */
  kid: string;
  /** URL of the JWKS holding the public key, put in the protected header. */
  jku?: string;
  /** Unprotected header parameters (the signature's `header` field). */
  header?: Record<string, unknown>;
}

/** Options of {@link signAgentCard}. */
export interface SignAgentCardOptions {
  /** Keep signatures already on the card (e.g. made elsewhere over the same content). @default false */
  keepExisting?: boolean;
}

/**
 * The card to serve: its 8.4.1 form plus one signature per key (several for key rotation,
 * SRV-SIGN-4). Throws for an unsupported algorithm or a key that does not fit it.
 */
export async function signAgentCard(
  card: AgentCard,
  keys: CardSigningKey | readonly CardSigningKey[],
  options: SignAgentCardOptions = {},
): Promise<AgentCard> {
  const list = Array.isArray(keys) ? keys : [keys as CardSigningKey];
  if (list.length === 0) throw new Error('signAgentCard needs at least one key');
  const json = card as unknown as Record<string, unknown>;
  const payload = new TextEncoder().encode(cardSigningPayload(json));
  const signatures: AgentCardSignature[] = options.keepExisting ? [...(card.signatures ?? [])] : [];
  for (const key of list) signatures.push(await signPayload(payload, key));
  return { ...(cardWithoutDefaults(json) as unknown as AgentCard), signatures };
}

async function signPayload(payload: Uint8Array, key: CardSigningKey): Promise<AgentCardSignature> {
  if (!ALGORITHMS.includes(key.alg)) {
    throw new Error(`cannot sign a card with ${String(key.alg)}; use one of ${ALGORITHMS.join(', ')}`);
  }
  if (!key.kid) throw new Error('a card signing key needs a kid (spec 8.4.2)');
  const privateKey = await importSigningKey(key);
  const protectedHeader = { alg: key.alg, typ: 'JOSE', kid: key.kid, ...(key.jku ? { jku: key.jku } : {}) };
  const signer = new FlattenedSign(payload).setProtectedHeader(protectedHeader);
  if (key.header) signer.setUnprotectedHeader(key.header);
  const jws = await signer.sign(privateKey);
  return {
    protected: jws.protected!,
    signature: jws.signature,
    ...(jws.header ? { header: jws.header as Record<string, unknown> } : {}),
  };
}

async function importSigningKey(key: CardSigningKey): Promise<CryptoKey | KeyObject | Uint8Array> {
  const k = key.privateKey;
  if (typeof k === 'string') return importPKCS8(k, key.alg);
  if (isJwk(k)) {
    if (!('d' in k) || k.d === undefined) throw new Error(`the JWK for kid ${key.kid} is not a private key`);
    return importJWK(k, key.alg);
  }
  return k;
}

function isJwk(k: CryptoKey | KeyObject | JWK): k is JWK {
  return typeof (k as JWK).kty === 'string';
}
