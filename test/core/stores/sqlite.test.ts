import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { UnavailableError } from '../../../src/errors/a2a-error.js';
import { TaskState } from '../../../src/model/enums.js';
import { createA2AServer } from '../../../src/server/http.js';
import { SchemaTooNewError, StoreOpenError } from '../../../src/core/stores/sql/shared.js';
import { SqliteDatabase } from '../../../src/core/stores/sqlite/database.js';
import { migrate, schemaVersionOf, SQLITE_MIGRATIONS } from '../../../src/core/stores/sqlite/schema.js';
import { SqliteTaskStore } from '../../../src/core/stores/sqlite/task-store.js';
import { callAs, TEST_CARD, testExecutor, userMessage } from '../../support/handler.js';

function tempDir(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-sqlite-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('SqliteDatabase', () => {
  test('a file from an older schema is migrated on open, its data kept', async (t) => {
    const path = join(tempDir(t), 'old.sqlite');
    const old = new Database(path);
    migrate(old, path, 1);
    old
      .prepare(
        `INSERT INTO a2a_tasks (tenant, owner, id, context_id, state, status_time_ms, version, doc)
         VALUES ('', 'alice', 'kept', 'c', 'TASK_STATE_COMPLETED', 5, 3, ?)`,
      )
      .run(JSON.stringify({ id: 'kept', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } }));
    assert.equal(schemaVersionOf(old), 1);
    old.close();

    const store = new SqliteTaskStore(path);
    t.after(() => store.close());
    assert.equal(schemaVersionOf(store.database.db), SQLITE_MIGRATIONS.length);
    const kept = await store.get({ tenant: '', owner: 'alice' }, 'kept');
    assert.equal(kept?.version, 3);
    assert.equal(kept?.task.status.state, TaskState.COMPLETED);
    // Version 2 added the secrets table.
    assert.equal((await store.getOrCreateSecret('s')).length, 32);
  });

  test('a file of schema 5 keeps its leases when migrated (the lease indexes dropped)', async (t) => {
    const path = join(tempDir(t), 'v5.sqlite');
    const old = new Database(path);
    migrate(old, path, 5);
    const insert = old.prepare(
      "INSERT INTO a2a_leases (tenant, owner, task_id, worker, until_ms) VALUES ('', 'o', ?, ?, ?)",
    );
    insert.run('late', 'w1', 30);
    insert.run('early', 'w2', 10);
    insert.run('live', 'w1', 5_000);
    old.close();
    const store = new SqliteTaskStore(path);
    t.after(() => store.close());
    const indexes = store.database.db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'a2a_leases' AND sql IS NOT NULL",
      )
      .all();
    assert.deepEqual(indexes, []);
    const expired = await store.expiredLeases(100, 10);
    assert.deepEqual(
      expired.map((ref) => `${ref.taskId}@${ref.worker}`),
      ['early@w2', 'late@w1'],
    );
    await store.renewLeases('w1', 200);
    assert.deepEqual(
      (await store.expiredLeases(150, 10)).map((ref) => ref.taskId),
      ['early'],
    );
  });

  test('a file from a newer a2a-kit is refused and left untouched', (t) => {
    const path = join(tempDir(t), 'new.sqlite');
    SqliteDatabase.open(path).release();
    const raw = new Database(path);
    raw.prepare('UPDATE a2a_schema_version SET version = 99').run();
    raw.close();
    assert.throws(
      () => SqliteDatabase.open(path),
      (error: unknown) =>
        error instanceof SchemaTooNewError &&
        error.message.includes(
          `schema version 99, newer than the ${SQLITE_MIGRATIONS.length} this version of a2a-kit knows`,
        ),
    );
    const again = new Database(path);
    assert.equal(schemaVersionOf(again), 99);
    again.close();
  });

  test('a corrupt file gives a clear error at start', (t) => {
    const path = join(tempDir(t), 'corrupt.sqlite');
    writeFileSync(path, Buffer.alloc(8192, 'this is not an SQLite database '));
    assert.throws(
      () => createA2AServer({ agent: testExecutor, card: TEST_CARD, store: `sqlite:${path}` }),
      (error: unknown) =>
        error instanceof StoreOpenError &&
        error.message.includes(path) &&
        /is not a database or is damaged/.test(error.message),
    );
  });

  test('a file locked by another process gives a clear error at start', (t) => {
    const path = join(tempDir(t), 'locked.sqlite');
    SqliteDatabase.open(path).release();
    const other = new Database(path);
    t.after(() => other.close());
    other.exec('BEGIN EXCLUSIVE');
    assert.throws(
      () => SqliteDatabase.open(path, { busyTimeoutMs: 20 }),
      (error: unknown) =>
        error instanceof StoreOpenError && /is locked by another connection or process/.test(error.message),
    );
    other.exec('ROLLBACK');
  });

  test('a missing directory is created', (t) => {
    const path = join(tempDir(t), 'a', 'b', 'a2a.sqlite');
    SqliteDatabase.open(path).release();
  });

  test("synchronous 'full' syncs the log itself after each commit; close() acknowledges every write", async (t) => {
    const path = join(tempDir(t), 'sync.sqlite');
    const database = SqliteDatabase.open(path);
    // SQLite's own sync inside COMMIT is off: the store syncs the log off the event loop.
    assert.equal(database.db.pragma('synchronous', { simple: true }), 1);
    const written: Promise<number>[] = [];
    for (let i = 0; i < 50; i++) {
      written.push(database.write(() => database.db.prepare('SELECT ? AS n').get(i) as number));
      // A commit per turn, so syncs run while later commits are made.
      if (i % 10 === 9) await new Promise((resolve) => setImmediate(resolve));
    }
    // Closing with commits waiting for their sync (and with writes still queued) settles them all.
    database.release();
    assert.equal((await Promise.allSettled(written)).filter((r) => r.status === 'fulfilled').length, 50);
    const normal = SqliteDatabase.open(path, { synchronous: 'normal' });
    assert.equal(normal.db.pragma('synchronous', { simple: true }), 1);
    normal.release();
    const memory = SqliteDatabase.open(':memory:');
    assert.equal(await memory.write(() => 7), 7);
    memory.release();
  });

  test('an acknowledged write is in the file for the next connection', async (t) => {
    const path = join(tempDir(t), 'acked.sqlite');
    const store = new SqliteTaskStore(path);
    t.after(() => store.close());
    const task = {
      id: 't1',
      contextId: 'c1',
      status: { state: TaskState.WORKING, timestamp: new Date(10).toISOString() },
      history: [],
      artifacts: [],
    };
    await store.save({ tenant: '', owner: 'o', version: 1, statusTimeMs: 10, task }, 0);
    const other = new Database(path, { readonly: true });
    t.after(() => other.close());
    const row = other.prepare("SELECT version, state FROM a2a_tasks WHERE id = 't1'").get();
    assert.deepEqual({ ...(row as object) }, { version: 1, state: TaskState.WORKING });
  });

  // A real full file (`max_page_count`): SQLite rolls the whole transaction back, so the writes
  // queued after the one that failed would each have committed on their own, outside any
  // transaction, while their callers were told the batch failed (issue 26, full disk).
  test('a write that meets a full disk fails its whole batch: nothing of it is written', async (t) => {
    const path = join(tempDir(t), 'full.sqlite');
    const database = SqliteDatabase.open(path);
    t.after(() => database.release());
    const db = database.db;
    db.exec('CREATE TABLE scratch (x TEXT)');
    const insert = db.prepare('INSERT INTO scratch VALUES (?)');
    // No room for a page more: the big row needs several, the small ones fit where they are.
    db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
    const writes = [
      database.write(() => insert.run('before')),
      database.write(() => insert.run('x'.repeat(20_000))),
      database.write(() => insert.run('after')),
    ];
    const results = await Promise.allSettled(writes);
    for (const result of results) {
      assert.equal(result.status, 'rejected');
      const reason = (result as PromiseRejectedResult).reason as Error;
      // UnavailableError: a caller may send the same request again once there is room.
      assert.ok(reason instanceof UnavailableError, String(reason));
      assert.match(reason.message, /the server's store is full \(database or disk is full\)/);
    }
    assert.deepEqual(db.prepare('SELECT x FROM scratch').all(), []);
    // Room again: the same writes go through.
    db.pragma('max_page_count = 1073741823');
    await database.write(() => insert.run('after'));
    assert.deepEqual(db.prepare('SELECT x FROM scratch').all(), [{ x: 'after' }]);
  });
});

