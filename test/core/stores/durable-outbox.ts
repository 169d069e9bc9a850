/**
 * What a durable (SQL) push outbox does beyond the contract: pending deliveries and their
 * attempts survive a reopen, finished deliveries are pruned by age and by count (with their
 * attempts), and the attempts kept per delivery are bounded.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { OpenStoresOptions } from '../../../src/core/stores/open.js';
import type { StoredTask } from '../../../src/core/stores/task-store.js';
import type { OutboxUnderTest } from '../push/outbox-contract.js';

const scope = { tenant: '', owner: 'alice' };
const failed = (n: number) => ({ atMs: n, durationMs: 1, ok: false, error: `refused ${n}` });

function record(version: number): StoredTask {
  return {
    ...scope,
    task: { id: 't1', contextId: 'c', status: { state: 'TASK_STATE_WORKING' }, history: [], artifacts: [] },
    version,
    statusTimeMs: Date.now(),
  };
}

async function fill(s: OutboxUnderTest, changes: number): Promise<void> {
  await s.configs.put(scope, { id: 'a', taskId: 't1', url: 'https://example.com/a' });
  for (let v = 0; v < changes; v++) {
    await s.outbox.saveChange(s.taskStore, record(v + 1), v, {
      statusUpdate: { taskId: 't1', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } },
    });
  }
}

/** Delivers every pending delivery (bounded). */
async function drain(s: OutboxUnderTest): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const claimed = await s.outbox.claim('w', 10, 60_000);
    if (claimed.length === 0) return;
    for (const d of claimed) {
      await s.outbox.settle(
        d.id,
        'w',
        { atMs: i, durationMs: 1, ok: true, status: 200 },
        { outcome: 'delivered' },
      );
    }
  }
}

type Prunable = { prune(nowMs?: number): Promise<number> };

/** `data()` names fresh data; each call of the function it returns opens that same data. */
export function durableOutboxTests(
  name: string,
  data: () => (options?: OpenStoresOptions) => Promise<OutboxUnderTest>,
): void {
  describe(`durable push outbox: ${name}`, () => {
    test('pending deliveries, their order and attempts survive a reopen', async () => {
      const open = data();
      const first = await open();
      let id: string;
      try {
        await fill(first, 3);
        const [held] = await first.outbox.claim('w1', 1, 60_000);
        id = held!.id;
        await first.outbox.settle(id, 'w1', failed(1), {
          outcome: 'retry',
          nextAttemptAtMs: 0,
          error: 'refused 1',
        });
      } finally {
        await first.close();
      }
      const second = await open();
      try {
        const [again] = await second.outbox.claim('w2', 10, 60_000);
        assert.equal(again?.id, id, 'the same head, first again');
        assert.equal(again?.attempts, 1);
        assert.deepEqual(await second.outbox.attempts(id), [failed(1)]);
        const kept = await second.outbox.list({ state: 'pending', limit: 10 });
        assert.deepEqual(
          kept.map((d) => d.generation),
          [3, 2, 1],
          'each with its generation (GEN-6), newest first',
        );
      } finally {
        await second.close();
      }
    });

    test('finished deliveries beyond maxFinished are pruned, newest kept, with their attempts', async () => {
      const open = data();
      const s = await open({ pushOutbox: { maxFinished: 2 } });
      try {
        await fill(s, 5);
        await drain(s);
        const before = await s.outbox.list({ state: 'delivered', limit: 10 });
        assert.equal(before.length, 5);
        assert.equal(await (s.outbox as unknown as Prunable).prune(), 3);
        const after = await s.outbox.list({ state: 'delivered', limit: 10 });
        assert.deepEqual(
          after.map((d) => d.id),
          before.slice(0, 2).map((d) => d.id),
        );
        assert.deepEqual(await s.outbox.attempts(before[4]!.id), [], 'attempts go with their delivery');
      } finally {
        await s.close();
      }
    });

    test('finished deliveries older than finishedMaxAgeMs are pruned; pending ones never', async () => {
      const open = data();
      const s = await open({ pushOutbox: { finishedMaxAgeMs: 60_000 } });
      try {
        await fill(s, 3);
        const [head] = await s.outbox.claim('w', 1, 60_000);
        await s.outbox.settle(head!.id, 'w', failed(1), { outcome: 'dead', error: 'gave up' });
        const prunable = s.outbox as unknown as Prunable;
        assert.equal(await prunable.prune(), 0, 'not old yet');
        assert.equal(await prunable.prune(Date.now() + 120_000), 1);
        assert.equal(await s.outbox.get(head!.id), undefined);
        assert.equal((await s.outbox.list({ state: 'pending', limit: 10 })).length, 2);
      } finally {
        await s.close();
      }
    });

    test('the attempts kept per delivery are bounded (the latest kept)', async () => {
      const open = data();
      const s = await open({ pushOutbox: { maxAttemptsRecorded: 3 } });
      try {
        await fill(s, 1);
        let id = '';
        for (let i = 1; i <= 5; i++) {
          const [held] = await s.outbox.claim('w', 1, 60_000);
          id = held!.id;
          await s.outbox.settle(id, 'w', failed(i), {
            outcome: 'retry',
            nextAttemptAtMs: 0,
            error: `refused ${i}`,
          });
        }
        assert.deepEqual(await s.outbox.attempts(id), [failed(3), failed(4), failed(5)]);
        assert.equal((await s.outbox.get(id))?.attempts, 5);
      } finally {
        await s.close();
      }
    });
  });
}
