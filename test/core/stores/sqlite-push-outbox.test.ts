/**
 * The SQLite push outbox: the outbox contract, and what only a durable outbox does: pending
 * deliveries and attempts survive a reopen, finished ones are pruned by age and count, the
 * attempts kept per delivery are bounded, and a change and its notifications land together.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { Role, TaskState } from '../../../src/model/enums.js';
import type { StreamResponse } from '../../../src/model/schema.js';
import { openStores, type OpenStoresOptions } from '../../../src/core/stores/open.js';
import type { StoredTask } from '../../../src/core/stores/task-store.js';
import { SqlitePushOutbox } from '../../../src/core/stores/sqlite/push-outbox.js';
import { migrate } from '../../../src/core/stores/sqlite/schema.js';
import { outboxContract, type OutboxUnderTest } from '../push/outbox-contract.js';
import { durableOutboxTests } from './durable-outbox.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-sqlite-outbox-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

function openFile(path: string, options: OpenStoresOptions = {}): OutboxUnderTest {
  const stores = openStores(`sqlite:${path}`, options);
  return {
    outbox: stores.pushOutbox,
    taskStore: stores.taskStore,
    configs: stores.pushConfigStore,
    close: () => stores.close(),
  };
}

outboxContract('sqlite', () => Promise.resolve(openFile(join(dir, `contract-${n++}.sqlite`))));

durableOutboxTests('sqlite', () => {
  const path = join(dir, `durable-${n++}.sqlite`);
  return (options) => Promise.resolve(openFile(path, options));
});

const scope = { tenant: '', owner: 'alice' };

function workingRecord(taskId: string, version: number): StoredTask {
  const status = { state: TaskState.WORKING, timestamp: new Date(1_000 + version).toISOString() };
  return {
    ...scope,
    task: { id: taskId, contextId: 'c1', status, history: [] },
    version,
    statusTimeMs: 1_000,
  };
}

function statusEvent(taskId: string, n: number): StreamResponse {
  return {
    statusUpdate: {
      taskId,
      contextId: 'c1',
      status: {
        state: TaskState.WORKING,
        message: { messageId: `m${n}`, role: Role.AGENT, parts: [{ text: String(n) }] },
      },
    },
  };
}

describe('sqlite push outbox', () => {
  test('staged changes queued together are one row write with every notification, in order, each with its generation', async () => {
    const subject = openFile(join(dir, `staged-${n++}.sqlite`));
    try {
      const outbox = subject.outbox as SqlitePushOutbox;
      await subject.taskStore.save(workingRecord('t', 1), 0);
      for (const id of ['a', 'b'])
        await subject.configs.put(scope, { id, taskId: 't', url: `https://example.com/${id}` });
      await Promise.all(
        [2, 3, 4].map((version) =>
          outbox.stageChange(
            subject.taskStore,
            workingRecord('t', version),
            version - 1,
            statusEvent('t', version),
            {
              statusUnchanged: true,
            },
          ),
        ),
      );
      assert.equal((await subject.taskStore.get(scope, 't'))?.version, 4);
      const rows = await outbox.list({ state: 'pending', limit: 10 });
      const byConfig = (id: string): string[] =>
        rows
          .filter((row) => row.configId === id)
          .sort((x, y) => x.seq - y.seq)
          .map((row) => (JSON.parse(row.payload) as StreamResponse).statusUpdate!.status.message!.messageId);
      assert.deepEqual(byConfig('a'), ['m2', 'm3', 'm4']);
      assert.deepEqual(byConfig('b'), ['m2', 'm3', 'm4']);
      // GEN-6: each notification has its own stage's version, not the row's latest.
      const generations = rows.filter((row) => row.configId === 'a').sort((x, y) => x.seq - y.seq);
      assert.deepEqual(
        generations.map((row) => row.generation),
        [2, 3, 4],
      );
    } finally {
      await subject.close();
    }
  });

  test('GEN-6: a file of schema 8 keeps its pending notifications (no generation); the next ones have theirs', async () => {
    const path = join(dir, `v8-${n++}.sqlite`);
    const old = new Database(path);
    migrate(old, path, 8);
    old
      .prepare(
        `INSERT INTO a2a_push_outbox (id, tenant, owner, task_id, config_id, payload, state, head, created_ms, next_attempt_ms)
         VALUES ('before', '', 'alice', 't', 'a', ?, 'pending', 1, 1, 1)`,
      )
      .run(JSON.stringify(statusEvent('t', 1)));
    old.close();
    const subject = openFile(path);
    try {
      await subject.taskStore.save(workingRecord('t', 1), 0);
      await subject.configs.put(scope, { id: 'a', taskId: 't', url: 'https://example.com/a' });
      await subject.outbox.saveChange(subject.taskStore, workingRecord('t', 2), 1, statusEvent('t', 2));
      const [first] = await subject.outbox.claim('w', 10, 60_000);
      assert.equal(first?.id, 'before', 'the row from before the migration, still first');
      assert.equal(first?.generation, undefined);
      await subject.outbox.settle(
        'before',
        'w',
        { atMs: 1, durationMs: 1, ok: true },
        { outcome: 'delivered' },
      );
      const [next] = await subject.outbox.claim('w', 10, 60_000);
      assert.equal(next?.generation, 2);
    } finally {
      await subject.close();
    }
  });

  test('no config in the file: events enqueue nothing; a config another connection adds, or one added after all were deleted, gets the next events', async () => {
    const path = join(dir, `presence-${n++}.sqlite`);
    const subject = openFile(path);
    const other = new Database(path);
    try {
      const outbox = subject.outbox as SqlitePushOutbox;
      const pending = async (): Promise<string[]> =>
        (await outbox.list({ state: 'pending', limit: 50 }))
          .sort((x, y) => x.seq - y.seq)
          .map(
            (row) =>
              `${row.configId}:${(JSON.parse(row.payload) as StreamResponse).statusUpdate!.status.message!.messageId}`,
          );
      await subject.taskStore.save(workingRecord('t', 1), 0);
      await outbox.stageChange(subject.taskStore, workingRecord('t', 2), 1, statusEvent('t', 2));
      assert.deepEqual(await pending(), [], 'no config: nothing queued');

      // Another connection (a second process on the file) adds a config: the cached "none" is
      // dropped because the file changed under this connection (data_version).
      other
        .prepare(
          `INSERT INTO a2a_push_configs (tenant, owner, task_id, id, doc) VALUES ('', 'alice', 't', 'x', ?)`,
        )
        .run(JSON.stringify({ id: 'x', taskId: 't', url: 'https://example.com/x' }));
      await outbox.stageChange(subject.taskStore, workingRecord('t', 3), 2, statusEvent('t', 3));
      await outbox.saveChange(subject.taskStore, workingRecord('t', 4), 3, statusEvent('t', 4));
      assert.deepEqual(await pending(), ['x:m3', 'x:m4']);

      // Every config deleted here, then one added here again.
      await subject.configs.deleteAll(scope, 't');
      await outbox.stageChange(subject.taskStore, workingRecord('t', 5), 4, statusEvent('t', 5));
      await subject.configs.put(scope, { id: 'y', taskId: 't', url: 'https://example.com/y' });
      await outbox.stageChange(subject.taskStore, workingRecord('t', 6), 5, statusEvent('t', 6));
      assert.deepEqual(await pending(), ['x:m3', 'x:m4', 'y:m6']);
    } finally {
      other.close();
      await subject.close();
    }
  });

  test('a config still queued when another connection writes the file: the events staged meanwhile keep their payloads', async () => {
    const path = join(dir, `presence-pending-${n++}.sqlite`);
    const subject = openFile(path);
    const other = new Database(path);
    try {
      const outbox = subject.outbox as SqlitePushOutbox;
      await subject.taskStore.save(workingRecord('t', 1), 0);
      await outbox.stageChange(subject.taskStore, workingRecord('t', 2), 1, statusEvent('t', 2));
      // In one turn: the config is queued (not yet written), another connection commits
      // something else (data_version moves, so the cached answer is counted again before the
      // config's insert ran), and an event is staged.
      const put = subject.configs.put(scope, { id: 'y', taskId: 't', url: 'https://example.com/y' });
      other.prepare(`INSERT INTO a2a_secrets (name, value) VALUES ('unrelated', x'00')`).run();
      const staged = outbox.stageChange(subject.taskStore, workingRecord('t', 3), 2, statusEvent('t', 3));
      await Promise.all([put, staged]);
      const rows = await outbox.list({ state: 'pending', limit: 50 });
      assert.deepEqual(
        rows.map(
          (row) =>
            `${row.configId}:${(JSON.parse(row.payload) as StreamResponse).statusUpdate!.status.message!.messageId}`,
        ),
        ['y:m3'],
      );
    } finally {
      other.close();
      await subject.close();
    }
  });

  test('openStores gives the SQLite outbox of the file', async () => {
    const subject = openFile(join(dir, `kind-${n++}.sqlite`));
    try {
      assert.ok(subject.outbox instanceof SqlitePushOutbox);
    } finally {
      await subject.close();
    }
  });
});