describe('SqliteTaskStore updates', () => {
  test('an update that keeps the status moves no index entry; one that changes it moves them', async (t) => {
    const store = new SqliteTaskStore(join(tempDir(t), 'upd.sqlite'));
    t.after(() => store.close());
    const db = store.database.db;
    const scope = { tenant: '', owner: 'o' };
    const record = (version: number, state: TaskState, ms: number, text: string) => ({
      ...scope,
      version,
      statusTimeMs: ms,
      task: {
        id: 't',
        contextId: 'c',
        status: { state, timestamp: new Date(ms).toISOString() },
        history: [],
        artifacts: [{ artifactId: 'a', parts: [{ text }] }],
      },
    });
    await store.save(record(1, TaskState.WORKING, 10, 'one'), 0);
    const counts = () => db.prepare('SELECT state, n FROM a2a_task_counts WHERE n > 0').all();
    // With and without the writer's hint, and a wrong hint (the condition catches it).
    await store.save(record(2, TaskState.WORKING, 10, 'two'), 1, { statusUnchanged: true });
    await store.save(record(3, TaskState.WORKING, 10, 'three'), 2);
    await store.save(record(4, TaskState.COMPLETED, 20, 'four'), 3, { statusUnchanged: true });
    const stored = await store.get(scope, 't');
    assert.equal(stored?.version, 4);
    assert.equal(stored?.statusTimeMs, 20);
    assert.equal(stored?.task.status.state, TaskState.COMPLETED);
    assert.deepEqual(stored?.task.artifacts?.[0]?.parts, [{ text: 'four' }]);
    assert.deepEqual(counts(), [{ state: TaskState.COMPLETED, n: 1 }]);
    const page = await store.list({ ...scope, status: TaskState.COMPLETED, limit: 10 });
    assert.deepEqual(
      page.tasks.map((r) => r.task.id),
      ['t'],
    );
    // A stale version is refused whichever statement runs.
    await assert.rejects(store.save(record(4, TaskState.COMPLETED, 20, 'x'), 3, { statusUnchanged: true }));
    await assert.rejects(store.save(record(4, TaskState.FAILED, 30, 'x'), 3, { statusUnchanged: false }));
    await assert.rejects(store.save(record(4, TaskState.FAILED, 30, 'x'), 3));
    assert.equal((await store.get(scope, 't'))?.version, 4);
  });
});

