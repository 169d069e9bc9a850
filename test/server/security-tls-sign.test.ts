/**
 * createA2AServer's `tls` (HTTPS and gRPC over TLS, mutual TLS with a test CA made here: the
 * certificate names the principal through `createMutualTlsAuthenticator`) and `sign` (the
 * served card carries a JWS that verifies against the public key, and not once changed).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { credentials } from '@grpc/grpc-js';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { GrpcTransport } from '../../src/bindings/grpc/client.js';
import { verifyAgentCard } from '../../src/client/card-signature.js';
import { createMutualTlsAuthenticator } from '../../src/server/auth/index.js';
import { createA2AServer } from '../../src/server/http.js';
import { hasOpenssl, makePki, type Pki } from '../support/pki.js';

const card = {
  name: 'tls',
  description: 'Über TLS',
  version: '1.0.0',
  skills: [{ id: 's', name: 'S', description: 'S', tags: ['t'] }],
};

function rpc(
  port: number,
  pki: Pki,
  identity?: { key: Buffer; cert: Buffer },
): Promise<{ status: number; body: Record<string, unknown> }> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'SendMessage',
    params: { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
  });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/a2a/jsonrpc',
        method: 'POST',
        ca: pki.ca,
        agent: false,
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        ...identity,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('tls option', { skip: hasOpenssl() ? false : 'openssl CLI not installed' }, () => {
  test('HTTPS and gRPC over TLS; the client certificate names the principal (mutual TLS)', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-tls-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const pki = makePki(dir);
    writeFileSync(join(dir, 'client-ca.pem'), pki.ca);
    const server = createA2AServer({
      agent: async (ctx, task) => task.complete(`hello ${ctx.principal.id}`),
      card,
      grpc: { port: 0, host: '127.0.0.1' },
      tls: {
        certFile: join(dir, 'server.crt'),
        keyFile: join(dir, 'server.key'),
        clientCaFile: join(dir, 'client-ca.pem'),
      },
      security: { authenticators: [createMutualTlsAuthenticator({ principal: 'cn' })] },
    });
    const info = await server.listen(0, '127.0.0.1');
    t.after(() => server.close());
    assert.match(info.url, /^https:\/\//);
    assert.deepEqual(server.card().securitySchemes, { mtls: { mtlsSecurityScheme: {} } });

    const ok = await rpc(info.port, pki, pki.client);
    assert.equal(ok.status, 200);
    assert.match(JSON.stringify(ok.body.result), /hello mtls:alice/);
    const none = await rpc(info.port, pki);
    assert.equal(none.status, 401);
    const stranger = await rpc(info.port, pki, pki.stranger);
    assert.equal(stranger.status, 401);

    const grpc = new GrpcTransport(`127.0.0.1:${info.grpcPort}`, {
      credentials: credentials.createSsl(pki.ca, pki.client.key, pki.client.cert),
    });
    t.after(() => grpc.close());
    const res = await grpc.sendMessage({
      message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }] },
    });
    assert.ok('task' in res && res.task);
    assert.match(JSON.stringify(res.task), /hello mtls:alice/);
    // gRPC refuses a missing client certificate in the handshake.
    const anonymous = new GrpcTransport(`127.0.0.1:${info.grpcPort}`, {
      credentials: credentials.createSsl(pki.ca),
    });
    t.after(() => anonymous.close());
    await assert.rejects(anonymous.listTasks({}));
  });
});

describe('sign option', () => {
  test('the served card is signed; it verifies against the public key, a changed byte does not', async (t) => {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'card-1', alg: 'ES256' };
    const server = createA2AServer({
      agent: async (_ctx, task) => task.complete('x'),
      card,
      sign: { keys: { privateKey, alg: 'ES256', kid: 'card-1' } },
    });
    const { url } = await server.listen(0, '127.0.0.1');
    t.after(() => server.close());
    const text = await (await fetch(`${url}/.well-known/agent-card.json`)).text();
    const json = JSON.parse(text) as { signatures?: unknown[]; description: string };
    assert.equal(json.signatures?.length, 1);
    const verified = await verifyAgentCard(json, { keys: [jwk] });
    assert.ok(verified.ok, JSON.stringify(verified));
    const changed = JSON.parse(text.replace('Über', 'Uber')) as unknown;
    const bad = await verifyAgentCard(changed, { keys: [jwk] });
    assert.equal(bad.ok, false);
  });
});
