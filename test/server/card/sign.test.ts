/**
 * Card signing (spec 8.4) and verification: our signer and verifier, a changed byte, keys from
 * a JWKS served on 127.0.0.1, the card resolver's verify hook, and both directions with the
 * official SDK's signing, with non-ASCII text in the card.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportPKCS8, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import { generateAgentCardSignature, verifyAgentCardSignature } from '@a2a-js/sdk';
import type { AgentCard } from '../../../src/model/schema.js';
import { signAgentCard, type CardSigningKey } from '../../../src/server/card/sign.js';
import {
  AgentCardSignatureError,
  cardSignatureVerifier,
  verifyAgentCard,
  type CardVerification,
} from '../../../src/client/card-signature.js';
import { AgentCardResolver } from '../../../src/client/card-resolver.js';
import { cardSigningPayload } from '../../../src/model/card-canonical.js';
import { startJsonServer } from '../../support/json-server.js';

/** A realistic card with non-ASCII text and optional fields set to their defaults. */
function sampleCard(): AgentCard {
  return {
    name: 'Café-Agent 漢字 🚀',
    description: 'Résumé de tâches — 日本語のテキスト and emoji 👩‍💻',
    supportedInterfaces: [
      { url: 'https://agent.example.com/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    ],
    provider: { url: 'https://example.com', organization: 'Exämple GmbH' },
    version: '1.2.0',
    capabilities: { streaming: true, pushNotifications: false, extendedAgentCard: false },
    securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } } },
    securityRequirements: [{ schemes: { bearer: { list: ['tasks:write'] } } }],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [
      {
        id: 'übersetzen',
        name: 'Übersetzen',
        description: 'Translates text into 中文 or Ελληνικά',
        tags: ['translation', 'ñ'],
        examples: ['Translate “naïve” to 日本語'],
      },
    ],
    iconUrl: 'https://example.com/icon.png',
  };
}

async function keyPair(alg: 'ES256' | 'RS256' | 'EdDSA', kid: string) {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg };
  return { privateKey, publicKey, jwk, alg, kid };
}

/** The served JSON as a client receives it (text, parsed again). */
const overTheWire = (card: unknown): Record<string, unknown> =>
  JSON.parse(JSON.stringify(card)) as Record<string, unknown>;

function ok(result: CardVerification) {
  assert.ok(result.ok, `expected a verified card, got ${JSON.stringify(result)}`);
  return result;
}
function notOk(result: CardVerification) {
  assert.equal(result.ok, false, 'expected the card to fail verification');
  return result as Extract<CardVerification, { ok: false }>;
}

