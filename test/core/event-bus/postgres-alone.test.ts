/**
 * A replica alone on its channel sends no NOTIFY. Once another one listens, it sends again,
 * and what it published while alone reaches the newcomer's subscribers through a catch-up
 * from the store; once the other listener is gone, it stops sending again. A bus that cannot
 * catch up (no `readTask`) always sends.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { TaskState } from '../../../src/model/enums.js';
import type { TaskEvent } from '../../../src/core/event-bus/event-bus.js';
import type { StoredTask } from '../../../src/core/stores/task-store.js';
import { busSchema, workingEvent as event } from '../../support/bus-events.js';
import { eventually } from '../../support/handler.js';
import { postgresUrl } from '../../support/postgres.js';

const PRESENCE_MS = 50;

function stored(taskId: string, version: number): StoredTask {
  return {
    tenant: '',
    owner: 'alice',
    version,
    statusTimeMs: 0,
    task: {
      id: taskId,
      contextId: 'c',
      status: { state: TaskState.WORKING, timestamp: new Date(0).toISOString() },
      history: [],
      artifacts: [],
    },
  };
}

/** The catch-up reader of a replica that stores nothing (a bus without one is never alone). */
function nothingStored(): Promise<StoredTask | undefined> {
  return Promise.resolve(undefined);
}

/** Fails with `why` unless `condition` holds within 10 s. */
async function until(condition: () => boolean, why: string): Promise<void> {
  assert.ok(await eventually(condition, 1_000), why);
}

test('a replica alone sends nothing; a newcomer catches up on what it published meanwhile, then gets its events', async (t) => {
  const replicas = busSchema(t, 'alone');
  // A counts listeners once, at start: only B's hello can tell it that B came.
  const a = await replicas.open({ presenceIntervalMs: 60_000, readTask: nothingStored });
  await a.ready;
  await until(() => a.alone, 'A never found itself alone on its channel');

  // Published while alone: delivered here, sent nowhere (the store has it).
  const local: number[] = [];
  a.subscribe({ tenant: '', taskId: 't1' }, (e) => local.push(e.version));
  assert.equal(a.publish({ tenant: '', taskId: 't1' }, event('t1', 1)), undefined);
  assert.deepEqual(local, [1]);

  // B subscribes before it listens; its hello makes A send again and B read t1 back.
  let reads = 0;
  const b = await replicas.open({
    presenceIntervalMs: PRESENCE_MS,
    readTask: (scope, taskId) => {
      reads++;
      return Promise.resolve(scope.owner === 'alice' && taskId === 't1' ? stored('t1', 1) : undefined);
    },
  });
  const seen: TaskEvent[] = [];
  b.subscribe({ tenant: '', taskId: 't1', owner: 'alice' }, (e) => {
    seen.push(e);
  });
  await b.ready;
  await until(() => !a.alone, 'A did not hear B listening');
  await until(() => seen.length > 0, `B's subscriber was not caught up (${reads} reads)`);
  assert.equal(seen[0]!.version, 1);
  assert.equal(seen[0]!.response?.task?.id, 't1');

  // Sent now that B listens.
  void a.publish({ tenant: '', taskId: 't1' }, event('t1', 2));
  await until(() => seen.some((e) => e.version === 2), 'B did not get the event A sent');
  assert.deepEqual(
    seen.map((e) => e.version),
    [1, 2],
  );
  assert.equal(b.alone, false);
});

test('a replica is not alone while any other session listens on its channel, and alone again once it left', async (t) => {
  const replicas = busSchema(t, 'alone');
  const bus = await replicas.open({ presenceIntervalMs: PRESENCE_MS, readTask: nothingStored });
  // A psql-like session listening on the channel, not an a2a-kit (it sends no hello).
  const watcher = new pg.Client({ connectionString: postgresUrl() });
  t.after(() => watcher.end().catch(() => {}));
  await watcher.connect();
  await watcher.query(`LISTEN ${replicas.channel}`);
  const payloads: string[] = [];
  watcher.on('notification', (message) => payloads.push(message.payload ?? ''));
  await bus.ready;
  // Several counts pass: the watcher keeps it sending.
  await new Promise((resolve) => setTimeout(resolve, PRESENCE_MS * 5));
  assert.equal(bus.alone, false);
  await bus.publish({ tenant: '', taskId: 'w' }, event('w', 1));
  await until(() => payloads.some((p) => p.includes('"k":"w"')), 'the watcher got no event');

  await watcher.end();
  await until(() => bus.alone, 'the bus did not notice that the watcher left');
});

test('a bus that cannot read tasks back is never alone', async (t) => {
  const bus = await busSchema(t, 'alone').open({ presenceIntervalMs: PRESENCE_MS });
  await bus.ready;
  await new Promise((resolve) => setTimeout(resolve, PRESENCE_MS * 5));
  assert.equal(bus.alone, false);
});

test('a replica alone whose listening connection is lost sends again until it listens and counts again', async (t) => {
  const replicas = busSchema(t, 'alone');
  // Counts only when its listener is (again) in place: the loss alone must stop "alone".
  const bus = await replicas.open({ presenceIntervalMs: 60_000, readTask: nothingStored });
  const admin = new pg.Client({ connectionString: postgresUrl() });
  t.after(() => admin.end());
  await admin.connect();
  await bus.ready;
  await until(() => bus.alone, 'the bus never found itself alone');
  const { rowCount } = await admin.query(
    'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = $1',
    [`LISTEN ${replicas.channel}`],
  );
  assert.equal(rowCount, 1);
  await until(() => !bus.alone, 'the bus still thought itself alone without its listener');
  await until(() => bus.reconnects === 1 && bus.alone, 'the bus did not listen and count again');
});
