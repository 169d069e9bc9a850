/**
 * Issue 27, suspected item: push delivery attempts are logged (the server's `pushLogger` was
 * never wired). A webhook on 127.0.0.1 that answers 500 gives a `retrying` line, then a
 * `failed` one when the attempts run out; a webhook that answers 204 gives a `delivered` line
 * at debug. No line carries the config's token, credentials or the URL's query.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { A2AClient } from '../../../src/client/client.js';
import { createA2AServer } from '../../../src/server/http.js';
import { until } from './support.js';

const TOKEN = 'config-token-3f9a8b7c6d';
const CREDENTIALS = 'config-credentials-0e1d2c3b';
const URL_SECRET = 'query-secret-5a4b3c2d';

test('a failing and a working webhook each leave their lines; no secret in any', async (t) => {
  const lines: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
  let posts = 0;
  const hook = createServer((req, res) => {
    posts++;
    req.resume();
    req.on('end', () => res.writeHead(req.url?.startsWith('/bad') ? 500 : 204).end());
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  t.after(
    () =>
      new Promise<void>((r) => {
        hook.closeAllConnections();
        hook.close(() => r());
      }),
  );
  const hookBase = `http://127.0.0.1:${(hook.address() as AddressInfo).port}`;
  const server = createA2AServer({
    agent: async (_ctx, task) => task.complete('done'),
    card: {
      name: 'logged-push',
      description: 'd',
      version: '1',
      skills: [{ id: 's', name: 'S', description: 'd', tags: ['t'] }],
    },
    store: 'memory',
    logger,
    pushNotifications: true,
    push: {
      allowHttp: true,
      allowHosts: ['127.0.0.1'],
      maxAttempts: 2,
      baseDelayMs: 10,
      maxDelayMs: 20,
      senderThread: false,
    },
  });
  const { url } = await server.listen(0, '127.0.0.1');
  t.after(() => server.close());
  const client = await A2AClient.connect(url);
  t.after(() => client.close());
  for (const path of ['/bad', '/good']) {
    await client.send({
      text: 'go',
      pushNotificationConfig: {
        url: `${hookBase}${path}?key=${URL_SECRET}`,
        token: TOKEN,
        authentication: { scheme: 'Bearer', credentials: CREDENTIALS },
      },
    });
  }
  const pushLines = () =>
    lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((e) => e.msg === 'push delivery');
  await until(
    () =>
      pushLines().some((e) => e.outcome === 'failed') && pushLines().some((e) => e.outcome === 'delivered'),
    'a failed and a delivered line',
  );
  const bad = pushLines().filter((e) => String(e.url).includes('/bad'));
  assert.deepEqual(
    bad.map((e) => [e.outcome, e.attempt, e.httpStatus, e.level]),
    [
      ['retrying', 1, 500, 40],
      ['failed', 2, 500, 50],
    ],
  );
  const good = pushLines().find((e) => String(e.url).includes('/good'));
  assert.equal(good?.outcome, 'delivered');
  assert.equal(good?.level, 20);
  assert.equal(good?.url, `${hookBase}/good`);
  assert.ok(posts >= 3);
  const all = lines.join('\n');
  for (const secret of [TOKEN, CREDENTIALS, URL_SECRET])
    assert.ok(!all.includes(secret), `${secret} was logged`);
});
