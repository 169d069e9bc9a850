/**
 * Next.js App Router (issue 29): examples/nextjs serves one server from two catch-all route
 * files, `app/[...a2a]/route.js` (the root) and `app/agents/echo/[...a2a]/route.js` (below a
 * path), each `export const { GET, POST, DELETE } = a2aNext(server)`, under the real `next dev`
 * on 127.0.0.1: card (the mount path on it), SendMessage, SSE, GetTask, CancelTask, 413 over
 * the body limit. Cancellation on disconnect is the fetch adapter's (see hono.test.ts): Next
 * hands the route the request's own signal.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkExampleAgent, freePort, startExample, type RunningExample } from '../../runtimes/support.js';

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
