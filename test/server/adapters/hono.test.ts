/** Hono (issue 29): `app.route(path, a2aHono(server))` on @hono/node-server, at the root and below a path. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { Hono } from 'hono';
import { serve } from '@hono/node-server';
import { a2aHono } from '../../../src/server/adapters/hono.js';
import { checkHost, hostTestServer } from './host-checks.js';

for (const mount of ['/', '/agents/echo']) {
  test(`Hono: the server mounted at ${mount}`, async (t) => {
    const host = hostTestServer();
    const app = new Hono();
    app.get('/health', (c) => c.text('fine'));
    app.route(mount, a2aHono(host.server));
    const listening = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise<void>((resolve) => listening.once('listening', () => resolve()));
    t.after(async () => {
      host.release();
      await host.server.close();
      await new Promise<void>((resolve) => listening.close(() => resolve()));
    });
    const origin = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
    const base = origin + (mount === '/' ? '' : mount);
    await checkHost(base, host);
    // The app's own routes and 404 still answer.
    assert.equal(await (await fetch(`${origin}/health`)).text(), 'fine');
    assert.equal((await fetch(`${base}/not-a2a`)).status, 404);
  });
}
