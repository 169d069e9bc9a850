/**
 * The PostgreSQL bus packs the events published while one write batch gathers into few
 * NOTIFYs: another replica still gets every event of every task, in order; far fewer
 * notifications travel than events; a notification in the format of an older a2a-kit (one
 * envelope object) is still understood.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import type { TaskEvent } from '../../../src/core/event-bus/event-bus.js';
import { busSchema, workingEvent as event } from '../../support/bus-events.js';
import { deferred } from '../../support/handler.js';
import { postgresUrl } from '../../support/postgres.js';

/** `promise`, or a failure saying `why` after 10 s. */
async function within<T>(promise: Promise<T>, why: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(why())), 10_000);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

test('events of many tasks published together reach another replica in order, in few notifications', async (t) => {
  const replicas = busSchema(t, 'packs');
  const a = await replicas.open();
  const b = await replicas.open();
  await Promise.all([a.ready, b.ready]);
  // Counts what travels on the channel.
  const watcher = new pg.Client({ connectionString: postgresUrl() });
  t.after(() => watcher.end());
  await watcher.connect();
  let notifications = 0;
  watcher.on('notification', () => notifications++);
  await watcher.query(`LISTEN ${replicas.channel}`);

  const TASKS = 10;
  const EVENTS = 20;
  const seen = new Map<string, number[]>();
  const all = deferred<void>();
  let received = 0;
  for (let i = 0; i < TASKS; i++) {
    const taskId = `t${i}`;
    seen.set(taskId, []);
    b.subscribe({ tenant: '', taskId }, (e) => {
      seen.get(taskId)!.push(e.version);
      if (++received === TASKS * EVENTS) all.resolve();
    });
  }
  // Each task publishes its next event once the bus let it go on (as the TaskManager does).
  await Promise.all(
    Array.from({ length: TASKS }, async (_, i) => {
      for (let v = 1; v <= EVENTS; v++) await a.publish({ tenant: '', taskId: `t${i}` }, event(`t${i}`, v));
    }),
  );
  await within(all.promise, () => `only ${received} events arrived`);
  for (const versions of seen.values()) {
    assert.deepEqual(
      versions,
      Array.from({ length: EVENTS }, (_, i) => i + 1),
    );
  }
  // Beside the packs: the two replicas' hellos (see ReplicaPresence), when they commit after
  // the watcher's LISTEN.
  assert.ok(notifications <= EVENTS + 4, `${notifications} notifications for ${TASKS * EVENTS} events`);
});

test("a task's events published without waiting arrive in order, oversize bodies among them", async (t) => {
  const replicas = busSchema(t, 'packs');
  const a = await replicas.open();
  const b = await replicas.open();
  await Promise.all([a.ready, b.ready]);
  const EVENTS = 200;
  const versions: number[] = [];
  const all = deferred<void>();
  b.subscribe({ tenant: '', taskId: 'mixed' }, (e) => {
    versions.push(e.version);
    if (versions.length === EVENTS) all.resolve();
  });
  // Every 25th event is over the NOTIFY limit (its body goes through a2a_events); none is awaited.
  for (let v = 1; v <= EVENTS; v++) {
    void a.publish(
      { tenant: '', taskId: 'mixed' },
      event('mixed', v, v % 25 === 0 ? 'x'.repeat(9_000) : undefined),
    );
  }
  await within(all.promise, () => `only ${versions.length} events arrived`);
  assert.deepEqual(
    versions,
    Array.from({ length: EVENTS }, (_, i) => i + 1),
  );
});

test('a notification in the one-envelope format of an older replica is delivered', async (t) => {
  const replicas = busSchema(t, 'packs');
  const bus = await replicas.open();
  await bus.ready;
  const sender = new pg.Client({ connectionString: postgresUrl() });
  t.after(() => sender.end());
  await sender.connect();
  const got = deferred<TaskEvent>();
  bus.subscribe({ tenant: 'acme', taskId: 'old' }, (e) => got.resolve(e));
  const old = { o: 'another-replica', t: 'acme', k: 'old', e: event('old', 7) };
  await sender.query('SELECT pg_notify($1, $2)', [replicas.channel, JSON.stringify(old)]);
  const delivered = await within(got.promise, () => 'not delivered');
  assert.equal(delivered.version, 7);
});
