/**
 * SQLite group commit: batches commit while the write-ahead log is being synced, so a write
 * that need not wait for the disk (a new task's claim and lease) is answered at once instead
 * of after the sync; durable writes are answered only after a sync that began after their
 * commit; a write that sees only durable rows (a push claim) waits for the syncs to end; and
 * the commits made during a sync that fails fail with it. The sync is held by the test-only
 * `beforeSyncForTests` hook.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import {
  AT_COMMIT,
  DURABLE_ONLY_AT_COMMIT,
  SqliteDatabase,
} from '../../../src/core/stores/sqlite/database.js';

/** The syncs the test holds: each waits until released (or failed) by the test. */
class HeldSyncs {
  readonly #held: { release: () => void; fail: (error: Error) => void }[] = [];
  started = 0;
  readonly hook = (): Promise<void> =>
    new Promise<void>((release, fail) => {
      this.started++;
      this.#held.push({ release, fail });
    });
  release(): void {
    this.#held.shift()!.release();
  }
  fail(error: Error): void {
    this.#held.shift()!.fail(error);
  }
}

function open(t: TestContext): {
  database: SqliteDatabase;
  syncs: HeldSyncs;
  insert: (x: number) => () => void;
} {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-commit-sync-'));
  const syncs = new HeldSyncs();
  const database = SqliteDatabase.open(join(dir, 'a2a.sqlite'), { beforeSyncForTests: syncs.hook });
  t.after(() => {
    try {
      database.release();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  database.db.exec('CREATE TABLE t (x INTEGER)');
  const statement = database.db.prepare('INSERT INTO t VALUES (?)');
  return { database, syncs, insert: (x) => () => void statement.run(x) };
}

/** A file whose first write (row 1) is committed and its sync held. */
async function withSyncHeld(t: TestContext): Promise<ReturnType<typeof open> & { first: Promise<void> }> {
  const opened = open(t);
  const first = opened.database.write(opened.insert(1));
  while (opened.syncs.started === 0) await new Promise((resolve) => setImmediate(resolve));
  return { ...opened, first };
}

/** Whether `promise` settled (the queued writes' turns have run by the time this answers). */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  return done;
}

/** Fails instead of hanging when `promise` never settles. */
function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not answered`)), 2_000);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

test('a write answered at its commit is answered while the log is being synced', async (t) => {
  const { database, syncs, insert, first } = await withSyncHeld(t);
  // The first batch's sync is held: the next batch commits anyway.
  const claim = database.write(insert(2), AT_COMMIT);
  const durable = database.write(insert(3));
  await within(claim, 'the claim');
  assert.equal(await settled(first), false, 'the first write waits for its sync');
  assert.equal(await settled(durable), false, 'the durable write waits for a sync after its commit');
  syncs.release();
  await within(first, 'the first write');
  assert.equal(await settled(durable), false, 'the sync that ran during its commit does not count');
  assert.equal(syncs.started, 2);
  syncs.release();
  await within(durable, 'the durable write');
});

test('a write that sees only durable rows waits until every commit is synced', async (t) => {
  const { database, syncs, insert, first } = await withSyncHeld(t);
  const during = database.write(insert(2)); // committed during the held sync
  assert.equal(await settled(during), false);
  let duringAnswered = false;
  void during.then(() => (duringAnswered = true));
  const rowsSeen: number[] = [];
  const claim = database.write(() => {
    rowsSeen.push(...(database.db.prepare('SELECT x FROM t ORDER BY x').pluck().all() as number[]));
    assert.equal(duringAnswered, true, 'every earlier commit is on disk when it runs');
  }, DURABLE_ONLY_AT_COMMIT);
  const after = database.write(insert(3));
  assert.equal(await settled(claim), false, 'held while syncs run');
  syncs.release();
  await within(first, 'the first write');
  assert.equal(await settled(claim), false, 'held until the sync of the commit made meanwhile ends');
  syncs.release();
  await within(during, 'the write committed during the first sync');
  await within(claim, 'the claim');
  assert.deepEqual(rowsSeen, [1, 2], 'it ran before the write queued after it');
  syncs.release();
  await within(after, 'the write after the claim');
});

test('the commits made during a sync that fails fail with it, and so does every later write', async (t) => {
  const { database, syncs, insert, first } = await withSyncHeld(t);
  const during = database.write(insert(2));
  const claim = database.write(insert(3), AT_COMMIT);
  await within(claim, 'the claim'); // its batch (with `during`) is committed
  const failures = [first, during].map((write) =>
    write.then(
      () => 'answered',
      (error: Error) => error.message,
    ),
  );
  syncs.fail(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
  const [firstOutcome, duringOutcome] = await within(Promise.all(failures), 'the failures');
  assert.match(firstOutcome!, /syncing its log failed/);
  assert.match(duringOutcome!, /syncing its log failed/, 'a later sync could not vouch for it');
  assert.equal(syncs.started, 1, 'no sync is started after a failed one');
  await assert.rejects(database.write(insert(4)), /syncing its log failed/);
});
