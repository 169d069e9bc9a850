/**
 * The SQLite store's staged (write-behind) saves, on real files: stages of one task queued
 * together become one row write; an agent's events are published in order, each only once
 * durable; a staged write that fails ends the task FAILED and publishes nothing after it.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskState } from '../../../src/model/enums.js';
import type { StreamResponse, Task } from '../../../src/model/schema.js';
import { UnavailableError } from '../../../src/errors/a2a-error.js';
import type { AgentExecutor } from '../../../src/core/executor.js';
import { DefaultRequestHandler } from '../../../src/core/handler/default-handler.js';
import { MemoryPushConfigStore } from '../../../src/core/stores/memory/push-config-store.js';
import { SqliteTaskStore } from '../../../src/core/stores/sqlite/task-store.js';
import { TaskVersionConflictError, type StoredTask } from '../../../src/core/stores/task-store.js';
import { callAs, deferred, testCard, userMessage } from '../../support/handler.js';
import { fourEvents, streamCheckedAgainstStore } from '../../support/staged-agent.js';

function tempFile(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-staged-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'a2a.sqlite');
}

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

/** Counts the row writes of a2a_tasks on this connection (temporary triggers). */
function countRowWrites(store: SqliteTaskStore): () => number {
  const db = store.database.db;
  db.exec(`
    CREATE TEMP TABLE row_writes (n INTEGER);
    CREATE TEMP TRIGGER row_insert AFTER INSERT ON main.a2a_tasks BEGIN INSERT INTO row_writes VALUES (1); END;
    CREATE TEMP TRIGGER row_update AFTER UPDATE ON main.a2a_tasks BEGIN INSERT INTO row_writes VALUES (1); END;
  `);
  return () => (db.prepare('SELECT count(*) AS n FROM row_writes').get() as { n: number }).n;
}

function counts(store: SqliteTaskStore): Record<string, number> {
  const rows = store.database.db
    .prepare("SELECT state, n FROM a2a_task_counts WHERE owner = 'alice' AND n <> 0")
    .all() as { state: string; n: number }[];
  return Object.fromEntries(rows.map((row) => [row.state, row.n]));
}

describe('SqliteTaskStore.stage', () => {
  test('stages of one task queued together are one row write, of the latest record', async (t) => {
    const store = new SqliteTaskStore(tempFile(t));
    t.after(() => store.close());
    const writes = countRowWrites(store);
    const staged = [
      store.stage(record('t1', 1, TaskState.WORKING), 0),
      store.stage(record('t1', 2, TaskState.WORKING, 1), 1, { statusUnchanged: true }),
      store.stage(record('t1', 3, TaskState.COMPLETED, 1), 2, {
        statusUnchanged: false,
        previousState: TaskState.WORKING,
      }),
    ];
    await Promise.all(staged);
    assert.equal(writes(), 1);
    const stored = await store.get(SCOPE, 't1');
    assert.equal(stored?.version, 3);
    assert.equal(stored?.task.status.state, TaskState.COMPLETED);
    assert.equal(stored?.task.artifacts?.length, 1);
    // Counted once, in its final state.
    assert.deepEqual(counts(store), { [TaskState.COMPLETED]: 1 });

    // A later chain on the stored row: an update, status changes counted from the first hint.
    await store.stage(record('t2', 1, TaskState.WORKING), 0);
    await Promise.all([
      store.stage(record('t2', 2, TaskState.INPUT_REQUIRED), 1, {
        statusUnchanged: false,
        previousState: TaskState.WORKING,
      }),
      store.stage(record('t2', 3, TaskState.FAILED), 2, {
        statusUnchanged: false,
        previousState: TaskState.INPUT_REQUIRED,
      }),
    ]);
    assert.equal(writes(), 3);
    assert.equal((await store.get(SCOPE, 't2'))?.version, 3);
    assert.deepEqual(counts(store), { [TaskState.COMPLETED]: 1, [TaskState.FAILED]: 1 });
  });

  test('a save between two stages keeps its place: three row writes, in order', async (t) => {
    const store = new SqliteTaskStore(tempFile(t));
    t.after(() => store.close());
    const writes = countRowWrites(store);
    await Promise.all([
      store.stage(record('t', 1, TaskState.WORKING), 0),
      store.save(record('t', 2, TaskState.WORKING, 1), 1, { statusUnchanged: true }),
      store.stage(record('t', 3, TaskState.COMPLETED, 1), 2, {
        statusUnchanged: false,
        previousState: TaskState.WORKING,
      }),
    ]);
    assert.equal(writes(), 3);
    const stored = await store.get(SCOPE, 't');
    assert.equal(stored?.version, 3);
    assert.equal(stored?.task.status.state, TaskState.COMPLETED);
  });

  test('a stage on a row another connection moved is refused and changes nothing', async (t) => {
    const path = tempFile(t);
    const store = new SqliteTaskStore(path);
    t.after(() => store.close());
    await store.save(record('t', 1, TaskState.WORKING), 0);
    // Another process on the same file writes version 2.
    const other = new SqliteTaskStore(path);
    await other.save(record('t', 2, TaskState.WORKING, 1), 1, { statusUnchanged: true });
    await other.close();
    await assert.rejects(
      store.stage(record('t', 2, TaskState.COMPLETED), 1, {
        statusUnchanged: false,
        previousState: TaskState.WORKING,
      }),
      TaskVersionConflictError,
    );
    const stored = await store.get(SCOPE, 't');
    assert.equal(stored?.version, 2);
    assert.equal(stored?.task.status.state, TaskState.WORKING);
    assert.deepEqual(counts(store), { [TaskState.WORKING]: 1 });
  });
});