describe('card signing', () => {
  test('ES256, RS256 and EdDSA keys (CryptoKey, private JWK, PKCS#8 PEM) sign; each verifies', async () => {
    const es = await keyPair('ES256', 'es-1');
    const rs = await keyPair('RS256', 'rs-1');
    const ed = await keyPair('EdDSA', 'ed-1');
    const keys: CardSigningKey[] = [
      { privateKey: es.privateKey, alg: 'ES256', kid: 'es-1', jku: 'https://agent.example.com/jwks.json' },
      { privateKey: await exportJWK(rs.privateKey), alg: 'RS256', kid: 'rs-1' },
      {
        privateKey: await exportPKCS8(ed.privateKey),
        alg: 'EdDSA',
        kid: 'ed-1',
        header: { note: 'rotation 2026' },
      },
    ];
    const signed = await signAgentCard(sampleCard(), keys);
    assert.equal(signed.signatures?.length, 3);
    const header = JSON.parse(
      Buffer.from(signed.signatures![0]!.protected, 'base64url').toString(),
    ) as unknown;
    assert.deepEqual(header, {
      alg: 'ES256',
      typ: 'JOSE',
      kid: 'es-1',
      jku: 'https://agent.example.com/jwks.json',
    });
    assert.deepEqual(signed.signatures![2]!.header, { note: 'rotation 2026' });
    // Default-valued plain fields are dropped from the served card (8.4.1); optional ones stay.
    assert.deepEqual(signed.capabilities, {
      streaming: true,
      pushNotifications: false,
      extendedAgentCard: false,
    });

    const wire = overTheWire(signed);
    for (const [i, k] of [es, rs, ed].entries()) {
      const r = ok(await verifyAgentCard(wire, { keys: [k.jwk] }));
      assert.equal(r.index, i);
      assert.equal(r.kid, k.kid);
      assert.equal(r.form, 'as-received');
    }
    assert.equal(ok(await verifyAgentCard(wire, { keys: { keys: [ed.jwk, es.jwk] } })).kid, 'es-1');
  });

  test('the payload is JCS without signatures, per the 8.4.1 example', () => {
    const fragment = {
      name: 'Example Agent',
      description: '',
      capabilities: { streaming: false, pushNotifications: false, extensions: [] },
      skills: [],
      signatures: [{ protected: 'x', signature: 'y' }],
    };
    assert.equal(
      cardSigningPayload(fragment),
      '{"capabilities":{"pushNotifications":false,"streaming":false},"description":"","name":"Example Agent","skills":[]}',
    );
  });

  test('a changed byte, a foreign key, a disallowed algorithm and a missing signature fail', async () => {
    const es = await keyPair('ES256', 'k');
    const other = await keyPair('ES256', 'k');
    const signed = await signAgentCard(sampleCard(), { privateKey: es.privateKey, alg: 'ES256', kid: 'k' });
    const text = JSON.stringify(signed);
    // Change one byte inside the description (é -> e): the JSON stays valid.
    const at = text.indexOf('Résumé');
    const tampered = JSON.parse(text.slice(0, at + 1) + 'e' + text.slice(at + 3)) as Record<string, unknown>;
    assert.notEqual(tampered.description, signed.description);
    const changed = notOk(await verifyAgentCard(tampered, { keys: [es.jwk] }));
    assert.equal(changed.reason, 'bad-signature');
    // A changed byte in the signature itself.
    const sig = signed.signatures![0]!;
    const flipped = {
      ...overTheWire(signed),
      signatures: [{ ...sig, signature: (sig.signature[0] === 'A' ? 'B' : 'A') + sig.signature.slice(1) }],
    };
    assert.equal(notOk(await verifyAgentCard(flipped, { keys: [es.jwk] })).reason, 'bad-signature');
    assert.equal(
      notOk(await verifyAgentCard(overTheWire(signed), { keys: [other.jwk] })).reason,
      'bad-signature',
    );
    assert.equal(
      notOk(await verifyAgentCard(overTheWire(signed), { keys: [{ ...es.jwk, kid: 'other' }] })).reason,
      'no-trusted-key',
    );
    assert.equal(
      notOk(await verifyAgentCard(overTheWire(signed), { keys: [es.jwk], algorithms: ['RS256'] })).reason,
      'no-trusted-key',
    );
    assert.equal(notOk(await verifyAgentCard(sampleCard(), { keys: [es.jwk] })).reason, 'unsigned');
    const junk = { ...sampleCard(), signatures: [{ protected: '!!', signature: 'x' }] };
    assert.equal(notOk(await verifyAgentCard(junk, { keys: [es.jwk] })).reason, 'malformed');
    await assert.rejects(
      signAgentCard(sampleCard(), { privateKey: es.privateKey, alg: 'HS256' as 'ES256', kid: 'k' }),
      /cannot sign/,
    );
    await assert.rejects(
      signAgentCard(sampleCard(), { privateKey: es.jwk, alg: 'ES256', kid: 'k' }),
      /not a private key/,
    );
  });

  test("keys from a trusted JWKS URL; a signature's jku is followed only when trusted", async (t) => {
    const es = await keyPair('ES256', 'jwks-1');
    const server = await startJsonServer();
    t.after(() => server.close());
    server.set('/jwks.json', { keys: [es.jwk] });
    const jku = `${server.url}/jwks.json`;
    const wire = overTheWire(
      await signAgentCard(sampleCard(), { privateKey: es.privateKey, alg: 'ES256', kid: 'jwks-1', jku }),
    );
    const trusted = { jwks: jku };
    ok(await verifyAgentCard(wire, trusted));
    ok(await verifyAgentCard(wire, trusted));
    assert.equal(server.hits.get('/jwks.json'), 1, 'the JWKS is fetched once per options object');
    assert.equal(notOk(await verifyAgentCard(wire, {})).reason, 'no-trusted-key');
    assert.equal(notOk(await verifyAgentCard(wire, { trustJku: () => false })).reason, 'no-trusted-key');
    ok(await verifyAgentCard(wire, { trustJku: (u) => u.startsWith(server.url) }));
  });

  test('the resolver verify hook accepts a signed card and rejects a tampered one', async (t) => {
    const es = await keyPair('ES256', 'k');
    let served = JSON.stringify(
      await signAgentCard(sampleCard(), { privateKey: es.privateKey, alg: 'ES256', kid: 'k' }),
    );
    const server = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(served),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const resolver = new AgentCardResolver({ verify: cardSignatureVerifier({ keys: [es.jwk] }) });
    assert.equal((await resolver.resolve(url)).card.name, 'Café-Agent 漢字 🚀');
    served = served.replace('漢字', '漢子');
    await assert.rejects(resolver.resolve(url, { noCache: true }), AgentCardSignatureError);
    assert.throws(() => cardSignatureVerifier({}), /needs keys/);
  });
});

