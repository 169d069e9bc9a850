/**
 * The memory outbox (issue 12): one delivery per config per change, a config's deliveries one
 * at a time in order, leases that two workers never share, dead letters, replay, bounds.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryPushOutbox } from '../../../src/core/push/memory-outbox.js';
import { MemoryPushConfigStore } from '../../../src/core/stores/memory/push-config-store.js';
import { MemoryTaskStore } from '../../../src/core/stores/memory/task-store.js';
import type { StoredTask } from '../../../src/core/stores/task-store.js';
import { TaskVersionConflictError } from '../../../src/core/stores/task-store.js';
import type { StreamResponse } from '../../../src/model/schema.js';

const scope = { tenant: '', owner: 'alice' };
const attempt = { atMs: 0, durationMs: 1, ok: false, error: 'HTTP 500' };

function record(version: number, state = 'TASK_STATE_WORKING'): StoredTask {
  return {
    ...scope,
    task: {
      id: 't1',
      contextId: 'c1',
      status: { state: state as 'TASK_STATE_WORKING' },
      history: [],
      artifacts: [],
    },
    version,
    statusTimeMs: Date.now(),
  };
}
const event = (n: number): StreamResponse => ({
  statusUpdate: {
    taskId: 't1',
    contextId: 'c1',
    status: {
      state: 'TASK_STATE_WORKING',
      message: { messageId: `m${n}`, role: 'ROLE_AGENT', parts: [{ text: String(n) }] },
    },
  },
});

async function setup(configIds: string[], options = {}) {
  const configs = new MemoryPushConfigStore();
  for (const id of configIds)
    await configs.put(scope, { id, taskId: 't1', url: `https://example.com/${id}` });
  const store = new MemoryTaskStore();
  const outbox = new MemoryPushOutbox(configs, options);
  let version = 0;
  const change = async (n: number) => {
    await outbox.saveChange(store, record(version + 1), version, event(n));
    version++;
  };
  return { outbox, change, store };
}

describe('memory push outbox', () => {
  test('one delivery per config, in the StreamResponse shape, only when the save succeeds', async () => {
    const { outbox, change, store } = await setup(['a', 'b']);
    await change(1);
    assert.equal(outbox.pendingCount, 2);
    await assert.rejects(outbox.saveChange(store, record(5), 3, event(2)), TaskVersionConflictError);
    assert.equal(outbox.pendingCount, 2, 'a refused save enqueues nothing');
    const claimed = await outbox.claim('w1', 10, 60_000);
    assert.deepEqual(claimed.map((d) => d.configId).sort(), ['a', 'b']);
    assert.deepEqual(JSON.parse(claimed[0]!.payload), event(1));
  });

  test("a config's next delivery waits for the previous one; two workers never hold the same", async () => {
    const { outbox, change } = await setup(['a']);
    await change(1);
    await change(2);
    const first = await outbox.claim('w1', 10, 60_000);
    assert.equal(first.length, 1, 'only the head of the config');
    assert.deepEqual(await outbox.claim('w2', 10, 60_000), [], 'leased: not handed out again');
    // Settled by the holder only.
    assert.equal(await outbox.settle(first[0]!.id, 'w2', attempt, { outcome: 'delivered' }), false);
    assert.equal(
      await outbox.settle(first[0]!.id, 'w1', attempt, {
        outcome: 'retry',
        nextAttemptAtMs: 0,
        error: 'HTTP 500',
      }),
      true,
    );
    const again = await outbox.claim('w2', 10, 60_000);
    assert.equal(again[0]!.id, first[0]!.id, 'a retried delivery stays first');
    assert.equal(again[0]!.attempts, 1);
    await outbox.settle(again[0]!.id, 'w2', { ...attempt, ok: true }, { outcome: 'delivered' });
    const next = await outbox.claim('w1', 10, 60_000);
    assert.equal(JSON.parse(next[0]!.payload).statusUpdate.status.message.messageId, 'm2');
  });

  test('an expired lease is taken over, and the old holder can no longer settle', async () => {
    const { outbox, change } = await setup(['a']);
    await change(1);
    const [held] = await outbox.claim('w1', 1, 0);
    const [taken] = await outbox.claim('w2', 1, 60_000);
    assert.equal(taken!.id, held!.id);
    assert.equal(await outbox.settle(held!.id, 'w1', attempt, { outcome: 'delivered' }), false);
    assert.equal(await outbox.settle(taken!.id, 'w2', attempt, { outcome: 'delivered' }), true);
  });

  test('dead letters unblock the config; attempts are listed; replay puts one back', async () => {
    const { outbox, change } = await setup(['a']);
    await change(1);
    await change(2);
    const [first] = await outbox.claim('w', 1, 60_000);
    await outbox.settle(first!.id, 'w', attempt, { outcome: 'dead', error: 'gave up' });
    const [second] = await outbox.claim('w', 1, 60_000);
    assert.notEqual(second!.id, first!.id);
    assert.deepEqual(
      (await outbox.list({ state: 'dead', limit: 10 })).map((d) => d.id),
      [first!.id],
    );
    assert.deepEqual(await outbox.attempts(first!.id), [attempt]);
    assert.equal(await outbox.replay(second!.id), false, 'only dead deliveries are replayed');
    assert.equal(await outbox.replay(first!.id), true);
    const replayed = await outbox.get(first!.id);
    assert.equal(replayed?.state, 'pending');
    assert.equal(replayed?.attempts, 0);
  });

  test('bounds: beyond maxPending a notification is dead at once; finished ones are forgotten oldest first', async () => {
    const { outbox, change } = await setup(['a'], { maxPending: 2, maxFinished: 3 });
    for (let i = 0; i < 6; i++) await change(i);
    assert.equal(outbox.pendingCount, 2);
    const dead = await outbox.list({ state: 'dead', limit: 100 });
    assert.equal(dead.length, 3, 'four overflowed, the oldest forgotten');
    assert.match(dead[0]!.lastError ?? '', /outbox is full/);
  });

  test('a task without configs costs no delivery', async () => {
    const { outbox, change } = await setup([]);
    await change(1);
    assert.equal(outbox.pendingCount, 0);
    assert.equal(outbox.nextDueAtMs(), undefined);
  });
});
