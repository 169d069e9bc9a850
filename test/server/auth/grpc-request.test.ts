/**
 * The request view of real grpc-js calls: credentials in metadata (API key, bearer) on an
 * insecure channel, and a client certificate on a mutual-TLS HTTP/2 channel with a test CA.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import {
  authRequestFromGrpc,
  createApiKeyAuthenticator,
  createMutualTlsAuthenticator,
  createSecurityGate,
  type AuthOutcome,
  type SecurityGate,
} from '../../../src/server/auth/index.js';
import { grpcServerCredentials } from '../../../src/bindings/grpc/credentials.js';
import { hasOpenssl, makePki } from '../../support/pki.js';

const raw = (b: Buffer) => b;
const SERVICE = {
  Who: {
    path: '/test.Auth/Who',
    requestStream: false,
    responseStream: false,
    requestSerialize: raw,
    requestDeserialize: raw,
    responseSerialize: raw,
    responseDeserialize: raw,
  },
} satisfies grpc.ServiceDefinition;

/** A gRPC server whose one method answers with the gate's outcome (and the path it saw). */
async function startGrpc(gate: SecurityGate, credentials: grpc.ServerCredentials) {
  const server = new grpc.Server();
  server.addService(SERVICE, {
    Who: (call: grpc.ServerUnaryCall<Buffer, Buffer>, done: grpc.sendUnaryData<Buffer>) => {
      const request = authRequestFromGrpc(call);
      gate.authenticate(request).then(
        (outcome) => done(null, Buffer.from(JSON.stringify({ outcome, path: request.url.pathname }))),
        (error: Error) => done(error),
      );
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', credentials, (error, p) => (error ? reject(error) : resolve(p))),
  );
  return { port, close: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())) };
}

function who(
  port: number,
  credentials: grpc.ChannelCredentials,
  metadata = new grpc.Metadata(),
  options: grpc.ChannelOptions = {},
): Promise<{ outcome: AuthOutcome; path: string }> {
  const Client = grpc.makeGenericClientConstructor(SERVICE, 'Auth');
  const client = new Client(`127.0.0.1:${port}`, credentials, options);
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(SERVICE.Who.path, raw, raw, Buffer.alloc(0), metadata, (error, value) => {
      client.close();
      if (error) reject(error);
      else resolve(JSON.parse(value!.toString()) as { outcome: AuthOutcome; path: string });
    });
  });
}

describe('authentication from gRPC calls', () => {
  test('an API key in metadata is read like a header; binary metadata is ignored', async (t) => {
    const gate = createSecurityGate({
      authenticators: [createApiKeyAuthenticator({ keys: { 'k-1': 'svc' } })],
    });
    const server = await startGrpc(gate, grpc.ServerCredentials.createInsecure());
    t.after(() => server.close());
    const md = new grpc.Metadata();
    md.set('X-API-Key', 'k-1');
    md.set('trace-bin', Buffer.from([1, 2, 3]));
    const good = await who(server.port, grpc.credentials.createInsecure(), md);
    assert.equal(good.path, '/test.Auth/Who');
    assert.ok(good.outcome.ok && good.outcome.principal.id === 'apiKey:svc');
    const none = await who(server.port, grpc.credentials.createInsecure());
    assert.equal(none.outcome.ok, false);
  });

  test(
    'mutual TLS over HTTP/2: the verified client certificate names the principal',
    { skip: hasOpenssl() ? false : 'openssl CLI not installed' },
    async (t) => {
      const dir = mkdtempSync(join(tmpdir(), 'a2a-grpc-mtls-'));
      t.after(() => rmSync(dir, { recursive: true, force: true }));
      const pki = makePki(dir);
      const gate = createSecurityGate({
        authenticators: [createMutualTlsAuthenticator({ principal: 'cn' })],
      });
      const server = await startGrpc(
        gate,
        grpcServerCredentials({ key: pki.serverKey, cert: pki.serverCert, clientCa: pki.ca }),
      );
      t.after(() => server.close());
      const good = await who(
        server.port,
        grpc.credentials.createSsl(pki.ca, pki.client.key, pki.client.cert),
      );
      assert.ok(good.outcome.ok, JSON.stringify(good.outcome));
      assert.equal(good.outcome.principal.id, 'mtls:alice');
      // A certificate from another CA never completes the handshake.
      await assert.rejects(
        who(server.port, grpc.credentials.createSsl(pki.ca, pki.stranger.key, pki.stranger.cert)),
      );
    },
  );
});
