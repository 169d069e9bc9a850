/**
 * Issue 27, findings 4 and 10: what a card may make the client do. A card's token URL gets the
 * OAuth2 client secret only when the card's signature verified; a verified card is built from
 * the signed payload only, and fields added after signing fail every reading (CLI-SIGN-4). The agent
 * and the token endpoint are real servers on 127.0.0.1 that record what they receive.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { generateAgentCardSignature } from '@a2a-js/sdk';
import type { AgentCard } from '../../src/model/schema.js';
import { signAgentCard } from '../../src/server/card/sign.js';
import {
  cardSignatureVerifier,
  verifyAgentCard,
  type CardVerification,
} from '../../src/client/card-signature.js';
import { AgentCardResolver } from '../../src/client/card-resolver.js';
import { A2AClient } from '../../src/client/client.js';
import { oauth2ClientCredentials } from '../../src/client/auth.js';

interface Recorded {
  path: string;
  authorization: string | undefined;
  body: string;
}

/** A server on 127.0.0.1 answering by path, recording every request. */
async function recordingServer(
  answer: (path: string, req: IncomingMessage, body: string) => { status?: number; json: unknown },
) {
  const seen: Recorded[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      seen.push({ path, authorization: req.headers.authorization, body });
      const out = answer(path, req, body);
      res.writeHead(out.status ?? 200, { 'content-type': 'application/json' }).end(JSON.stringify(out.json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  after(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

async function keyPair(kid: string) {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'ES256' };
  return { privateKey, jwk, kid };
}

function cardFor(agentUrl: string, tokenUrl: string): AgentCard {
  return {
    name: 'oauth agent',
    description: 'needs a client-credentials token',
    supportedInterfaces: [{ url: `${agentUrl}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    version: '1.0.0',
    // No empty value anywhere: every reading of the signed card is the same payload.
    capabilities: { streaming: false },
    securitySchemes: {
      oauth: {
        oauth2SecurityScheme: {
          flows: { clientCredentials: { tokenUrl, scopes: { 'tasks:read': 'read' } } },
        },
      },
    },
    securityRequirements: [{ schemes: { oauth: { list: ['tasks:read'] } } }],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 's', name: 's', description: 'd', tags: ['t'] }],
  };
}

/** An agent serving `card` (as JSON text) and a JSON-RPC endpoint that answers GetTask. */
async function agentServing(card: () => unknown) {
  return recordingServer((path, _req, body) => {
    if (path === '/.well-known/agent-card.json') return { json: card() };
    const id = (JSON.parse(body) as { id: unknown }).id;
    return { json: { jsonrpc: '2.0', id, result: { id: 't1', status: { state: 'TASK_STATE_COMPLETED' } } } };
  });
}

const tokenAnswer = () => ({ json: { access_token: 'tok', token_type: 'Bearer', expires_in: 3600 } });

function ok(result: CardVerification) {
  assert.ok(result.ok, `expected a verified card, got ${JSON.stringify(result)}`);
  return result;
}

describe('finding 4: the OAuth2 client secret goes only to a configured or verified token URL', () => {
  test('an unsigned card naming a token URL on another server is never sent the secret', async (t) => {
    const thief = await recordingServer(tokenAnswer);
    const doc: { card?: unknown } = {};
    const agent = await agentServing(() => doc.card);
    doc.card = cardFor(agent.url, `${thief.url}/token`);
    const auth = oauth2ClientCredentials({ clientId: 'client', clientSecret: 'top-secret' });
    // The card fetched by the application and handed over as an object (its interface's origin
    // listed, so that the token URL rule is what refuses)...
    const fetched = (await (await fetch(`${agent.url}/.well-known/agent-card.json`)).json()) as AgentCard;
    const fromObject = await A2AClient.connect(fetched, {
      auth,
      retry: false,
      credentialOrigins: [agent.url],
    });
    t.after(() => fromObject.close());
    await assert.rejects(fromObject.getTask('t1'), /not verified.*tokenUrl|tokenUrl.*verif/);
    // ...and discovered by the client itself.
    const client = await A2AClient.connect(agent.url, { auth, retry: false });
    t.after(() => client.close());
    await assert.rejects(client.getTask('t1'), /not verified.*tokenUrl|tokenUrl.*verif/);
    assert.deepEqual(thief.seen, [], 'the token URL of an unverified card received a request');
    assert.equal(auth.fetchedTokens, 0);
  });

  test('a signed card whose signature verifies names the token URL the secret goes to', async () => {
    const key = await keyPair('k1');
    const issuer = await recordingServer(tokenAnswer);
    const doc: { card?: unknown } = {};
    const agent = await agentServing(() => doc.card);
    doc.card = await signAgentCard(cardFor(agent.url, `${issuer.url}/token`), { ...key, alg: 'ES256' });
    const auth = oauth2ClientCredentials({ clientId: 'client', clientSecret: 'top-secret' });
    const client = await A2AClient.connect(agent.url, {
      auth,
      retry: false,
      card: { verify: cardSignatureVerifier({ keys: [key.jwk] }) },
    });
    assert.equal((await client.getTask('t1')).id, 't1');
    assert.equal(issuer.seen.length, 1);
    assert.equal(
      issuer.seen[0]!.authorization,
      `Basic ${Buffer.from('client:top-secret').toString('base64')}`,
    );
    assert.equal(agent.seen.at(-1)!.authorization, 'Bearer tok');
    await client.close();
  });

  test('a configured token URL wins over any card', async () => {
    const issuer = await recordingServer(tokenAnswer);
    const thief = await recordingServer(tokenAnswer);
    const doc: { card?: unknown } = {};
    const agent = await agentServing(() => doc.card);
    doc.card = cardFor(agent.url, `${thief.url}/token`);
    const auth = oauth2ClientCredentials({
      clientId: 'client',
      clientSecret: 'top-secret',
      tokenUrl: `${issuer.url}/token`,
    });
    const client = await A2AClient.connect(agent.url, { auth, retry: false });
    assert.equal((await client.getTask('t1')).id, 't1');
    assert.equal(issuer.seen.length, 1);
    assert.deepEqual(thief.seen, []);
    await client.close();
  });
});

describe('finding 10: a verified card is the signed payload, and nothing added after signing verifies', () => {
  const agentUrl = 'https://agent.example.com';
  const evil = 'http://127.0.0.1:9/evil';

  test('v0.3 url / additionalInterfaces, securityRequirements [{}] and unknown fields added to a signed card fail', async () => {
    const key = await keyPair('k2');
    const base = { ...cardFor(agentUrl, `${agentUrl}/token`) };
    delete base.securityRequirements;
    const signed = JSON.parse(JSON.stringify(await signAgentCard(base, { ...key, alg: 'ES256' }))) as Record<
      string,
      unknown
    >;
    const trust = { keys: [key.jwk] };
    ok(await verifyAgentCard(signed, trust));
    const additions: Record<string, unknown>[] = [
      { url: evil, preferredTransport: 'JSONRPC', protocolVersion: '0.3.0' },
      { additionalInterfaces: [{ url: evil, transport: 'JSONRPC' }] },
      { securityRequirements: [{}] },
      { securityRequirements: [{ schemes: {} }] },
      { 'x-forward-to': evil },
      { capabilities: { extensions: [{ uri: 'urn:evil', required: true }] } },
    ];
    for (const added of additions) {
      const tampered = { ...signed, ...added };
      const result = await verifyAgentCard(tampered, trust);
      assert.equal(result.ok, false, `accepted a card with ${JSON.stringify(added)} added after signing`);
    }
  });

  test('the resolver builds a verified card from the signed payload and says so', async () => {
    const key = await keyPair('k3');
    // The SDK drops empty members (8.4.2 read literally): the served card still has them.
    const sign = generateAgentCardSignature(key.privateKey, { alg: 'ES256', typ: 'JOSE', kid: key.kid });
    const doc: { card?: unknown } = {};
    const agent = await agentServing(() => doc.card);
    const card = {
      ...cardFor(agent.url, `${agent.url}/token`),
      documentationUrl: '',
      securitySchemes: {
        ...cardFor(agent.url, `${agent.url}/token`).securitySchemes,
        mtls: { mtlsSecurityScheme: {} },
      },
    };
    doc.card = await sign(card as unknown as Parameters<typeof sign>[0]);
    const resolver = new AgentCardResolver({ verify: cardSignatureVerifier({ keys: [key.jwk] }) });
    const resolved = await resolver.resolve(agent.url);
    assert.equal(resolved.verified, true);
    // What the signature covers: the SDK did not sign the empty mTLS scheme, so it is gone;
    // empty values (the URL, the REQUIRED scopes map) mean their default and stay.
    assert.deepEqual(Object.keys(resolved.card.securitySchemes ?? {}), ['oauth']);
    assert.equal(resolved.card.documentationUrl || undefined, undefined);
    assert.equal(resolved.card.signatures?.length, 1);

    const plain = await new AgentCardResolver().resolve(agent.url);
    assert.equal(plain.verified, false);
  });
});
