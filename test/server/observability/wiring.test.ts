/**
 * The observability wrappers must not change what the server does: closing the server still
 * closes the handler (aborting running agents), a custom handler is still wrapped.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { A2AClient } from '../../../src/client/index.js';
import { createA2AServer } from '../../../src/server/index.js';
import { TEST_CARD } from '../../support/handler.js';

test('close() still closes the handler behind the interceptors: running agents are aborted', async () => {
  let started: (() => void) | undefined;
  const running = new Promise<void>((resolve) => (started = resolve));
  let aborted = false;
  const server = createA2AServer({
    agent: async (ctx, task) => {
      await task.working();
      started!();
      await new Promise<void>((resolve) =>
        ctx.signal.addEventListener('abort', () => resolve(), { once: true }),
      );
      aborted = true;
    },
    card: TEST_CARD,
    closeGraceMs: 50,
    onError: () => undefined,
  });
  const { url } = await server.listen(0, '127.0.0.1');
  const client = await A2AClient.connect(url);
  try {
    await client.send({ text: 'hold', returnImmediately: true });
    await running;
  } finally {
    await client.close();
    await server.close();
  }
  assert.equal(aborted, true, 'the agent was aborted by the handler closing');
});
