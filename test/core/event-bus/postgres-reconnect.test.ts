/**
 * A replica's listening connection is killed (pg_terminate_backend) and kept from reconnecting
 * (its login role is disabled) while the task changes elsewhere; once it is back it catches
 * up from the store: B's subscriber to a task running on A still ends with the task's final
 * state and every artifact, none twice; a CancelTask through B made meanwhile still aborts
 * the agent on A.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { TaskState } from '../../../src/model/enums.js';
import type { AgentExecutor } from '../../../src/core/executor.js';
import { createA2AServer, type A2AServer } from '../../../src/server/http.js';
import { callAs, deferred, TEST_CARD, userMessage } from '../../support/handler.js';
import { dropSchema, freshSchema, postgresUrl } from '../../support/postgres.js';
import { artifactTexts, StreamReader } from '../../support/stream-reader.js';

const gate = deferred<void>();

let holdAborted = deferred<unknown>();

const agent: AgentExecutor = {
  async execute(ctx, task) {
    if (ctx.text === 'hold') {
      await task.working('holding');
      const signal = ctx.signal;
      await new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        else signal.addEventListener('abort', () => resolve(), { once: true });
      });
      holdAborted.resolve(signal.reason);
      return;
    }
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

/** Two replicas on one schema; `cut` (A or B) logs in as its own role, so it can be kept out. */
async function replicas(
  t: { after: (fn: () => Promise<void>) => void },
  cut: 'A' | 'B',
): Promise<{ a: A2AServer; b: A2AServer; disconnect: () => Promise<void>; allowBack: () => Promise<void> }> {
  const schema = freshSchema('reconnect');
  const role = `r_${randomBytes(4).toString('hex')}`;
  await admin((c) => c.query(`CREATE ROLE ${role} LOGIN SUPERUSER`));
  const storeUrl = (replica: 'A' | 'B'): `postgres://${string}` => {
    const url = new URL(postgresUrl());
    if (replica === cut) url.username = role;
    url.searchParams.set('schema', schema);
    url.searchParams.set('application_name', `${role}_${replica}`);
    return url.toString() as `postgres://${string}`;
  };
  const a = createA2AServer({ agent, card: TEST_CARD, store: storeUrl('A') });
  const b = createA2AServer({ agent, card: TEST_CARD, store: storeUrl('B') });
  t.after(async () => {
    gate.resolve();
    await Promise.all([a.close(), b.close()]);
    await dropSchema(schema);
    await admin((c) => c.query(`DROP ROLE IF EXISTS ${role}`)).catch(() => {});
  });
  await a.listen(0, '127.0.0.1');
  await b.listen(0, '127.0.0.1');
  return {
    a,
    b,
    // Kills the replica's LISTEN connection; it cannot log in again until allowBack().
    disconnect: () =>
      admin(async (c) => {
        await c.query(`ALTER ROLE ${role} NOLOGIN`);
        const killed = await c.query<{ killed: boolean }>(
          `SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity
           WHERE application_name = $1 AND query LIKE 'LISTEN %'`,
          [`${role}_${cut}`],
        );
        assert.equal(killed.rowCount, 1);
        assert.equal(killed.rows[0]?.killed, true);
      }),
    allowBack: async () => {
      await admin((c) => c.query(`ALTER ROLE ${role} LOGIN`));
    },
  };
}

test(
  'a subscriber on B catches up after B lost its LISTEN connection mid-task',
  { timeout: 30_000 },
  async (t) => {
    const { a, b, disconnect, allowBack } = await replicas(t, 'B');
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
    await disconnect();
    gate.resolve();
    await onA.done;
    assert.equal(onA.view.state, TaskState.COMPLETED);
    await allowBack();
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

test(
  'a CancelTask through B while A has lost its LISTEN connection aborts the agent on A once it is back',
  { timeout: 30_000 },
  async (t) => {
    holdAborted = deferred<unknown>();
    const { a, b, disconnect, allowBack } = await replicas(t, 'A');
    const ctx = callAs('alice');
    const sent = await a.handler.sendMessage(
      { message: userMessage('hold'), configuration: { returnImmediately: true } },
      ctx,
    );
    assert.ok(sent.task);
    const id = sent.task.id;
    const onA = new StreamReader(await a.handler.subscribeToTask({ id }, ctx));
    await onA.until(() => onA.view.state === TaskState.WORKING);
    await disconnect();
    const canceled = await b.handler.cancelTask({ id }, ctx);
    assert.equal(canceled.status.state, TaskState.CANCELED);
    await allowBack();
    const reason = await holdAborted.promise;
    assert.match(String((reason as Error).message), /was canceled/);
    await onA.done;
    assert.equal(onA.view.state, TaskState.CANCELED);
  },
);
