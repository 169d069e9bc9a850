/**
 * Signed push notifications (SRV-PUSH-7, G15): each POST carries a JWT, signed with the
 * server's key, over the SHA-256 of the exact body, bound to the webhook URL (`aud`) and to
 * the notification id (`jti`), short-lived (`iat`, `exp`). The public key is published as a
 * JWKS at {@link PUSH_JWKS_PATH}, named on the card by the {@link PUSH_SIGNING_EXTENSION}
 * extension, so a receiver can tell our notifications from forged ones and reject a body
 * changed on the way.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  KeyObject,
  type JsonWebKey,
} from 'node:crypto';
import { SignJWT, type CryptoKey, type JWK } from 'jose';

/** Where the server serves the public keys that verify its notifications. */
export const PUSH_JWKS_PATH = '/.well-known/a2a-push-jwks.json';

/** URI of the card extension whose `params.jwksUrl` names that JWKS (G15). */
export const PUSH_SIGNING_EXTENSION = 'https://a2a-kit.dev/extensions/push-signature/v1';

/** The header carrying the JWT. */
export const PUSH_SIGNATURE_HEADER = 'X-A2A-Notification-Signature';

/** The header carrying the notification id (the JWT's `jti`), for receivers to drop duplicates. */
export const PUSH_ID_HEADER = 'X-A2A-Notification-Id';

/** The JWT claim holding the body's SHA-256, lowercase hex. */
export const BODY_HASH_CLAIM = 'request_body_sha256';

/** Algorithms notifications can be signed with. */
export type PushSigningAlgorithm = 'ES256' | 'ES384' | 'EdDSA' | 'RS256' | 'PS256';

/** The key that signs notifications, from configuration. */
export interface PushSigningKey {
  /** A private key object, a private JWK, or a PKCS#8 PEM string. */
  privateKey: CryptoKey | KeyObject | JWK | string;
  /** @default 'ES256' */
  alg?: PushSigningAlgorithm;
  /** Key id in the JWT header and the JWKS. @default the key's RFC 7638 thumbprint */
  kid?: string;
}

/** How long a notification JWT stays valid after it is made. */
const TOKEN_LIFETIME_S = 300;

/** Signs notifications with one key and publishes its public half. */
export class NotificationSigner {
  readonly alg: PushSigningAlgorithm;
  readonly kid: string;
  readonly #privateKey: KeyObject;
  readonly #publicJwk: JsonWebKey;
  /** The JWKS document served at {@link PUSH_JWKS_PATH}. */
  readonly jwksJson: string;

  /** Uses `key`, or a new ES256 key made now (then notifications verify only while this process runs). */
  constructor(key?: PushSigningKey) {
    this.alg = key?.alg ?? 'ES256';
    this.#privateKey = key
      ? toPrivateKey(key.privateKey)
      : generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const jwk = createPublicKey(this.#privateKey).export({ format: 'jwk' });
    this.kid = key?.kid ?? thumbprint(jwk);
    this.#publicJwk = { ...jwk, kid: this.kid, alg: this.alg, use: 'sig' };
    this.jwksJson = JSON.stringify({ keys: [this.#publicJwk] });
  }

  /** The public key as a JWK. */
  get publicJwk(): JsonWebKey {
    return { ...this.#publicJwk };
  }

  /** The JWT for one POST of `body` to `url` as notification `id`. */
  sign(body: string, url: string, id: string, nowMs = Date.now()): Promise<string> {
    const iat = Math.floor(nowMs / 1000);
    return new SignJWT({ [BODY_HASH_CLAIM]: sha256Hex(body) })
      .setProtectedHeader({ alg: this.alg, kid: this.kid, typ: 'JWT' })
      .setIssuedAt(iat)
      .setExpirationTime(iat + TOKEN_LIFETIME_S)
      .setJti(id)
      .setAudience(url)
      .sign(this.#privateKey);
  }
}

/** SHA-256 of a body, lowercase hex. */
export function sha256Hex(body: string | Uint8Array): string {
  return createHash('sha256').update(body).digest('hex');
}

function toPrivateKey(key: PushSigningKey['privateKey']): KeyObject {
  if (key instanceof KeyObject) return key;
  if (typeof key === 'string') return createPrivateKey(key);
  if (typeof (key as JWK).kty === 'string') {
    const jwk = key as JWK;
    if (jwk.d === undefined) throw new Error('push.signingKey: the JWK is not a private key');
    return createPrivateKey({ key: jwk as JsonWebKey, format: 'jwk' });
  }
  return KeyObject.from(key as Parameters<typeof KeyObject.from>[0]);
}

/** RFC 7638 thumbprint (SHA-256, base64url) of a public JWK. */
function thumbprint(jwk: JsonWebKey): string {
  const members =
    jwk.kty === 'EC'
      ? { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y }
      : jwk.kty === 'OKP'
        ? { crv: jwk.crv, kty: jwk.kty, x: jwk.x }
        : { e: jwk.e, kty: jwk.kty, n: jwk.n };
  return createHash('sha256').update(JSON.stringify(members)).digest('base64url');
}
