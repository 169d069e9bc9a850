/**
 * The retention job: idempotency records past their age and (when configured) old terminal
 * tasks are deleted; the handler runs it at start; ages shorter than the idempotency window
 * are refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskState } from '../../src/model/enums.js';
import { DefaultRequestHandler } from '../../src/core/handler/default-handler.js';
import { StoreRetention } from '../../src/core/retention.js';
import { openStores, type OpenedStores } from '../../src/core/stores/open.js';
import { MemoryTaskStore } from '../../src/core/stores/memory/task-store.js';
import { callAs, eventually, testCard, testExecutor, userMessage } from '../support/handler.js';

const HOUR = 3600_000;

function sqliteStores(t: { after: (fn: () => unknown) => void }): OpenedStores {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-retention-'));
  const stores = openStores(`sqlite:${join(dir, 'a2a.sqlite')}`);
  t.after(async () => {
    await stores.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return stores;
}

test('one run deletes idempotency records older than the window and, when asked, old terminal tasks', async (t) => {
  const { taskStore } = sqliteStores(t);
  const key = { tenant: '', principal: 'alice', messageId: 'm1' };
  await taskStore.claimIdempotencyKey(key, { status: 'task', taskId: 't1' });
  const doneAt = Date.now() - 2 * HOUR;
  await taskStore.save(
    {
      tenant: '',
      owner: 'alice',
      version: 1,
      statusTimeMs: doneAt,
      task: {
        id: 't1',
        contextId: 'c',
        status: { state: TaskState.COMPLETED, timestamp: new Date(doneAt).toISOString() },
        history: [],
        artifacts: [],
      },
    },
    0,
  );
  const retention = new StoreRetention(taskStore, { terminalTasksMaxAgeMs: HOUR }, 24 * HOUR);
  assert.deepEqual(await retention.run(), { idempotencyRecords: 0, terminalTasks: 1 });
  assert.deepEqual(await retention.run(Date.now() + 25 * HOUR), { idempotencyRecords: 1, terminalTasks: 0 });
  assert.equal(await taskStore.claimIdempotencyKey(key, { status: 'pending', taskId: 't2' }), undefined);
  retention.close();
  // Terminal tasks are kept unless an age is given.
  const keeping = new StoreRetention(taskStore, {}, 24 * HOUR);
  assert.equal((await keeping.run(Date.now() + 1000 * HOUR)).terminalTasks, 0);
  keeping.close();
});

test('ages are checked: never shorter than the idempotency window', () => {
  const store = new MemoryTaskStore();
  assert.throws(
    () => new StoreRetention(store, { idempotencyRecordsMaxAgeMs: HOUR }, 24 * HOUR),
    /idempotencyRecordsMaxAgeMs must be at least idempotencyTtlMs/,
  );
  assert.throws(() => new StoreRetention(store, { intervalMs: 0 }, HOUR), /intervalMs/);
  assert.throws(
    () => new StoreRetention(store, { terminalTasksMaxAgeMs: -1 }, HOUR),
    /terminalTasksMaxAgeMs/,
  );
  assert.equal(new StoreRetention(store, { idempotencyRecordsMaxAgeMs: Infinity }, Infinity).active, false);
  assert.throws(
    () =>
      new DefaultRequestHandler({
        executor: testExecutor,
        card: () => testCard(),
        taskStore: store,
        retention: { idempotencyRecordsMaxAgeMs: 1 },
      }),
    RangeError,
  );
});

test('the handler runs retention at start: a messageId past the window is free again', async (t) => {
  const { taskStore, pushConfigStore } = sqliteStores(t);
  const ctx = callAs('alice');
  const first = new DefaultRequestHandler({
    executor: testExecutor,
    card: () => testCard(),
    taskStore,
    pushConfigStore,
    retention: false,
  });
  const message = userMessage('hello');
  await first.sendMessage({ message }, ctx);
  await first.close();
  const key = { tenant: '', principal: 'alice', messageId: message.messageId };
  // Still held: the first handler's retention was off.
  assert.ok(await taskStore.claimIdempotencyKey(key, { status: 'pending', taskId: 'x' }));
  // Outlive a 1 ms window, then a handler with that window deletes the record at start.
  const taken = Date.now();
  assert.ok(await eventually(() => Date.now() > taken + 1));
  const second = new DefaultRequestHandler({
    executor: testExecutor,
    card: () => testCard(),
    taskStore,
    pushConfigStore,
    idempotencyTtlMs: 1,
  });
  t.after(() => second.close());
  let freed = false;
  for (let i = 0; i < 300 && !freed; i++) {
    const held = await taskStore.claimIdempotencyKey(key, { status: 'pending', taskId: 'probe' });
    if (held === undefined) freed = true;
    else await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.ok(freed, 'the record was deleted by the retention job');
});
