import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TaskState } from '../../../src/model/enums.js';
import { InProcessEventBus } from '../../../src/core/event-bus/in-process.js';
import type { TaskEvent } from '../../../src/core/event-bus/event-bus.js';
import { MemoryPushConfigStore } from '../../../src/core/stores/memory/push-config-store.js';
import { MemoryTaskStore } from '../../../src/core/stores/memory/task-store.js';
import { TaskVersionConflictError, type StoredTask } from '../../../src/core/stores/task-store.js';
import { TaskManager } from '../../../src/core/task-manager.js';
import { userMessage } from '../../support/handler.js';

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

/** More saves than the store keeps as objects, so every earlier task is packed as JSON. */
const PACKING_SAVES = 300;

async function fillerSaves(store: MemoryTaskStore, count = PACKING_SAVES): Promise<void> {
  for (let i = 0; i < count; i++) await store.save(record(`filler-${i}`, 1, 1, 'filler'), 0);
}

describe('MemoryTaskStore packing (tasks kept as JSON text once older)', () => {
  test('a packed task reads back deep-equal, ids and timestamp included, with its version', async () => {
    const store = new MemoryTaskStore();
    const ms = Date.parse('2026-11-30T10:00:00.123Z');
    const id = 'task "quoted" \\ \u0001 $& é 😀';
    const contextId = ',';
    const task = {
      id,
      contextId,
      status: {
        state: TaskState.COMPLETED,
        timestamp: new Date(ms).toISOString(),
        message: {
          messageId: 'm2',
          role: 'ROLE_AGENT' as const,
          parts: [{ text: contextId }],
          taskId: id,
          contextId,
        },
      },
      history: [
        { messageId: 'm1', role: 'ROLE_USER' as const, parts: [{ text: `"${id}"` }], taskId: id, contextId },
      ],
      artifacts: [{ artifactId: 'out', parts: [{ data: { id, nested: [contextId, null, 1.5] } }] }],
      metadata: { when: new Date(ms).toISOString(), id },
    };
    const saved: StoredTask = { tenant: 't', owner: 'alice', task, version: 1, statusTimeMs: ms };
    await store.save(saved, 0);
    await fillerSaves(store);
    const read = await store.get(scope, id);
    assert.notEqual(read, saved, 'read back from its packed form');
    assert.deepEqual(read, saved);
    assert.equal(JSON.stringify(read?.task), JSON.stringify(task), 'same JSON text, same key order');
    await store.save({ ...saved, version: 2 }, 1);
    assert.equal((await store.get(scope, id))?.version, 2);
  });

  test('a timestamp that is not statusTimeMs, and a task without contextId, round-trip', async () => {
    const store = new MemoryTaskStore();
    const task = { id: 'a', status: { state: TaskState.WORKING, timestamp: '2026-01-01T00:00:00.000Z' } };
    const saved: StoredTask = { tenant: 't', owner: 'alice', task, version: 1, statusTimeMs: 5 };
    await store.save(saved, 0);
    await fillerSaves(store);
    assert.deepEqual(await store.get(scope, 'a'), saved);
  });

  test('a task that is not JSON data stays an object', async () => {
    const store = new MemoryTaskStore();
    const task = { ...record('big', 1).task, metadata: { n: 10n } as Record<string, unknown> };
    await store.save({ ...record('big', 1), task }, 0);
    await fillerSaves(store);
    assert.equal((await store.get(scope, 'big'))?.task.metadata?.n, 10n);
  });

  test('a large task stays an object (no parse on every read)', async () => {
    const store = new MemoryTaskStore();
    const big = record('large', 1);
    const task = { ...big.task, artifacts: [{ artifactId: 'out', parts: [{ text: 'x'.repeat(300_000) }] }] };
    const saved = { ...big, task };
    await store.save(saved, 0);
    await fillerSaves(store);
    // Read without a parse: the very part object saved (readers get their own array spines).
    const read = await store.get(scope, 'large');
    assert.equal(read?.task.artifacts?.[0]?.parts[0], task.artifacts[0]!.parts[0]);
    assert.deepEqual(read, saved);
  });

  test('list filters and pages packed and unpacked tasks alike', async () => {
    const store = new MemoryTaskStore();
    await store.save(record('a', 10, 1, 'c1'), 0);
    await store.save(record('b', 20, 1, 'c2'), 0);
    await fillerSaves(store);
    await store.save(record('c', 30, 1, 'c1'), 0);
    const c1 = await store.list({ ...scope, limit: 10, contextId: 'c1' });
    assert.deepEqual(
      c1.tasks.map((r) => [r.task.id, r.task.contextId, r.statusTimeMs]),
      [
        ['c', 'c1', 30],
        ['a', 'c1', 10],
      ],
    );
    const working = await store.list({
      ...scope,
      limit: 2,
      status: TaskState.WORKING,
      after: { statusTimeMs: 30, id: 'c' },
    });
    assert.equal(working.totalSize, PACKING_SAVES + 3);
    assert.deepEqual(
      working.tasks.map((r) => r.task.id),
      ['b', 'a'],
    );
    assert.equal(working.hasMore, true);
    assert.equal(store.size, PACKING_SAVES + 3);
  });

  test('a terminal task is packed when saved; a running one stays the saved object', async () => {
    const store = new MemoryTaskStore();
    const running = record('run', 1);
    await store.save(running, 0);
    const ended = record('end', 2);
    ended.task.status = { state: TaskState.COMPLETED, timestamp: new Date(2).toISOString() };
    await store.save(ended, 0);
    // A running task is read without a parse: its status is the very object saved.
    assert.equal((await store.get(scope, 'run'))?.task.status, running.task.status);
    const read = await store.get(scope, 'end');
    assert.notEqual(read?.task.status, ended.task.status, 'read back from its packed form');
    assert.deepEqual(read, ended);
    // Packed at once, and no later save packs it again or loses it.
    await fillerSaves(store);
    assert.deepEqual(await store.get(scope, 'end'), ended);
    const list = await store.list({ ...scope, limit: 1, status: TaskState.COMPLETED });
    assert.deepEqual(list.tasks, [ended]);
    assert.equal(list.totalSize, 1);
  });

  test('the compare-and-set applies to packed tasks too', async () => {
    const store = new MemoryTaskStore();
    await store.save(record('a', 1), 0);
    await fillerSaves(store);
    await assert.rejects(store.save(record('a', 2), 0), TaskVersionConflictError);
    await store.save(record('a', 2, 2), 1);
    assert.equal((await store.get(scope, 'a'))?.version, 2);
  });
});

