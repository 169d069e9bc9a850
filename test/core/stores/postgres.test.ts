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
