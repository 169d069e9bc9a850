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

/** The longest gap between two ticks of a 5 ms timer, from now until `stop()`. */
function loopGaps(): { stop: () => number } {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 5);
  return {
    stop: () => {
      clearInterval(timer);
      return longest;
    },
  };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('writes wait for a lock held elsewhere without holding the event loop, and commit once it is free', async (t) => {
  const path = tempFile(t);
  const store = new SqliteTaskStore(path, { busyTimeoutMs: 3_000 });
  t.after(() => store.close());
  const holder = new Database(path);
  t.after(() => holder.close());
  holder.exec('BEGIN IMMEDIATE');
  const gaps = loopGaps();
  const saves = ['a', 'b', 'c', 'd'].map((id) => store.save(record(id), 0));
  await pause(300);
  // The event loop ran meanwhile (this line runs), so the holder can let go.
  holder.exec('COMMIT');
  await Promise.all(saves);
  const longest = gaps.stop();
  for (const id of ['a', 'b', 'c', 'd']) assert.equal((await store.get(SCOPE, id))?.version, 1);
  // Before, the batch waited in better-sqlite3 (synchronously) until the lock came free, which
  // could not happen here: the event loop was held for the whole busy timeout.
  assert.ok(longest < 1_000, `the event loop was held for ${longest.toFixed(0)} ms`);
});

test('past the busy timeout the batch fails, changes nothing, and the next write commits once the lock is free', async (t) => {
  const path = tempFile(t);
  const store = new SqliteTaskStore(path, { busyTimeoutMs: 200 });
  t.after(() => store.close());
  const holder = new Database(path);
  t.after(() => holder.close());
  holder.exec('BEGIN IMMEDIATE');
  const gaps = loopGaps();
  const results = await Promise.allSettled(['a', 'b'].map((id) => store.save(record(id), 0)));
  const longest = gaps.stop();
  for (const result of results) {
    assert.equal(result.status, 'rejected');
    assert.match(String((result as PromiseRejectedResult).reason), /locked/);
  }
  assert.ok(longest < 150, `the event loop was held for ${longest.toFixed(0)} ms`);
  holder.exec('ROLLBACK');
  assert.equal(await store.get(SCOPE, 'a'), undefined, 'nothing of the failed batch was written');
  await store.save(record('c'), 0);
  assert.equal((await store.get(SCOPE, 'c'))?.version, 1);
});
