/**
 * The Node examples (issue 29): `npm start` in examples/express, examples/fastify and
 * examples/hono serves the streaming agent on $PORT; card, SendMessage, SSE, GetTask and
 * CancelTask from a2a-kit's client. (examples/nextjs, bun, deno and cloudflare-worker are run
 * by test/server/adapters/next.test.ts and test/runtimes/.)
 */
import { test } from 'node:test';
import { checkExampleAgent, startExample } from '../runtimes/support.js';

for (const name of ['express', 'fastify', 'hono']) {
  test(`examples/${name}: npm start`, async (t) => {
    const example = await startExample(name);
    t.after(() => example.stop());
    await checkExampleAgent(example.url);
  });
}
