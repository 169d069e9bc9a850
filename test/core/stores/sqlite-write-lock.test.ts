/**
 * Another connection holding SQLite's write lock (a `sqlite3` shell in a transaction, a second
 * server on the file) no longer holds the event loop: the batch waits for the lock on a timer,
 * commits once it is free, and fails (changing nothing) only past the busy timeout.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { TaskState } from '../../../src/model/enums.js';
import { SqliteTaskStore } from '../../../src/core/stores/sqlite/task-store.js';
import type { StoredTask } from '../../../src/core/stores/task-store.js';

const SCOPE = { tenant: '', owner: 'alice' };

function record(id: string): StoredTask {
  return {
    ...SCOPE,
    task: {
      id,
      contextId: 'c',
      status: { state: TaskState.WORKING, timestamp: new Date(1_000).toISOString() },
    },
    version: 1,
    statusTimeMs: 1_000,
  };
}

function tempFile(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-lock-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'a2a.sqlite');
}

/**
 * Whether a short timer set now fires before `settled` settles: it does only when the event loop
 * turns while the writes wait (a wait inside better-sqlite3 settles them first, in the same
 * turn, before any timer). An order of events, not a duration.
 */
async function loopTurnsWhileWaiting(settled: Promise<unknown>): Promise<boolean> {
  let fired = false;
  const timer = setTimeout(() => (fired = true), 1);
  await settled.then(
    () => undefined,
    () => undefined,
  );
  clearTimeout(timer);
  return fired;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('writes wait for a lock held elsewhere without holding the event loop, and commit once it is free', async (t) => {
  const path = tempFile(t);
  const store = new SqliteTaskStore(path, { busyTimeoutMs: 3_000 });
  t.after(() => store.close());
  const holder = new Database(path);
  t.after(() => holder.close());
  holder.exec('BEGIN IMMEDIATE');
  const saves = Promise.all(['a', 'b', 'c', 'd'].map((id) => store.save(record(id), 0)));
  const turned = loopTurnsWhileWaiting(saves);
  await pause(300);
  // The event loop ran meanwhile (this line runs), so the holder can let go. Before, the batch
  // waited in better-sqlite3 (synchronously) for a lock that could not come free while it held
  // the loop, and failed "database is locked" after the whole busy timeout.
  holder.exec('COMMIT');
  await saves;
  for (const id of ['a', 'b', 'c', 'd']) assert.equal((await store.get(SCOPE, id))?.version, 1);
  assert.ok(await turned, 'the event loop turned while the writes waited for the lock');
});

test('past the busy timeout the batch fails, changes nothing, and the next write commits once the lock is free', async (t) => {
  const path = tempFile(t);
  const store = new SqliteTaskStore(path, { busyTimeoutMs: 200 });
  t.after(() => store.close());
  const holder = new Database(path);
  t.after(() => holder.close());
  holder.exec('BEGIN IMMEDIATE');
  const refused = Promise.allSettled(['a', 'b'].map((id) => store.save(record(id), 0)));
  const turned = loopTurnsWhileWaiting(refused);
  const results = await refused;
  for (const result of results) {
    assert.equal(result.status, 'rejected');
    assert.match(String((result as PromiseRejectedResult).reason), /locked/);
  }
  assert.ok(await turned, 'the event loop turned while the writes waited out the busy timeout');
  holder.exec('ROLLBACK');
  assert.equal(await store.get(SCOPE, 'a'), undefined, 'nothing of the failed batch was written');
  await store.save(record('c'), 0);
  assert.equal((await store.get(SCOPE, 'c'))?.version, 1);
});
