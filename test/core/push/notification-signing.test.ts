import assert from 'node:assert/strict';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { describe, it } from 'node:test';
import { createLocalJWKSet, jwtVerify } from 'jose';
import {
  BODY_HASH_CLAIM,
  NotificationSigner,
  sha256Hex,
  type PushSigningAlgorithm,
} from '../../../src/core/push/notification-signing.js';

const keys: Record<PushSigningAlgorithm, () => KeyObject> = {
  ES256: () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey,
  ES384: () => generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey,
  EdDSA: () => generateKeyPairSync('ed25519').privateKey,
  RS256: () => generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey,
  PS256: () => generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey,
};

describe('NotificationSigner', () => {
  for (const alg of Object.keys(keys) as PushSigningAlgorithm[]) {
    it(`signs ${alg} JWTs that jose verifies with the published JWKS`, async () => {
      const signer = new NotificationSigner({ privateKey: keys[alg](), alg });
      const body = '{"statusUpdate":{"taskId":"t"}}';
      const token = signer.sign(body, 'https://hooks.example/a2a', 'n-1');
      const jwks = createLocalJWKSet(JSON.parse(signer.jwksJson) as Parameters<typeof createLocalJWKSet>[0]);
      const { payload, protectedHeader } = await jwtVerify(token, jwks, {
        audience: 'https://hooks.example/a2a',
        algorithms: [alg],
      });
      assert.equal(protectedHeader.alg, alg);
      assert.equal(protectedHeader.kid, signer.kid);
      assert.equal(payload.jti, 'n-1');
      assert.equal(payload[BODY_HASH_CLAIM], sha256Hex(body));
      assert.equal((payload.exp ?? 0) - (payload.iat ?? 0), 300);
    });
  }

  it('refuses a key that cannot make signatures of the algorithm', () => {
    assert.throws(
      () => new NotificationSigner({ privateKey: keys.RS256(), alg: 'ES256' }),
      /a rsa key cannot sign ES256/,
    );
    assert.throws(
      () => new NotificationSigner({ privateKey: keys.ES384(), alg: 'ES256' }),
      /cannot sign ES256/,
    );
  });
});
