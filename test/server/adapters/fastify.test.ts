/**
 * Fastify (issue 29): `fastify.register(a2aFastify, { server })`, at the root and with a
 * `prefix`; Fastify's JSON parser and body limit stay on the app's own routes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { a2aFastify } from '../../../src/server/adapters/fastify.js';
import { checkHost, hostTestServer } from './host-checks.js';

for (const prefix of ['', '/agents/echo']) {
  test(`Fastify: the plugin registered ${prefix ? `with prefix ${prefix}` : 'at the root'}`, async (t) => {
    const host = hostTestServer();
    const app = Fastify();
    app.post('/echo-json', async (request) => ({ got: request.body }));
    await app.register(a2aFastify, { server: host.server, ...(prefix ? { prefix } : {}) });
    const origin = await app.listen({ port: 0, host: '127.0.0.1' });
    t.after(async () => {
      host.release();
      await host.server.close();
      await app.close();
    });
    const base = origin + prefix;
    await checkHost(base, host);
    // The app's own routes keep Fastify's parsing; unknown paths get Fastify's 404.
    const own = await fetch(`${origin}/echo-json`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    assert.deepEqual(await own.json(), { got: { a: 1 } });
    const missing = await fetch(`${base}/not-a2a`);
    assert.equal(missing.status, 404);
    assert.match(await missing.text(), /Route GET:.*not found/);
  });
}
