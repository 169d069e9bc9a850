/**
 * The listening connection of replica B is killed (pg_terminate_backend) while a task on
 * replica A emits events, and kept from reconnecting until the task has ended: B's
 * subscriber still ends with the task's final state and every artifact, none twice.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { TaskState } from '../../../src/model/enums.js';
import type { AgentExecutor } from '../../../src/core/executor.js';
import { createA2AServer } from '../../../src/server/http.js';
import { callAs, deferred, TEST_CARD, userMessage } from '../../support/handler.js';
import { dropSchema, freshSchema, postgresUrl } from '../../support/postgres.js';
import { artifactTexts, StreamReader } from '../../support/stream-reader.js';

const gate = deferred<void>();

const agent: AgentExecutor = {
  async execute(_ctx, task) {
    await task.working('streaming');
    for (let i = 0; i < 3; i++) await task.artifact({ artifactId: 'out', text: `a${i};` }, { append: i > 0 });
    await gate.promise;
    for (let i = 3; i < 8; i++) await task.artifact({ artifactId: 'out', text: `a${i};` }, { append: true });
    // Over the NOTIFY payload limit: its body travels through a2a_events.
    await task.artifact({ artifactId: 'big', text: 'x'.repeat(20_000) });
    await task.complete('done');
  },
};

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: postgresUrl() });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

test(
  'a subscriber on B catches up after B lost its LISTEN connection mid-task',
  { timeout: 30_000 },
  async (t) => {
    const schema = freshSchema('reconnect');
    // B logs in as its own role, so it can be kept out while A goes on.
    const role = `b_${randomBytes(4).toString('hex')}`;
    await admin((c) => c.query(`CREATE ROLE ${role} LOGIN SUPERUSER`));
    const storeUrl = (appName: string, user?: string): `postgres://${string}` => {
      const url = new URL(postgresUrl());
      if (user) url.username = user;
      url.searchParams.set('schema', schema);
      url.searchParams.set('application_name', appName);
      return url.toString() as `postgres://${string}`;
    };
    const a = createA2AServer({ agent, card: TEST_CARD, store: storeUrl(`${role}_a`) });
    const b = createA2AServer({ agent, card: TEST_CARD, store: storeUrl(`${role}_b`, role) });
    t.after(async () => {
      gate.resolve();
      await Promise.all([a.close(), b.close()]);
      await dropSchema(schema);
      await admin((c) => c.query(`DROP ROLE IF EXISTS ${role}`)).catch(() => {});
    });
    await a.listen(0, '127.0.0.1');
    await b.listen(0, '127.0.0.1');

    const ctx = callAs('alice');
    const sent = await a.handler.sendMessage(
      { message: userMessage('go'), configuration: { returnImmediately: true } },
      ctx,
    );
    assert.ok(sent.task);
    const id = sent.task.id;
    const onB = new StreamReader(await b.handler.subscribeToTask({ id }, ctx));
    const onA = new StreamReader(await a.handler.subscribeToTask({ id }, ctx));
    await onB.until(() => artifactTexts(onB.view.artifacts).includes('out=a0;a1;a2;'));

    // B's listener dies and cannot come back until the task has ended on A.
    await admin(async (c) => {
      await c.query(`ALTER ROLE ${role} NOLOGIN`);
      const killed = await c.query<{ killed: boolean }>(
        `SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity
       WHERE application_name = $1 AND query LIKE 'LISTEN %'`,
        [`${role}_b`],
      );
      assert.equal(killed.rowCount, 1);
      assert.equal(killed.rows[0]?.killed, true);
    });
    gate.resolve();
    await onA.done;
    assert.equal(onA.view.state, TaskState.COMPLETED);
    await admin((c) => c.query(`ALTER ROLE ${role} LOGIN`));
    await onB.done;

    const stored = await a.handler.getTask({ id }, ctx);
    assert.equal(stored.status.state, TaskState.COMPLETED);
    assert.equal(onB.view.state, TaskState.COMPLETED);
    assert.deepEqual(artifactTexts(onB.view.artifacts), artifactTexts(stored.artifacts));
    assert.deepEqual(artifactTexts(onA.view.artifacts), artifactTexts(stored.artifacts));
    // What B missed came as one snapshot of the stored task, after the events it had seen.
    assert.ok(onB.events.slice(1).some((event) => event.task?.status.state === TaskState.COMPLETED));
  },
);
