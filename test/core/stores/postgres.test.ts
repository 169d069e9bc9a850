import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import pg from 'pg';
import { TaskState } from '../../../src/model/enums.js';
import { createA2AServer } from '../../../src/server/http.js';
import { PostgresDatabase } from '../../../src/core/stores/postgres/database.js';
import { PostgresTaskStore } from '../../../src/core/stores/postgres/task-store.js';
import { SchemaTooNewError, StoreOpenError } from '../../../src/core/stores/sql/shared.js';
import { callAs, TEST_CARD, testExecutor, userMessage } from '../../support/handler.js';
import { dropSchema, freshSchema, postgresUrl } from '../../support/postgres.js';

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A URL for the test server whose connections use `schema`. */
function schemaUrl(schema: string): string {
  const url = new URL(postgresUrl());
  url.searchParams.set('schema', schema);
  return url.toString();
}

describe('PostgreSQL store', () => {
  test('a server that is down gives a clear error at start', async () => {
    const port = await closedPort();
    const server = createA2AServer({
      agent: testExecutor,
      card: TEST_CARD,
      store: `postgres://nobody@127.0.0.1:${port}/none`,
    });
    await assert.rejects(
      server.listen(0, '127.0.0.1'),
      (error: unknown) =>
        error instanceof StoreOpenError &&
        error.message.includes(`127.0.0.1:${port}`) &&
        /cannot be used: .*ECONNREFUSED/.test(error.message),
    );
    await server.close();
  });

  test('a schema from a newer a2a-kit is refused and left untouched', async (t) => {
    const schema = freshSchema('newer');
    t.after(() => dropSchema(schema));
    const first = await PostgresDatabase.open({ connectionString: postgresUrl(), schema });
    await first.query('UPDATE a2a_schema_version SET version = 99');
    await first.release();
    await assert.rejects(
      PostgresDatabase.open({ connectionString: postgresUrl(), schema }),
      (error: unknown) =>
        error instanceof SchemaTooNewError && /schema version 99, newer than/.test(error.message),
    );
    const check = await PostgresDatabase.open({ connectionString: postgresUrl(), schema: 'public' });
    const { rows } = await check.query<{ version: number }>(
      `SELECT version FROM ${schema}.a2a_schema_version`,
    );
    await check.release();
    assert.equal(rows[0]?.version, 99);
  });

  test('replicas starting together migrate the schema once', async (t) => {
    const schema = freshSchema('race');
    t.after(() => dropSchema(schema));
    const opened = await Promise.all(
      Array.from({ length: 4 }, () => PostgresDatabase.open({ connectionString: postgresUrl(), schema })),
    );
    await Promise.all(opened.map((db) => db.release()));
  });

  test('statements are retried after the server drops the connections', async (t) => {
    const schema = freshSchema('drop');
    t.after(() => dropSchema(schema));
    const database = await PostgresDatabase.open({
      connectionString: postgresUrl(),
      schema,
      pool: { application_name: schema },
    });
    const store = new PostgresTaskStore(database);
    await database.release();
    t.after(() => store.close());
    const scope = { tenant: '', owner: 'alice' };
    const record = {
      tenant: '',
      owner: 'alice',
      version: 1,
      statusTimeMs: 1,
      task: { id: 'a', contextId: 'c', status: { state: TaskState.WORKING } },
    };
    await store.save(record, 0);
    // Every connection of the store is killed, as a server restart would.
    const admin = new pg.Client({ connectionString: postgresUrl() });
    await admin.connect();
    const killed = await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
      [schema],
    );
    await admin.end();
    assert.ok((killed.rowCount ?? 0) > 0);
    assert.equal((await store.get(scope, 'a'))?.version, 1);
    await store.save({ ...record, version: 2, statusTimeMs: 2 }, 1);
    assert.equal((await store.get(scope, 'a'))?.version, 2);
  });

  test('a batch of writes sent as one query keeps every value exactly; a conflict fails only its own write', async (t) => {
    const schema = freshSchema('inline');
    t.after(() => dropSchema(schema));
    const database = await PostgresDatabase.open({ connectionString: postgresUrl(), schema });
    const store = new PostgresTaskStore(database);
    await database.release();
    t.after(() => store.close());
    const scope = { tenant: "t'1", owner: 'o\\wner' };
    const texts = [
      "it's",
      "back\\slash \\'",
      'new\nline\ttab',
      '$1 $2 ; COMMIT',
      'ünïcödé ✓ 𝄞',
      "'; DROP TABLE a2a_tasks; --",
    ];
    const record = (id: string, text: string, version: number) => ({
      ...scope,
      version,
      statusTimeMs: version,
      task: {
        id,
        contextId: `ctx-${text}`,
        status: { state: TaskState.WORKING },
        metadata: { text },
      },
    });
    // Saved in one turn: one batch, so one query.
    await Promise.all(texts.map((text, i) => store.save(record(`task-${i}`, text, 1), 0)));
    for (const [i, text] of texts.entries()) {
      const stored = await store.get(scope, `task-${i}`);
      assert.equal(stored?.task.metadata?.['text'], text);
      assert.equal(stored?.task.contextId, `ctx-${text}`);
    }
    // A stale write and one PostgreSQL refuses (a NUL in a text column fails the whole
    // query) among good ones: only those two are refused, the others land.
    const results = await Promise.allSettled([
      store.save(record('task-0', 'again', 2), 1),
      store.save(record('task-1', 'stale', 1), 0),
      store.save(record('task-2', 'again', 2), 1),
      store.save(record('task-3', 'nul\u0000', 2), 1),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled', 'rejected'],
    );
    assert.equal((await store.get(scope, 'task-1'))?.task.metadata?.['text'], texts[1]);
    assert.equal((await store.get(scope, 'task-2'))?.version, 2);
    assert.equal((await store.get(scope, 'task-3'))?.version, 1);
    // The connections went back to the pool usable (the failed transaction was rolled back).
    const versions = await Promise.all(
      texts.map(async (_, i) => (await store.get(scope, `task-${i}`))!.version),
    );
    const again = await Promise.allSettled(
      texts.map((text, i) => store.save(record(`task-${i}`, `${text}!`, versions[i]! + 1), versions[i]!)),
    );
    assert.deepEqual(
      again.map((r) => r.status),
      texts.map(() => 'fulfilled'),
    );
  });

  test("createA2AServer({ store: 'postgres://...' }) serves from PostgreSQL and keeps tasks across servers", async (t) => {
    const schema = freshSchema('server');
    t.after(() => dropSchema(schema));
    const url = schemaUrl(schema);
    const ctx = callAs('alice');
    const one = createA2AServer({
      agent: testExecutor,
      card: TEST_CARD,
      store: url as `postgres://${string}`,
    });
    t.after(() => one.close());
    await one.listen(0, '127.0.0.1');
    const sent = await one.handler.sendMessage({ message: userMessage('hello') }, ctx);
    assert.ok(sent.task);
    await one.handler.sendMessage({ message: userMessage('again') }, ctx);
    const page = await one.handler.listTasks({ pageSize: 1 }, ctx);
    assert.ok(page.nextPageToken);
    const two = createA2AServer({
      agent: testExecutor,
      card: TEST_CARD,
      store: url as `postgres://${string}`,
    });
    t.after(() => two.close());
    await two.listen(0, '127.0.0.1');
    const task = await two.handler.getTask({ id: sent.task.id }, ctx);
    assert.equal(task.status.state, TaskState.COMPLETED);
    // A page token minted by one replica is accepted by the other (the secret is in the store).
    const next = await two.handler.listTasks({ pageSize: 1, pageToken: page.nextPageToken }, ctx);
    assert.equal(next.tasks.length, 1);
    assert.notEqual(next.tasks[0]!.id, page.tasks[0]!.id);
    assert.equal(next.totalSize, 2);
  });
});
