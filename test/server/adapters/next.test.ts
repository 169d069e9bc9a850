/**
 * Next.js App Router (issue 29): examples/nextjs serves one server from two catch-all route
 * files, `app/[...a2a]/route.js` (the root) and `app/agents/echo/[...a2a]/route.js` (below a
 * path), each `export const { GET, POST, DELETE } = a2aNext(server)`, under the real `next dev`
 * on 127.0.0.1: card (the mount path on it), SendMessage, SSE, GetTask, CancelTask, 413 over
 * the body limit. A client that drops a stream: test/runtimes/next-app, whose route serves
 * test/runtimes/disconnect-agent.mjs.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import {
  checkExampleAgent,
  checkStreamDrop,
  freePort,
  requireBuiltPackage,
  spawnWatched,
  startExample,
  waitForPort,
  type RunningExample,
} from '../../runtimes/support.js';

describe('Next.js App Router (examples/nextjs, next dev)', () => {
  let example: RunningExample | undefined;
  let origin = '';

  before(async () => {
    const port = await freePort();
    example = await startExample('nextjs', { port, ready: /Ready in/ });
    origin = `http://127.0.0.1:${port}`;
  });
  after(() => example?.stop());

  for (const mount of ['', '/agents/echo']) {
    test(`mounted at ${mount || '/'}`, async () => {
      await checkExampleAgent(origin + mount);
      const text = 'x'.repeat(128 * 1024);
      const response = await fetch(`${origin}${mount}/a2a/jsonrpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'SendMessage',
          params: { message: { messageId: 'm-big', role: 'ROLE_USER', parts: [{ text }] } },
        }),
      });
      assert.equal(response.status, 413);
      await response.arrayBuffer();
    });
  }
});

test('Next.js App Router: a streaming client that goes away: the stream stops, its signal aborts, the task runs on', async (t) => {
  await requireBuiltPackage();
  const port = await freePort();
  const next = createRequire(import.meta.url).resolve('next/dist/bin/next');
  const server = spawnWatched(
    process.execPath,
    [next, 'dev', 'test/runtimes/next-app', '--webpack', '--hostname', '127.0.0.1', '--port', String(port)],
    { ...process.env, NEXT_TELEMETRY_DISABLED: '1', NO_COLOR: '1' },
  );
  t.after(() => server.stop());
  await waitForPort(port);
  const url = `http://127.0.0.1:${port}`;
  // The first request compiles the route (10-15 s here): done by a plain fetch, which waits for
  // it, before the client's card fetch (which gives up after 15 s).
  const card = await fetch(`${url}/.well-known/agent-card.json`, { headers: { 'a2a-version': '1.0' } });
  assert.equal(card.status, 200, server.output());
  await card.arrayBuffer();
  await checkStreamDrop(url, server);
});