describe('SqliteTaskStore counts and purges (migration 7)', () => {
  const scope = { tenant: '', owner: 'o' };
  const record = (id: string, version: number, state: TaskState, ms: number) => ({
    ...scope,
    version,
    statusTimeMs: ms,
    task: { id, contextId: 'c', status: { state, timestamp: new Date(ms).toISOString() }, history: [] },
  });
  /** The counts table next to the counts of the rows themselves (they must agree). */
  const countsOf = (db: Database.Database) => ({
    kept: db.prepare('SELECT state, n FROM a2a_task_counts WHERE n <> 0 ORDER BY state').all(),
    rows: db.prepare('SELECT state, count(*) AS n FROM a2a_tasks GROUP BY state ORDER BY state').all(),
  });

  test('counts change once per transaction; a refused write in the batch counts nothing', async (t) => {
    const store = new SqliteTaskStore(join(tempDir(t), 'counts.sqlite'));
    t.after(() => store.close());
    const db = store.database.db;
    // One batch: three new tasks, then (same batch) two of them finished, one with the hint
    // and one without, and a stale write that is refused.
    const writes = [
      store.save(record('a', 1, TaskState.WORKING, 10), 0),
      store.save(record('b', 1, TaskState.WORKING, 10), 0),
      store.save(record('c', 1, TaskState.SUBMITTED, 10), 0),
      store.save(record('a', 2, TaskState.COMPLETED, 11), 1, {
        statusUnchanged: false,
        previousState: TaskState.WORKING,
      }),
      store.save(record('c', 2, TaskState.FAILED, 11), 1),
      store.save(record('b', 5, TaskState.CANCELED, 11), 4),
    ];
    const settled = await Promise.allSettled(writes);
    assert.deepEqual(
      settled.map((s) => s.status),
      ['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'rejected'],
    );
    const { kept, rows } = countsOf(db);
    assert.deepEqual(kept, rows);
    assert.deepEqual(
      kept.map((row) => ({ ...(row as object) })),
      [
        { state: TaskState.COMPLETED, n: 1 },
        { state: TaskState.FAILED, n: 1 },
        { state: TaskState.WORKING, n: 1 },
      ],
    );
    assert.equal((await store.list({ ...scope, status: TaskState.WORKING, limit: 1 })).totalSize, 1);
  });

  test('a file of schema 6 keeps its counts; the triggers and the two indexes are gone', async (t) => {
    const path = join(tempDir(t), 'v6.sqlite');
    const old = new Database(path);
    migrate(old, path, 6);
    const insert = old.prepare(
      `INSERT INTO a2a_tasks (tenant, owner, id, context_id, state, status_time_ms, version, doc)
       VALUES ('', 'o', ?, 'c', ?, ?, 1, '{}')`,
    );
    insert.run('old-done', TaskState.COMPLETED, 5);
    insert.run('old-running', TaskState.WORKING, 6);
    old.close();
    const store = new SqliteTaskStore(path);
    t.after(() => store.close());
    const db = store.database.db;
    const names = db
      .prepare(
        `SELECT name FROM sqlite_master WHERE name IN
           ('a2a_tasks_count_insert', 'a2a_tasks_count_update', 'a2a_tasks_terminal', 'a2a_idempotency_created')`,
      )
      .all();
    assert.deepEqual(names, []);
    await store.save(record('new', 1, TaskState.WORKING, 7), 0);
    await store.save(record('new', 2, TaskState.COMPLETED, 8), 1);
    const { kept, rows } = countsOf(db);
    assert.deepEqual(kept, rows);
    assert.equal((await store.list({ ...scope, limit: 1 })).totalSize, 3);
    assert.equal((await store.list({ ...scope, status: TaskState.COMPLETED, limit: 1 })).totalSize, 2);
  });

  test("retention walks each caller's terminal tasks; the idempotency purge stops at young records", async (t) => {
    const store = new SqliteTaskStore(join(tempDir(t), 'purge.sqlite'));
    t.after(() => store.close());
    const db = store.database.db;
    const other = { tenant: 't2', owner: 'p' };
    for (let i = 0; i < 3; i++) await store.save(record(`done-${i}`, 1, TaskState.COMPLETED, 10 + i), 0);
    await store.save(record('failed', 1, TaskState.FAILED, 10), 0);
    await store.save(record('running', 1, TaskState.WORKING, 1), 0);
    await store.save({ ...record('theirs', 1, TaskState.CANCELED, 5), ...other }, 0);
    assert.equal(await store.purgeTerminalBefore(12), 4); // done-0, done-1, failed, theirs
    assert.deepEqual(
      (db.prepare('SELECT id FROM a2a_tasks ORDER BY id').all() as { id: string }[]).map((r) => r.id),
      ['done-2', 'running'],
    );
    const { kept, rows } = countsOf(db);
    assert.deepEqual(kept, rows);

    const claim = db.prepare(
      "INSERT INTO a2a_idempotency (tenant, principal, message_id, status, record, created_ms) VALUES ('', 'o', ?, 'task', '{}', ?)",
    );
    // Taken in this order: two old keys, a young one, then one whose clock went back.
    claim.run('old-1', 100);
    claim.run('old-2', 200);
    claim.run('young', 900);
    claim.run('late-old', 150);
    assert.equal(await store.purgeIdempotencyBefore(500), 3);
    assert.deepEqual(
      (db.prepare('SELECT message_id FROM a2a_idempotency').all() as { message_id: string }[]).map(
        (r) => r.message_id,
      ),
      ['young'],
    );
  });
});

describe("createA2AServer({ store: 'sqlite:<path>' })", () => {
  test('tasks and page tokens survive a restart', async (t) => {
    const path = join(tempDir(t), 'server.sqlite');
    const ctx = callAs('alice');
    const first = createA2AServer({ agent: testExecutor, card: TEST_CARD, store: `sqlite:${path}` });
    let closed = false;
    t.after(() => (closed ? undefined : first.close()));
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const sent = await first.handler.sendMessage({ message: userMessage(`job ${i}`) }, ctx);
      assert.ok(sent.task);
      ids.push(sent.task.id);
    }
    const page = await first.handler.listTasks({ pageSize: 2 }, ctx);
    await first.close();
    closed = true;

    const second = createA2AServer({ agent: testExecutor, card: TEST_CARD, store: `sqlite:${path}` });
    t.after(() => second.close());
    const task = await second.handler.getTask({ id: ids[0]! }, ctx);
    assert.equal(task.status.state, TaskState.COMPLETED);
    assert.equal(task.artifacts?.[0]?.parts[0]?.text, 'job 0');
    const rest = await second.handler.listTasks({ pageSize: 2, pageToken: page.nextPageToken }, ctx);
    assert.equal(rest.tasks.length, 1);
    assert.equal(rest.totalSize, 3);
  });

  test('the page-token secret is read at start, so a ListTasks writes nothing', async (t) => {
    // A ListTasks that wrote the secret shared a batch with whatever else was queued, and a
    // full disk failing that batch failed the ListTasks too.
    const path = join(tempDir(t), 'server.sqlite');
    const server = createA2AServer({ agent: testExecutor, card: TEST_CARD, store: `sqlite:${path}` });
    t.after(() => server.close());
    const reader = new Database(path, { readonly: true });
    t.after(() => reader.close());
    const secrets = () => (reader.prepare('SELECT count(*) AS n FROM a2a_secrets').get() as { n: number }).n;
    for (let i = 0; i < 100 && secrets() === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(secrets(), 1);
    const changes = () =>
      (reader.prepare('PRAGMA data_version').get() as { data_version: number }).data_version;
    const before = changes();
    const page = await server.handler.listTasks({ pageSize: 2 }, callAs('alice'));
    assert.deepEqual(page.tasks, []);
    assert.equal(changes(), before, 'ListTasks wrote to the file');
  });

  test("a new task's lease, taken with its claim, is dropped by a repeat and by a refused reuse", async (t) => {
    const path = join(tempDir(t), 'server.sqlite');
    const server = createA2AServer({ agent: testExecutor, card: TEST_CARD, store: `sqlite:${path}` });
    t.after(() => server.close());
    const ctx = callAs('alice');
    const message = userMessage('job');
    const first = await server.handler.sendMessage({ message }, ctx);
    const again = await server.handler.sendMessage({ message }, ctx);
    assert.equal(again.task?.id, first.task?.id);
    await assert.rejects(
      server.handler.sendMessage({ message: { ...message, parts: [{ text: 'other' }] } }, ctx),
      /messageId/,
    );
    const reader = new Database(path, { readonly: true });
    t.after(() => reader.close());
    const leases = () => (reader.prepare('SELECT count(*) AS n FROM a2a_leases').get() as { n: number }).n;
    for (let i = 0; i < 100 && leases() > 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(leases(), 0);
  });

  test('an unknown store text is refused', () => {
    assert.throws(
      () => createA2AServer({ agent: testExecutor, card: TEST_CARD, store: 'redis://x' as 'memory' }),
      /not supported: use 'memory', 'sqlite:<path>', a postgres:\/\/ URL or a TaskStore/,
    );
  });
});
