/**
 * Mutual TLS: a CA, a server certificate and client certificates made here with the openssl
 * CLI, a real HTTPS server on 127.0.0.1 that requests client certificates, and the request
 * view built from node:https.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  authRequestFromNode,
  createMutualTlsAuthenticator,
  createSecurityGate,
  httpsServerOptions,
  readTlsConfig,
  type Authenticator,
} from '../../../src/server/auth/index.js';
import { hasOpenssl, makePki, type Pki } from '../../support/pki.js';

/** An HTTPS server that answers each request with the gate's outcome as JSON. */
async function startHttps(pki: Pki, authenticate: Authenticator['authenticate']) {
  const server = createServer(
    httpsServerOptions({ key: pki.serverKey, cert: pki.serverCert, clientCa: pki.ca }),
    (req, res) => {
      authenticate(authRequestFromNode(req)).then(
        (outcome) =>
          res
            .writeHead(outcome.ok ? 200 : 401, { 'content-type': 'application/json' })
            .end(JSON.stringify(outcome)),
        (error: unknown) => res.writeHead(500).end(String(error)),
      );
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function call(
  port: number,
  pki: Pki,
  identity?: { key: Buffer; cert: Buffer },
): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/a2a/jsonrpc',
        method: 'POST',
        ca: pki.ca,
        agent: false,
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
    req.end();
  });
}

describe('mutual TLS', { skip: hasOpenssl() ? false : 'openssl CLI not installed' }, () => {
  test('a client certificate from the trusted CA names the principal; none or a stranger is refused', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-mtls-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const pki = makePki(dir);
    const mtls = createMutualTlsAuthenticator();
    assert.deepEqual(mtls.scheme, { mtlsSecurityScheme: {} });
    const server = await startHttps(pki, (r) => mtls.authenticate(r));
    t.after(() => server.close());

    const good = await call(server.port, pki, pki.client);
    assert.equal(good.status, 200);
    const principal = good.body.principal as { id: string; schemes: string[]; claims: { issuer: string } };
    assert.equal(principal.id, 'O=Acme,CN=alice');
    assert.deepEqual(principal.schemes, ['mtls']);
    assert.equal(principal.claims.issuer, 'O=Test,CN=ca');

    const none = await call(server.port, pki);
    assert.equal(none.status, 401);
    assert.equal((none.body.failure as { kind: string }).kind, 'missing');

    // Same subject, signed by a CA the server does not trust.
    const stranger = await call(server.port, pki, pki.stranger);
    assert.equal(stranger.status, 401);
    assert.equal((stranger.body.failure as { kind: string }).kind, 'invalid');
  });

  test('TLS settings read from PEM files; TLS 1.2 is the oldest version offered', (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-mtls-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const pki = makePki(dir);
    const config = readTlsConfig({
      certFile: join(dir, 'server.crt'),
      keyFile: join(dir, 'server.key'),
      clientCaFile: join(dir, 'ca.crt'),
    });
    assert.deepEqual(config.clientCa, pki.ca);
    const options = httpsServerOptions(config);
    assert.equal(options.minVersion, 'TLSv1.2');
    assert.equal(options.requestCert, true);
    assert.equal(options.rejectUnauthorized, false);
    const plain = httpsServerOptions({ cert: config.cert, key: config.key });
    assert.equal(plain.requestCert, undefined);
  });

  test('CN mapping, and scopes from a custom mapping checked by the gate', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-mtls-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const pki = makePki(dir);
    const byCn = createMutualTlsAuthenticator({ principal: 'cn' });
    const scoped = createMutualTlsAuthenticator({
      name: 'clientCert',
      principal: (cert) => (cert.commonName ? { id: cert.commonName, scopes: ['tasks:read'] } : undefined),
    });
    const readGate = createSecurityGate({
      authenticators: [scoped],
      requirements: [{ schemes: { clientCert: { list: ['tasks:read'] } } }],
    });
    const writeGate = createSecurityGate({
      authenticators: [scoped],
      requirements: [{ schemes: { clientCert: { list: ['tasks:write'] } } }],
    });
    const s1 = await startHttps(pki, (r) => byCn.authenticate(r));
    t.after(() => s1.close());
    const s2 = await startHttps(pki, (r) => readGate.authenticate(r));
    t.after(() => s2.close());
    const s3 = await startHttps(pki, (r) => writeGate.authenticate(r));
    t.after(() => s3.close());
    assert.equal(((await call(s1.port, pki, pki.client)).body.principal as { id: string }).id, 'alice');
    assert.equal((await call(s2.port, pki, pki.client)).status, 200);
    const denied = await call(s3.port, pki, pki.client);
    assert.equal((denied.body.failure as { kind: string }).kind, 'insufficient-scope');
  });
});
