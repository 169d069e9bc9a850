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
import { Role, TaskState } from '../../../src/model/enums.js';
import type { StreamResponse } from '../../../src/model/schema.js';
import { openStores, type OpenStoresOptions } from '../../../src/core/stores/open.js';
import type { StoredTask } from '../../../src/core/stores/task-store.js';
import { SqlitePushOutbox } from '../../../src/core/stores/sqlite/push-outbox.js';
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
  test('staged changes queued together are one row write with every notification, in order', async () => {
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
    } finally {
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