function sqliteHandler(
  t: { after: (fn: () => Promise<void>) => void },
  path: string,
  execute: AgentExecutor['execute'],
): { handler: DefaultRequestHandler; store: SqliteTaskStore } {
  const store = new SqliteTaskStore(path);
  const handler = new DefaultRequestHandler({
    executor: { execute },
    card: () => testCard({ streaming: true }),
    taskStore: store,
    pushConfigStore: new MemoryPushConfigStore(),
  });
  t.after(async () => {
    await handler.close();
    await store.close();
  });
  return { handler, store };
}

describe('an agent on SQLite (staged events)', () => {
  test('its events are combined into few writes and published in order, each once durable', async (t) => {
    const path = tempFile(t);
    const { handler, store } = sqliteHandler(t, path, fourEvents);
    const writes = countRowWrites(store);
    // Another connection sees what is committed, as another process would.
    const reader = new SqliteTaskStore(path);
    t.after(() => reader.close());
    await streamCheckedAgainstStore(handler, (taskId) => reader.get(SCOPE, taskId));
    // Four events; one row write (two when the batch was cut between them).
    assert.ok(writes() <= 2, `row writes: ${writes()}`);
  });

  test('an agent faster than the disk is slowed to it: 500 chunks, all published in order and stored', async (t) => {
    const path = tempFile(t);
    const { handler, store } = sqliteHandler(t, path, async (_ctx, events) => {
      await events.working();
      for (let i = 1; i <= 500; i++) {
        await events.artifact(
          { artifactId: 'out', text: `chunk-${i}` },
          { append: i > 1, lastChunk: i === 500 },
        );
      }
      await events.complete();
    });
    const writes = countRowWrites(store);
    const stream = await handler.sendStreamingMessage({ message: userMessage('go') }, callAs('alice'));
    const chunks: string[] = [];
    let taskId = '';
    let last = '';
    for await (const event of stream as AsyncIterable<StreamResponse>) {
      taskId ||= event.task?.id ?? '';
      if (event.artifactUpdate) chunks.push(event.artifactUpdate.artifact.parts[0]?.text ?? '');
      if (event.statusUpdate) last = event.statusUpdate.status.state;
    }
    assert.deepEqual(
      chunks,
      Array.from({ length: 500 }, (_, i) => `chunk-${i + 1}`),
    );
    assert.equal(last, TaskState.COMPLETED);
    const stored = await store.get(SCOPE, taskId);
    assert.equal(stored?.task.artifacts?.[0]?.parts.length, 500);
    assert.equal(stored?.version, 502);
    // Combined into far fewer row writes than the 502 changes, but more than one: at most 64
    // staged changes wait for the disk before the agent's next call does.
    assert.ok(writes() > 1 && writes() < 502 / 8, `row writes: ${writes()}`);
  });

  test('a staged write that fails refuses later events, publishes nothing after it, and ends the task FAILED', async (t) => {
    const path = tempFile(t);
    const gate = deferred();
    const started = deferred<string>();
    let laterError: unknown;
    let writtenError: unknown;
    const { handler } = sqliteHandler(t, path, async (ctx, events) => {
      await events.working();
      await events.written();
      started.resolve(ctx.taskId);
      await gate.promise;
      // Staged on version 1: another process has moved the row to 2 meanwhile.
      await events.artifact({ artifactId: 'lost', text: 'never stored' });
      await events.written().catch((error: unknown) => (writtenError = error));
      await events.complete().catch((error: unknown) => (laterError = error));
    });
    const stream = await handler.sendStreamingMessage({ message: userMessage('go') }, callAs('alice'));
    const seen: string[] = [];
    const reading = (async () => {
      for await (const event of stream as AsyncIterable<StreamResponse>) {
        if (event.task) seen.push(`task ${event.task.status.state}`);
        if (event.artifactUpdate) seen.push(`artifact ${event.artifactUpdate.artifact.artifactId}`);
        if (event.statusUpdate) seen.push(`status ${event.statusUpdate.status.state}`);
      }
    })();
    const taskId = await started.promise;
    const other = new SqliteTaskStore(path);
    const current = await other.get(SCOPE, taskId);
    assert.ok(current);
    await other.save({ ...current, version: current.version + 1 }, current.version, {
      statusUnchanged: true,
    });
    await other.close();
    gate.resolve();
    await reading;

    assert.ok(writtenError instanceof UnavailableError, String(writtenError));
    assert.ok(laterError instanceof UnavailableError, String(laterError));
    assert.match((laterError as Error).message, /could not record/);
    // Nothing after the failed write was published; the end is.
    assert.deepEqual(seen, [`task ${TaskState.WORKING}`, `status ${TaskState.FAILED}`]);
    const task = await handler.getTask({ id: taskId }, callAs('alice'));
    assert.equal(task.status.state, TaskState.FAILED);
    assert.equal(task.artifacts?.length ?? 0, 0);
    assert.match(task.status.message?.parts[0]?.text ?? '', /could not record the agent's events/);
  });
});