describe('MemoryTaskStore idempotency records', () => {
  const key = (messageId: string, principal = 'p', tenant = '') => ({ tenant, principal, messageId });

  test('records are per tenant and principal, and keep what was set', async () => {
    const store = new MemoryTaskStore();
    assert.equal(await store.claimIdempotencyKey(key('m'), { status: 'pending', taskId: 't1' }), undefined);
    assert.equal(
      await store.claimIdempotencyKey(key('m', 'q'), { status: 'pending', taskId: 't2' }),
      undefined,
    );
    assert.equal(
      await store.claimIdempotencyKey(key('m', 'p', 'x'), { status: 'pending', taskId: 't3' }),
      undefined,
    );
    await store.setIdempotencyRecord(key('m'), { status: 'task', taskId: 't1' });
    assert.deepEqual(await store.claimIdempotencyKey(key('m'), { status: 'pending', taskId: 't9' }), {
      status: 'task',
      taskId: 't1',
    });
    const message = { messageId: 'r', role: 'ROLE_AGENT' as const, parts: [{ text: 'hi' }] };
    await store.setIdempotencyRecord(key('m', 'q'), { status: 'message', message });
    assert.deepEqual(await store.claimIdempotencyKey(key('m', 'q'), { status: 'pending', taskId: 't9' }), {
      status: 'message',
      message,
    });
    assert.deepEqual(
      await store.claimIdempotencyKey(key('m', 'p', 'x'), { status: 'pending', taskId: 't9' }),
      {
        status: 'pending',
        taskId: 't3',
      },
    );
  });

  test('the oldest records are forgotten first, across callers', async () => {
    const store = new MemoryTaskStore({ maxIdempotencyRecords: 3 });
    for (const [id, principal] of [
      ['m1', 'p'],
      ['m2', 'q'],
      ['m3', 'p'],
      ['m4', 'q'],
    ] as const) {
      assert.equal(
        await store.claimIdempotencyKey(key(id, principal), { status: 'pending', taskId: id }),
        undefined,
      );
    }
    // m1 was forgotten: it can be claimed again (which forgets m2); m3 and m4 are still held.
    assert.equal(
      await store.claimIdempotencyKey(key('m1', 'p'), { status: 'pending', taskId: 'again' }),
      undefined,
    );
    assert.equal(
      await store.claimIdempotencyKey(key('m2', 'q'), { status: 'pending', taskId: 'again' }),
      undefined,
    );
    assert.ok(await store.claimIdempotencyKey(key('m4', 'q'), { status: 'pending', taskId: 'x' }));
  });

  test('stays bounded through many claims and removals', async () => {
    const store = new MemoryTaskStore({ maxIdempotencyRecords: 10 });
    for (let i = 0; i < 5000; i++) {
      await store.claimIdempotencyKey(key(`m${i}`), { status: 'pending', taskId: `t${i}` });
      if (i % 3 === 0) await store.setIdempotencyRecord(key(`m${i}`), undefined);
      else await store.setIdempotencyRecord(key(`m${i}`), { status: 'task', taskId: `t${i}` });
    }
    let held = 0;
    for (let i = 0; i < 5000; i++) {
      const previous = await store.claimIdempotencyKey(key(`m${i}`), { status: 'pending', taskId: 'probe' });
      if (previous && previous.status !== 'message' && previous.taskId !== 'probe') held++;
    }
    assert.ok(held <= 10, `${held} records held`);
    assert.deepEqual(await store.claimIdempotencyKey(key('m4999'), { status: 'pending', taskId: 'x' }), {
      status: 'pending',
      taskId: 'probe',
    });
  });
});

describe('MemoryPushConfigStore', () => {
  test('configs are per scope and task, copied when put and frozen for every reader', async () => {
    const store = new MemoryPushConfigStore();
    const input = { id: 'x', taskId: 'a', url: 'https://h', authentication: { scheme: 'Bearer' } };
    const stored = await store.put(scope, input);
    input.url = 'changed';
    input.authentication.scheme = 'changed';
    const read = await store.get(scope, 'a', 'x');
    assert.equal(read?.url, 'https://h');
    assert.equal(read?.authentication?.scheme, 'Bearer');
    assert.throws(() => {
      stored.url = 'changed';
    }, TypeError);
    assert.throws(() => {
      read!.authentication!.scheme = 'changed';
    }, TypeError);
    assert.equal((await store.list(scope, 'a', 10)).configs[0]?.url, 'https://h');
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
