/**
 * Thousands of generated malformed credentials against a gate with every header scheme, and
 * mutated signatures against the card verifier: each is refused as the caller's fault, none
 * is accepted, none throws. A seeded generator keeps failures reproducible.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SignJWT, UnsecuredJWT, exportJWK, generateKeyPair } from 'jose';
import {
  createApiKeyAuthenticator,
  createAuthRequest,
  createBasicAuthenticator,
  createBearerAuthenticator,
  createSecurityGate,
  staticBasicCredentials,
} from '../../../src/server/auth/index.js';
import { signAgentCard } from '../../../src/server/card/sign.js';
import { verifyAgentCard } from '../../../src/client/card-signature.js';
import { TEST_CARD } from '../../support/handler.js';
import type { AgentCard } from '../../../src/model/schema.js';

/** mulberry32: a small seeded PRNG. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALPHABET =
  'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/: ;,"\\\t\u00e9\u6f22\ud83d\ude80';

function randomText(next: () => number, max: number): string {
  const chars = [...ALPHABET];
  let out = '';
  const n = Math.floor(next() * max);
  for (let i = 0; i < n; i++) out += chars[Math.floor(next() * chars.length)];
  return out;
}

const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

describe('fuzz: malformed credentials', () => {
  test('3000 generated Authorization, API key and cookie values are all refused without throwing', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k', alg: 'ES256' };
    const good = await new SignJWT({ scope: 'x' })
      .setProtectedHeader({ alg: 'ES256', kid: 'k' })
      .setSubject('alice')
      .setIssuer('iss')
      .setAudience('aud')
      .setExpirationTime('5m')
      .sign(privateKey);
    const [h, p, s] = good.split('.') as [string, string, string];
    const gate = createSecurityGate({
      authenticators: [
        createBearerAuthenticator({ keys: [jwk], issuer: 'iss', audience: 'aud' }),
        createApiKeyAuthenticator({ keys: { 'the-real-key': 'svc' } }),
        createBasicAuthenticator({ verify: staticBasicCredentials({ alice: 'secret' }) }),
      ],
    });
    const unsecured = new UnsecuredJWT({}).setSubject('alice').setIssuer('iss').setAudience('aud').encode();
    const next = rng(0xa2a);
    const generators: (() => Record<string, string>)[] = [
      () => ({ authorization: `Bearer ${randomText(next, 200)}` }),
      () => ({ authorization: `Bearer ${b64({ alg: 'none' })}.${p}.` }),
      () => ({ authorization: `Bearer ${unsecured}` }),
      () => ({ authorization: `Bearer ${b64({ alg: 'HS256', kid: 'k' })}.${p}.${randomText(next, 40)}` }),
      () => ({
        authorization: `Bearer ${h}.${b64({ sub: 'mallory', iss: 'iss', aud: 'aud', exp: 9e9 })}.${s}`,
      }),
      () => ({ authorization: `Bearer ${h}.${p}.${s.slice(0, Math.floor(next() * s.length))}` }),
      () => ({
        authorization: `Bearer ${b64(randomText(next, 30))}.${b64(randomText(next, 30))}.${b64(randomText(next, 30))}`,
      }),
      () => ({ authorization: `Basic ${randomText(next, 60)}` }),
      () => ({ authorization: `Basic ${Buffer.from(`alice:${randomText(next, 10)}x`).toString('base64')}` }),
      () => ({ authorization: randomText(next, 80) }),
      () => ({ 'x-api-key': `${randomText(next, 40)}!` }),
      () => ({ cookie: randomText(next, 120), 'x-api-key': 'the-real-key-' }),
    ];
    let refused = 0;
    for (let i = 0; i < 3000; i++) {
      const headers = generators[i % generators.length]!();
      const outcome = await gate.authenticate(
        createAuthRequest({ headers, url: `/x?${randomText(next, 20)}` }),
      );
      assert.equal(outcome.ok, false, `accepted ${JSON.stringify(headers)}`);
      if (!outcome.ok) {
        assert.ok(['missing', 'invalid'].includes(outcome.failure.kind), JSON.stringify(outcome.failure));
        assert.ok(!outcome.failure.message.includes('the-real-key'));
        refused++;
      }
    }
    assert.equal(refused, 3000);
    // The real credentials still work after all that.
    assert.ok(
      (await gate.authenticate(createAuthRequest({ headers: { authorization: `Bearer ${good}` } }))).ok,
    );
  });

  test('500 mutated card signatures never verify and never throw', async () => {
    const { privateKey, publicKey } = await generateKeyPair('EdDSA');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k', alg: 'EdDSA' };
    const signed = await signAgentCard(
      {
        ...TEST_CARD,
        supportedInterfaces: [],
        capabilities: {},
        defaultInputModes: ['text/plain'],
        defaultOutputModes: ['text/plain'],
      } as AgentCard,
      { privateKey, alg: 'EdDSA', kid: 'k' },
    );
    const sig = signed.signatures![0]!;
    assert.ok((await verifyAgentCard(JSON.parse(JSON.stringify(signed)), { keys: [jwk] })).ok);
    const next = rng(7);
    /** `v` with one character replaced by 0-2 others; never `v` itself. */
    const mutate = (v: string) => {
      for (let tries = 0; tries < 10; tries++) {
        const i = Math.floor(next() * v.length);
        const out = v.slice(0, i) + randomText(next, 3) + v.slice(i + 1);
        if (out !== v) return out;
      }
      return v + 'x';
    };
    for (let i = 0; i < 500; i++) {
      const which = i % 4;
      const card: Record<string, unknown> = JSON.parse(JSON.stringify(signed)) as Record<string, unknown>;
      if (which === 0) card.signatures = [{ ...sig, signature: mutate(sig.signature) }];
      else if (which === 1) card.signatures = [{ ...sig, protected: mutate(sig.protected) }];
      else if (which === 2) card.name = mutate(String(card.name));
      else card.signatures = [randomText(next, 50), null, { protected: 1, signature: [] }];
      const result = await verifyAgentCard(card, { keys: [jwk] });
      if (result.ok) {
        // A mutation may land on a byte that base64url decoding ignores; then the signature is the same.
        assert.equal(which, 0);
        continue;
      }
      assert.ok(['malformed', 'no-trusted-key', 'bad-signature'].includes(result.reason));
    }
  });
});
