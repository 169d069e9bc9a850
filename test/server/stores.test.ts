import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TaskState } from '../../src/model/enums.js';
import { InProcessEventBus } from '../../src/server/event-bus/in-process.js';
import type { TaskEvent } from '../../src/server/event-bus/event-bus.js';
import { MemoryPushConfigStore, MemoryTaskStore } from '../../src/server/stores/memory.js';
import { TaskVersionConflictError, type StoredTask } from '../../src/server/stores/task-store.js';
import { TaskManager } from '../../src/server/task-manager.js';
import { userMessage } from '../support/handler.js';

const scope = { tenant: 't', owner: 'alice' };

function record(id: string, ms: number, version = 1, contextId = 'c'): StoredTask {
  return {
    tenant: 't',
    owner: 'alice',
    version,
    statusTimeMs: ms,
    task: { id, contextId, status: { state: TaskState.WORKING, timestamp: new Date(ms).toISOString() } },
  };
}

describe('MemoryTaskStore', () => {
  test('save is compare-and-set on the version', async () => {
    const store = new MemoryTaskStore();
    await store.save(record('a', 1), 0);
    await assert.rejects(store.save(record('a', 2), 0), TaskVersionConflictError);
    await assert.rejects(store.save(record('a', 2, 3), 1), TaskVersionConflictError);
    await store.save(record('a', 2, 2), 1);
    assert.equal((await store.get(scope, 'a'))?.version, 2);
    assert.equal(await store.get({ tenant: 't', owner: 'bob' }, 'a'), undefined);
    assert.equal(await store.get({ tenant: 'u', owner: 'alice' }, 'a'), undefined);
  });

  test('list orders newest first with id tie-break and continues after a position', async () => {
    const store = new MemoryTaskStore();
    await store.save(record('a', 10), 0);
    await store.save(record('b', 20), 0);
    await store.save(record('c', 20), 0);
    await store.save(record('d', 5, 1, 'other'), 0);
    const all = await store.list({ ...scope, limit: 10 });
    assert.deepEqual(
      all.tasks.map((r) => r.task.id),
      ['c', 'b', 'a', 'd'],
    );
    const page = await store.list({ ...scope, limit: 2, after: { statusTimeMs: 20, id: 'c' } });
    assert.deepEqual(
      page.tasks.map((r) => r.task.id),
      ['b', 'a'],
    );
    assert.equal(page.hasMore, true);
    assert.equal(page.totalSize, 4);
    const filtered = await store.list({ ...scope, limit: 10, contextId: 'c', statusTimeAtOrAfterMs: 10 });
    assert.deepEqual(
      filtered.tasks.map((r) => r.task.id),
      ['c', 'b', 'a'],
    );
  });

  test('an idempotency key is claimed once', async () => {
    const store = new MemoryTaskStore({ maxIdempotencyRecords: 2 });
    const key = { tenant: '', principal: 'p', messageId: 'm' };
    assert.equal(await store.claimIdempotencyKey(key, { status: 'pending', taskId: 't1' }), undefined);
    assert.deepEqual(await store.claimIdempotencyKey(key, { status: 'pending', taskId: 't2' }), {
      status: 'pending',
      taskId: 't1',
    });
    await store.setIdempotencyRecord(key, undefined);
    assert.equal(await store.claimIdempotencyKey(key, { status: 'pending', taskId: 't3' }), undefined);
  });
});

describe('MemoryPushConfigStore', () => {
  test('configs are per scope and task, returned as copies', async () => {
    const store = new MemoryPushConfigStore();
    const stored = await store.put(scope, { id: 'x', taskId: 'a', url: 'https://h' });
    stored.url = 'changed';
    assert.equal((await store.get(scope, 'a', 'x'))?.url, 'https://h');
    assert.equal(await store.get({ tenant: 't', owner: 'bob' }, 'a', 'x'), undefined);
    assert.equal(await store.delete(scope, 'a', 'x'), true);
    assert.equal(await store.delete(scope, 'a', 'x'), false);
  });
});

describe('TaskManager', () => {
  test('persists before publishing, in per-task order, and refuses illegal transitions', async () => {
    const store = new MemoryTaskStore();
    const bus = new InProcessEventBus();
    const manager = new TaskManager(store, bus);
    const seen: { event: TaskEvent; storedVersion: number | undefined }[] = [];
    const unsubscribe = bus.subscribe({ tenant: 't', taskId: 'a' }, (event) => {
      // Synchronous read of the memory store at publish time.
      void store.get(scope, 'a').then((r) => seen.push({ event, storedVersion: r?.version }));
    });
    await manager.create(scope, {
      id: 'a',
      contextId: 'c',
      state: TaskState.SUBMITTED,
      history: [userMessage('x')],
    });
    const writes = [];
    for (let i = 0; i < 20; i++) writes.push(manager.setStatus(scope, 'a', TaskState.WORKING));
    writes.push(manager.setStatus(scope, 'a', TaskState.COMPLETED));
    writes.push(manager.setStatus(scope, 'a', TaskState.WORKING).catch((e: unknown) => e));
    const results = await Promise.all(writes);
    assert.ok(results.at(-1) instanceof Error);
    await new Promise((resolve) => setImmediate(resolve));
    unsubscribe();
    assert.deepEqual(
      seen.map((s) => s.event.version),
      Array.from({ length: 22 }, (_, i) => i + 1),
    );
    for (const s of seen) assert.ok((s.storedVersion ?? 0) >= s.event.version);
    const final = await store.get(scope, 'a');
    assert.equal(final?.task.status.state, TaskState.COMPLETED);
    assert.equal(final?.version, 22);
    assert.equal(bus.topicCount, 0);
  });
});
