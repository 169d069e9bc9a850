/**
 * The PostgreSQL push outbox: the outbox contract with two outboxes on one schema (two
 * replicas, each its own pool), what only a durable outbox does, and concurrent claims from
 * both replicas never sharing a delivery.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { openStores, type OpenStoresOptions } from '../../../src/core/stores/open.js';
import { PostgresPushOutbox } from '../../../src/core/stores/postgres/push-outbox.js';
import { dropSchema, freshSchema, postgresUrl } from '../../support/postgres.js';
import { outboxContract, type OutboxUnderTest } from '../push/outbox-contract.js';
import { durableOutboxTests } from './durable-outbox.js';

async function openSchema(
  schema: string,
  options: OpenStoresOptions = {},
  owner = true,
): Promise<OutboxUnderTest> {
  const stores = openStores(postgresUrl(), { ...options, postgres: { schema } });
  await stores.ready;
  const replica = openStores(postgresUrl(), { ...options, postgres: { schema } });
  await replica.ready;
  return {
    outbox: stores.pushOutbox,
    taskStore: stores.taskStore,
    configs: stores.pushConfigStore,
    second: replica.pushOutbox,
    close: async () => {
      await replica.close();
      await stores.close();
      if (owner) await dropSchema(schema);
    },
  };
}

outboxContract('postgres', () => openSchema(freshSchema('outbox')));

durableOutboxTests('postgres', () => {
  const schema = freshSchema('outbox');
  let opened = 0;
  return (options) => openSchema(schema, options, ++opened > 1);
});

describe('postgres push outbox', () => {
  test('replicas claiming at once never share a delivery, and each config gives one at a time', async () => {
    const s = await openSchema(freshSchema('outbox'));
    try {
      assert.ok(s.outbox instanceof PostgresPushOutbox);
      const tasks = 20;
      for (let t = 0; t < tasks; t++) {
        await s.configs.put(
          { tenant: '', owner: 'alice' },
          { id: 'a', taskId: `t${t}`, url: 'https://example.com/a' },
        );
      }
      await Promise.all(
        Array.from({ length: tasks }, async (_, t) => {
          for (let v = 0; v < 3; v++) {
            await s.outbox.saveChange(
              s.taskStore,
              {
                tenant: '',
                owner: 'alice',
                task: {
                  id: `t${t}`,
                  contextId: 'c',
                  status: { state: 'TASK_STATE_WORKING' },
                  history: [],
                  artifacts: [],
                },
                version: v + 1,
                statusTimeMs: Date.now(),
              },
              v,
              { statusUpdate: { taskId: `t${t}`, contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } },
            );
          }
        }),
      );
      const held = new Set<string>();
      const tasksHeld = new Set<string>();
      // Eight claims at once from both replicas: the twenty heads shared out, none twice.
      const claims = await Promise.all(
        Array.from({ length: 8 }, (_, i) => (i % 2 ? s.second! : s.outbox).claim(`w${i}`, 5, 60_000)),
      );
      for (const d of claims.flat()) {
        assert.ok(!held.has(d.id), 'a delivery claimed twice');
        assert.ok(!tasksHeld.has(d.taskId), 'two deliveries of one config at once');
        held.add(d.id);
        tasksHeld.add(d.taskId);
      }
      assert.equal(held.size, tasks, 'every head claimed by someone');
    } finally {
      await s.close();
    }
  });

  test('enqueues racing with settles of the same config never leave it without a head', async () => {
    const s = await openSchema(freshSchema('outbox'));
    try {
      const scope = { tenant: '', owner: 'alice' };
      await s.configs.put(scope, { id: 'a', taskId: 't1', url: 'https://example.com/a' });
      const changes = 60;
      let saved = 0;
      const producer = (async () => {
        for (let v = 0; v < changes; v++) {
          await s.outbox.saveChange(
            s.taskStore,
            {
              ...scope,
              task: {
                id: 't1',
                contextId: 'c',
                status: { state: 'TASK_STATE_WORKING' },
                history: [],
                artifacts: [],
              },
              version: v + 1,
              statusTimeMs: Date.now(),
            },
            v,
            { statusUpdate: { taskId: 't1', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } },
          );
          saved++;
        }
      })();
      // Two replicas settle heads as fast as they can while the producer enqueues behind them.
      let delivered = 0;
      const consumer = async (outbox: typeof s.outbox, id: string) => {
        for (let round = 0; round < changes * 50 && delivered < changes; round++) {
          const claimed = await outbox.claim(id, 1, 60_000);
          for (const d of claimed) {
            if (
              await outbox.settle(d.id, id, { atMs: 0, durationMs: 0, ok: true }, { outcome: 'delivered' })
            ) {
              delivered++;
            }
          }
          if (claimed.length === 0) await new Promise((r) => setImmediate(r));
        }
      };
      await Promise.all([producer, consumer(s.outbox, 'w1'), consumer(s.second!, 'w2')]);
      assert.equal(saved, changes);
      assert.equal(delivered, changes, 'every notification became claimable in turn');
    } finally {
      await s.close();
    }
  });

  test('an enqueue that waited for a settle of its task sees it: the new delivery becomes the head', async () => {
    const schema = freshSchema('outbox');
    const s = await openSchema(schema);
    const raw = new pg.Client({ connectionString: postgresUrl(), options: `-c search_path=${schema}` });
    await raw.connect();
    try {
      const scope = { tenant: '', owner: 'alice' };
      const change = (v: number) =>
        s.outbox.saveChange(
          s.taskStore,
          {
            ...scope,
            task: {
              id: 't1',
              contextId: 'c',
              status: { state: 'TASK_STATE_WORKING' },
              history: [],
              artifacts: [],
            },
            version: v + 1,
            statusTimeMs: Date.now(),
          },
          v,
          { statusUpdate: { taskId: 't1', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } },
        );
      await s.configs.put(scope, { id: 'a', taskId: 't1', url: 'https://example.com/a' });
      await change(0);
      const [head] = await s.outbox.claim('w', 1, 60_000);
      // Another transaction holds the task row: the settle and the next enqueue both wait for it.
      await raw.query('BEGIN');
      await raw.query(`SELECT 1 FROM a2a_tasks WHERE id = 't1' FOR NO KEY UPDATE`);
      const settled = s.outbox.settle(
        head!.id,
        'w',
        { atMs: 0, durationMs: 0, ok: true },
        { outcome: 'delivered' },
      );
      await waitingOnLocks(raw, 1);
      const enqueued = change(1);
      await waitingOnLocks(raw, 2);
      await raw.query('COMMIT');
      assert.equal(await settled, true);
      await enqueued;
      const next = await s.outbox.claim('w', 1, 60_000);
      assert.equal(next.length, 1, 'the enqueued delivery is claimable (it was made the head)');
    } finally {
      await raw.end();
      await s.close();
    }
  });

  test('a settle and an enqueue of the same task never both miss each other (the task row lock)', async () => {
    // The enqueue runs while the settle is between its UPDATE and its COMMIT, and commits only
    // after the settle looked for the next head: without the lock that leaves no head.
    const schema = freshSchema('outbox');
    const s = await openSchema(schema);
    const clients = [0, 1, 2].map(
      () => new pg.Client({ connectionString: postgresUrl(), options: `-c search_path=${schema}` }),
    );
    const [attemptsLock, otherTask, monitor] = clients as [pg.Client, pg.Client, pg.Client];
    for (const client of clients) await client.connect();
    try {
      const scope = { tenant: '', owner: 'alice' };
      const change = (taskId: string, v: number) =>
        s.outbox.saveChange(
          s.taskStore,
          {
            ...scope,
            task: {
              id: taskId,
              contextId: 'c',
              status: { state: 'TASK_STATE_WORKING' },
              history: [],
              artifacts: [],
            },
            version: v + 1,
            statusTimeMs: Date.now(),
          },
          v,
          { statusUpdate: { taskId, contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } },
        );
      await s.configs.put(scope, { id: 'a', taskId: 't1', url: 'https://example.com/a' });
      await change('t1', 0);
      await change('t2', 0);
      const [head] = await s.outbox.claim('w', 1, 60_000);
      // The settle stops at its attempt row (the same key is being inserted elsewhere)...
      await attemptsLock.query('BEGIN');
      await attemptsLock.query(
        `INSERT INTO a2a_push_attempts (delivery_id, n, at_ms, duration_ms, ok) VALUES ($1, 1, 0, 0, true)`,
        [head!.id],
      );
      const settled = s.outbox.settle(
        head!.id,
        'w',
        { atMs: 0, durationMs: 0, ok: true },
        { outcome: 'delivered' },
      );
      await waitingOnLocks(monitor, 1);
      // ...and the enqueue of t1 shares a batch with a save of t2, whose row is held elsewhere.
      await otherTask.query('BEGIN');
      await otherTask.query(`SELECT 1 FROM a2a_tasks WHERE id = 't2' FOR NO KEY UPDATE`);
      const saves = Promise.all([change('t1', 1), change('t2', 1)]);
      await waitingOnLocks(monitor, 2);
      await attemptsLock.query('ROLLBACK');
      assert.equal(await settled, true);
      await otherTask.query('COMMIT');
      await saves;
      const next = await s.outbox.claim('w', 1, 60_000);
      assert.equal(next.length, 1, 'the enqueued delivery is claimable (it is the head)');
    } finally {
      for (const client of clients) await client.end();
      await s.close();
    }
  });
});

/**
 * Waits (bounded) until `n` statements of this database wait for a lock (another test file's
 * wait may count too: then the race is only less likely, never a false failure).
 */
async function waitingOnLocks(client: pg.Client, n: number): Promise<void> {
  for (let i = 0; i < 500; i++) {
    // Activity statistics are a snapshot per transaction: clear it to see the current waits.
    await client.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await client.query<{ n: string }>(
      `SELECT count(*) AS n FROM pg_stat_activity
       WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    if (Number(rows[0]!.n) >= n) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`gave up waiting for ${n} statements to wait on the task row`);
}