describe('card signatures interoperate with @a2a-js/sdk 1.3', () => {
  test('a card the SDK signs verifies in ours; one changed byte does not', async () => {
    for (const alg of ['ES256', 'RS256', 'EdDSA'] as const) {
      const k = await keyPair(alg, `sdk-${alg}`);
      const sign = generateAgentCardSignature(k.privateKey, { alg, typ: 'JOSE', kid: k.kid });
      // The SDK signs and serves the card as given (plus signatures).
      const signed = await sign(sampleCard() as unknown as Parameters<typeof sign>[0]);
      const wire = overTheWire(signed);
      const r = ok(await verifyAgentCard(wire, { keys: [k.jwk] }));
      assert.equal(r.kid, k.kid);
      const tampered = JSON.parse(JSON.stringify(signed).replace('🚀', '🚁')) as Record<string, unknown>;
      assert.equal(notOk(await verifyAgentCard(tampered, { keys: [k.jwk] })).reason, 'bad-signature', alg);
    }
  });

  test('SDK-signed cards with empty values verify through the 8.4.1 and empty-removed readings (N12)', async () => {
    const k = await keyPair('ES256', 'sdk-empty');
    const sign = generateAgentCardSignature(k.privateKey, { alg: 'ES256', typ: 'JOSE', kid: k.kid });
    const withPlainDefaults = {
      ...sampleCard(),
      supportedInterfaces: [{ ...sampleCard().supportedInterfaces[0]!, tenant: '' }],
    };
    const a = await sign(withPlainDefaults as unknown as Parameters<typeof sign>[0]);
    assert.equal(ok(await verifyAgentCard(overTheWire(a), { keys: [k.jwk] })).form, 'defaults-removed');
    // The SDK also drops an empty message ({}), which 8.4.1 keeps.
    const withMtls = {
      ...sampleCard(),
      securitySchemes: { mtls: { mtlsSecurityScheme: {} } },
      securityRequirements: [],
    };
    const b = await sign(withMtls as unknown as Parameters<typeof sign>[0]);
    assert.equal(ok(await verifyAgentCard(overTheWire(b), { keys: [k.jwk] })).form, 'empty-removed');
  });

  test('a card we sign verifies in the SDK verifier; one changed byte does not', async () => {
    for (const alg of ['ES256', 'RS256', 'EdDSA'] as const) {
      const k = await keyPair(alg, `ours-${alg}`);
      const signed = overTheWire(
        await signAgentCard(sampleCard(), { privateKey: k.privateKey, alg, kid: k.kid }),
      );
      const publicKey = (await importJWK(k.jwk, alg)) as CryptoKey;
      const kids: string[] = [];
      const verify = verifyAgentCardSignature(async (kid) => {
        kids.push(kid);
        return publicKey;
      });
      await verify(signed as unknown as Parameters<typeof verify>[0]);
      assert.deepEqual(kids, [k.kid]);
      const tampered = JSON.parse(JSON.stringify(signed).replace('Ελληνικά', 'Ελληνικα')) as unknown;
      await assert.rejects(verify(tampered as Parameters<typeof verify>[0]), /No valid signatures/, alg);
    }
  });
});
