/**
 * The PostgreSQL store's staged (write-behind) saves, on a real server: stages of one task
 * queued for the same batch become one row write of the latest record (with every stage's
 * notifications, in order, one head per config); a save between stages keeps its place; a
 * stage on a row another replica moved is refused and changes nothing; an agent's events are
 * published in order, each once committed.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { TaskState } from '../../../src/model/enums.js';
import type { StreamResponse, Task } from '../../../src/model/schema.js';
import { DefaultRequestHandler } from '../../../src/core/handler/default-handler.js';
import { openStores, type OpenedStores } from '../../../src/core/stores/open.js';
import {
  TaskVersionConflictError,
  type StoredTask,
  type TaskStore,
} from '../../../src/core/stores/task-store.js';
import { testCard } from '../../support/handler.js';
import { fourEvents, streamCheckedAgainstStore } from '../../support/staged-agent.js';
import { dropSchema, freshSchema, postgresUrl } from '../../support/postgres.js';

const SCOPE = { tenant: '', owner: 'alice' };

function record(id: string, version: number, state: TaskState, artifacts = 0): StoredTask {
  const task: Task = {
    id,
    contextId: 'ctx',
    status: { state, timestamp: new Date(1_000 + version).toISOString() },
    history: [],
    artifacts: Array.from({ length: artifacts }, (_, i) => ({ artifactId: `a${i}`, parts: [{ text: 'x' }] })),
  };
  return { ...SCOPE, task, version, statusTimeMs: 1_000 + version };
}

const statusEvent = (taskId: string, n: number): StreamResponse => ({
  statusUpdate: { taskId, contextId: 'ctx', status: { state: TaskState.WORKING }, metadata: { n } },
});

interface Schema {
  stores: OpenedStores;
  /** Row writes (inserts and updates) of a2a_tasks so far. */
  rowWrites: () => Promise<number>;
  sql: pg.Client;
  schema: string;
}

async function openSchema(t: { after: (fn: () => Promise<void>) => void }): Promise<Schema> {
  const schema = freshSchema('staged');
  const stores = openStores(postgresUrl(), { postgres: { schema } });
  await stores.ready;
  const sql = new pg.Client({ connectionString: postgresUrl() });
  await sql.connect();
  await sql.query(`
    CREATE TABLE ${schema}.row_writes (n integer);
    CREATE FUNCTION ${schema}.count_row_write() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO ${schema}.row_writes VALUES (1); RETURN NULL; END $$;
    CREATE TRIGGER row_writes AFTER INSERT OR UPDATE ON ${schema}.a2a_tasks
      FOR EACH ROW EXECUTE FUNCTION ${schema}.count_row_write();`);
  t.after(async () => {
    await stores.close();
    await sql.end();
    await dropSchema(schema);
  });
  const rowWrites = async () =>
    Number((await sql.query<{ n: string }>(`SELECT count(*) AS n FROM ${schema}.row_writes`)).rows[0]!.n);
  return { stores, rowWrites, sql, schema };
}

function stageOf(store: TaskStore): NonNullable<TaskStore['stage']> {
  assert.ok(store.stage, 'the PostgreSQL task store stages');
  return store.stage.bind(store);
}

describe('PostgresTaskStore.stage', () => {
  test('stages of one task queued together are one row write, of the latest record', async (t) => {
    const { stores, rowWrites } = await openSchema(t);
    const store = stores.taskStore;
    const stage = stageOf(store);
    await Promise.all([
      stage(record('t1', 1, TaskState.WORKING), 0),
      stage(record('t1', 2, TaskState.WORKING, 1), 1, { statusUnchanged: true }),
      stage(record('t1', 3, TaskState.COMPLETED, 1), 2, {
        statusUnchanged: false,
        previousState: TaskState.WORKING,
      }),
    ]);
    assert.equal(await rowWrites(), 1);
    const stored = await store.get(SCOPE, 't1');
    assert.equal(stored?.version, 3);
    assert.equal(stored?.task.status.state, TaskState.COMPLETED);
    assert.equal(stored?.task.artifacts?.length, 1);
    const listed = await store.list({ ...SCOPE, limit: 10 });
    assert.equal(listed.totalSize, 1, 'counted once');

    // A later chain on the stored row is one UPDATE.
    await Promise.all([
      stage(record('t1', 4, TaskState.WORKING, 2), 3, { statusUnchanged: true }),
      stage(record('t1', 5, TaskState.WORKING, 3), 4, { statusUnchanged: true }),
    ]);
    assert.equal(await rowWrites(), 2);
    assert.equal((await store.get(SCOPE, 't1'))?.task.artifacts?.length, 3);
  });

  test('a save between two stages keeps its place: three row writes, in order', async (t) => {
    const { stores, rowWrites } = await openSchema(t);
    const store = stores.taskStore;
    const stage = stageOf(store);
    await Promise.all([
      stage(record('t', 1, TaskState.WORKING), 0),
      store.save(record('t', 2, TaskState.WORKING, 1), 1, { statusUnchanged: true }),
      stage(record('t', 3, TaskState.COMPLETED, 1), 2, {
        statusUnchanged: false,
        previousState: TaskState.WORKING,
      }),
    ]);
    assert.equal(await rowWrites(), 3);
    const stored = await store.get(SCOPE, 't');
    assert.equal(stored?.version, 3);
    assert.equal(stored?.task.status.state, TaskState.COMPLETED);
  });

  test('a stage on a row another replica moved is refused and changes nothing', async (t) => {
    const { stores, schema } = await openSchema(t);
    const store = stores.taskStore;
    await store.save(record('t', 1, TaskState.WORKING), 0);
    const other = openStores(postgresUrl(), { postgres: { schema } });
    await other.ready;
    await other.taskStore.save(record('t', 2, TaskState.WORKING, 1), 1, { statusUnchanged: true });
    await other.close();
    const stage = stageOf(store);
    const chain = [
      stage(record('t', 2, TaskState.WORKING, 2), 1, { statusUnchanged: true }),
      stage(record('t', 3, TaskState.COMPLETED, 2), 2, {
        statusUnchanged: false,
        previousState: TaskState.WORKING,
      }),
    ];
    for (const staged of chain) await assert.rejects(staged, TaskVersionConflictError);
    const stored = await store.get(SCOPE, 't');
    assert.equal(stored?.version, 2);
    assert.equal(stored?.task.status.state, TaskState.WORKING);
    assert.equal(stored?.task.artifacts?.length, 1);
  });
});

