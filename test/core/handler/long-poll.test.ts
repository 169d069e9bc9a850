/**
 * GEN-3: long-polling GetTask is bounded per principal (in one tenant): past
 * `maxLongPollsPerPrincipal` a call answers at once, other principals are not affected, and
 * close() answers the held calls.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createCallContext } from '../../../src/core/context.js';
import { GENERATION_EXTENSION } from '../../../src/core/generation.js';
import type { Task } from '../../../src/model/schema.js';
import { createTestHandler, userMessage } from '../../support/handler.js';

function opted(principal: string) {
  return createCallContext({ principal: { id: principal }, requestedExtensions: [GENERATION_EXTENSION] });
}

test('GEN-3: past the bound a long poll answers at once; close() answers the held ones', async () => {
  const { handler } = createTestHandler((_ctx, task) => task.requireInput('more?'), {
    generation: { longPollMaxMs: 600_000, maxLongPollsPerPrincipal: 2 },
  });
  let closed = false;
  try {
    const sent = await handler.sendMessage({ message: userMessage('ask') }, opted('alice'));
    const task = (sent as { task: Task }).task;
    const request = { id: task.id, currentGeneration: task.generation! };
    let answered = 0;
    const held = [1, 2].map(() => handler.getTask(request, opted('alice')).then((t) => (answered++, t)));
    const third = await handler.getTask(request, opted('alice'));
    assert.equal(third.generation, task.generation);
    assert.equal(answered, 0, 'the first two are held');
    // Another principal's task is not found, and its bound is its own.
    await assert.rejects(handler.getTask(request, opted('bob')), /not found/i);
    await handler.close();
    closed = true;
    for (const t of await Promise.all(held)) assert.equal(t.generation, task.generation);
    assert.equal(answered, 2);
  } finally {
    if (!closed) await handler.close();
  }
});
