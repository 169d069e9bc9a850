/**
 * SRV-PUSH-6 over TLS: the delivery worker POSTs to an https: receiver on 127.0.0.1 whose
 * certificate comes from a private CA, trusted through `push.tls.ca` (loopback allowed with
 * `allowHosts`, HTTP not allowed); without the CA the certificate is refused and nothing is sent.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { A2AClient } from '../../../src/client/client.js';
import { MemoryPushOutbox } from '../../../src/core/push/memory-outbox.js';
import { MemoryPushConfigStore } from '../../../src/core/stores/memory/push-config-store.js';
import { hasOpenssl, makePki, type Pki } from '../../support/pki.js';
import { kindOf, pushAgent, startPushServer, until } from './support.js';

interface HttpsHook {
  url: string;
  received: { headers: Record<string, unknown>; json: Record<string, unknown> }[];
  close(): Promise<void>;
}

async function startHttpsHook(pki: Pki): Promise<HttpsHook> {
  const hook: HttpsHook = { url: '', received: [], close: async () => {} };
  const server: Server = createServer({ key: pki.serverKey, cert: pki.serverCert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hook.received.push({
        headers: req.headers,
        json: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
      });
      res.writeHead(204);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  hook.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  hook.close = () => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  };
  return hook;
}

describe('push over HTTPS', { skip: hasOpenssl() ? false : 'openssl CLI not installed' }, () => {
  test('SRV-PUSH-6: a receiver with a private CA certificate gets every notification when push.tls.ca trusts it', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-push-tls-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const pki = makePki(dir);
    const hook = await startHttpsHook(pki);
    t.after(() => hook.close());
    const { agent } = pushAgent();
    const { server, url } = await startPushServer(agent, {
      allowHosts: ['127.0.0.1'],
      tls: { ca: pki.ca },
      baseDelayMs: 10,
      maxDelayMs: 50,
    });
    t.after(() => server.close());
    const client = await A2AClient.connect(url);
    t.after(() => client.close());
    await client.send({ text: 'steps:1', pushNotificationConfig: { url: hook.url, token: 'tls-token' } });
    await until(() => hook.received.length >= 3, 'three notifications over TLS');
    assert.deepEqual(
      hook.received.map((r) => kindOf(r.json)),
      ['task:WORKING', 'artifact:a0', 'status:COMPLETED'],
    );
    assert.equal(hook.received[0]!.headers['x-a2a-notification-token'], 'tls-token');
  });

  test('SRV-PUSH-6: without the CA the receiver certificate is refused: the delivery dies with the reason', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-push-tls-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const pki = makePki(dir);
    const hook = await startHttpsHook(pki);
    t.after(() => hook.close());
    const configs = new MemoryPushConfigStore();
    const outbox = new MemoryPushOutbox(configs);
    const { agent } = pushAgent();
    const { server, url } = await startPushServer(agent, {
      allowHosts: ['127.0.0.1'],
      configStore: configs,
      outbox,
      maxAttempts: 1,
    });
    t.after(() => server.close());
    const client = await A2AClient.connect(url);
    t.after(() => client.close());
    await client.send({ text: 'steps:0', pushNotificationConfig: { url: hook.url } });
    let dead: Awaited<ReturnType<typeof outbox.list>> = [];
    await until(() => {
      void outbox.list({ state: 'dead', limit: 10 }).then((found) => (dead = found));
      return dead.length >= 2;
    }, 'both notifications dead');
    assert.equal(hook.received.length, 0);
    for (const d of dead) assert.match(d.lastError ?? '', /certificate/i);
  });
});