describe('PostgresPushOutbox.stageChange', () => {
  test("joined stages enqueue every stage's notification per config, in order, one head per config", async (t) => {
    const { stores, rowWrites, sql, schema } = await openSchema(t);
    const { taskStore, pushOutbox, pushConfigStore } = stores;
    assert.ok(pushOutbox.stageChange, 'the PostgreSQL outbox stages');
    await pushOutbox.saveChange(taskStore, record('t', 1, TaskState.WORKING), 0, statusEvent('t', 1));
    for (const id of ['b', 'a'])
      await pushConfigStore.put(SCOPE, { id, taskId: 't', url: `https://example.com/${id}` });
    const before = await rowWrites();
    await Promise.all(
      [2, 3, 4].map((v) =>
        pushOutbox.stageChange!(taskStore, record('t', v, TaskState.WORKING, v), v - 1, statusEvent('t', v), {
          statusUnchanged: true,
        }),
      ),
    );
    assert.equal((await rowWrites()) - before, 1, 'one row write for three changes');
    const { rows } = await sql.query<{
      config_id: string;
      payload: string;
      head: boolean;
      generation: string;
    }>(
      `SELECT config_id, payload, head, generation FROM ${schema}.a2a_push_outbox WHERE state = 'pending' ORDER BY seq`,
    );
    // Each notification keeps the version its own change made (GEN-6).
    for (const row of rows) {
      const n = (JSON.parse(row.payload) as StreamResponse).statusUpdate?.metadata?.n;
      assert.equal(Number(row.generation), n);
    }
    const order = (config: string) =>
      rows
        .filter((r) => r.config_id === config)
        .map((r) => (JSON.parse(r.payload) as StreamResponse).statusUpdate?.metadata?.n);
    assert.deepEqual(order('a'), [2, 3, 4]);
    assert.deepEqual(order('b'), [2, 3, 4]);
    assert.deepEqual(
      rows
        .filter((r) => r.head)
        .map((r) => r.config_id)
        .sort(),
      ['a', 'b'],
      'exactly one head per config',
    );
    // Delivered one at a time per config, in order.
    const seen: number[] = [];
    for (let round = 0; round < 10 && seen.length < 6; round++) {
      const claimed = await pushOutbox.claim('w', 10, 60_000);
      for (const delivery of claimed) {
        if (delivery.configId === 'a')
          seen.push(Number((JSON.parse(delivery.payload) as StreamResponse).statusUpdate?.metadata?.n));
        await pushOutbox.settle(
          delivery.id,
          'w',
          { atMs: Date.now(), durationMs: 1, ok: true, status: 200 },
          { outcome: 'delivered' },
        );
      }
    }
    assert.deepEqual(seen, [2, 3, 4]);

    // A chain whose only notification is not its last change's: it keeps its own version.
    await Promise.all([
      pushOutbox.stageChange!(taskStore, record('t', 5, TaskState.WORKING, 5), 4, statusEvent('t', 5), {
        statusUnchanged: true,
      }),
      pushOutbox.stageChange!(taskStore, record('t', 6, TaskState.WORKING, 5), 5, undefined, {
        statusUnchanged: true,
      }),
    ]);
    const later = await sql.query<{ generation: string }>(
      `SELECT generation FROM ${schema}.a2a_push_outbox WHERE state = 'pending' AND config_id = 'a'`,
    );
    assert.deepEqual(
      later.rows.map((r) => Number(r.generation)),
      [5],
    );
  });
});

describe('an agent on PostgreSQL (staged events)', () => {
  test('its events are combined into few writes and published in order, each once committed', async (t) => {
    const { stores, rowWrites, schema } = await openSchema(t);
    const handler = new DefaultRequestHandler({
      executor: { execute: fourEvents },
      card: () => testCard({ streaming: true }),
      taskStore: stores.taskStore,
      pushConfigStore: stores.pushConfigStore,
      ...(stores.eventBus ? { eventBus: stores.eventBus } : {}),
    });
    t.after(() => handler.close());
    // Another replica's pool sees what is committed.
    const reader = openStores(postgresUrl(), { postgres: { schema } });
    await reader.ready;
    t.after(() => reader.close());
    const before = await rowWrites();
    await streamCheckedAgainstStore(handler, (taskId) => reader.taskStore.get(SCOPE, taskId));
    // Four events and the task; far fewer row writes than five (cut by batches at most twice).
    const writes = (await rowWrites()) - before;
    assert.ok(writes <= 3, `row writes: ${writes}`);
  });
});
