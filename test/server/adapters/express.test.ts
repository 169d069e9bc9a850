/**
 * Express (issue 29): `app.use(server.nodeHandler)` at the root and `app.use(path, ...)` below
 * a path, the mount path named on the card (from Express's `req.baseUrl`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { checkBodyLimit, checkHost, checkOperations, hostTestServer } from './host-checks.js';

for (const mount of ['/', '/agents/echo']) {
  test(`Express: the server mounted at ${mount}`, async (t) => {
    const host = hostTestServer();
    const app = express();
    app.get('/health', (_req, res) => void res.send('fine'));
    app.use(mount, host.server.nodeHandler);
    const listening = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => listening.once('listening', () => resolve()));
    t.after(async () => {
      host.release();
      await host.server.close();
      listening.closeAllConnections();
      await new Promise<void>((resolve) => listening.close(() => resolve()));
    });
    const origin = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
    const base = origin + (mount === '/' ? '' : mount);
    await checkHost(base, host);
    assert.equal(await (await fetch(`${origin}/health`)).text(), 'fine');
    assert.equal((await fetch(`${base}/not-a2a`)).status, 404);
  });
}

test('Express: behind a body parser (express.json()) the parsed body is used, within the limit', async (t) => {
  const host = hostTestServer();
  const app = express();
  app.use(express.json({ limit: '1mb' }));
  app.use(host.server.nodeHandler);
  const listening = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => listening.once('listening', () => resolve()));
  t.after(async () => {
    host.release();
    await host.server.close();
    listening.closeAllConnections();
    await new Promise<void>((resolve) => listening.close(() => resolve()));
  });
  const base = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
  await checkOperations(base);
  await checkBodyLimit(base);
});
