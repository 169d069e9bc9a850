/**
 * Two replicas (two createA2AServer in this process) on one PostgreSQL database: events of a
 * task running on A reach a subscriber on B in order (large ones included), an input-required
 * question is answered through B, and a CancelTask through B aborts the agent running on A.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TaskState } from '../../../src/model/enums.js';
import type { StreamResponse } from '../../../src/model/schema.js';
import type { AgentExecutor } from '../../../src/core/executor.js';
import { createA2AServer, type A2AServer } from '../../../src/server/http.js';
import { callAs, collect, deferred, describeEvent, TEST_CARD, userMessage } from '../../support/handler.js';
import { dropSchema, freshSchema, postgresUrl } from '../../support/postgres.js';

/** Agents step on gates the test opens, and report aborts. */
const gates = new Map<string, { promise: Promise<void>; resolve: () => void }>();
const aborted = new Map<string, { promise: Promise<unknown>; resolve: (reason: unknown) => void }>();
const started = new Map<string, { promise: Promise<string>; resolve: (replica: string) => void }>();

function gate(name: string): { promise: Promise<void>; resolve: () => void } {
  let g = gates.get(name);
  if (!g) {
    g = deferred<void>();
    gates.set(name, g);
  }
  return g;
}

function agentFor(replica: string): AgentExecutor {
  return {
    async execute(ctx, task) {
      const text = ctx.text;
      if (ctx.task) {
        // The answer to the question.
        await task.artifact({ artifactId: 'answer', name: 'answer', text: `${replica} got ${text}` });
        return task.complete();
      }
      started.get(text)?.resolve(replica);
      if (text.startsWith('hold')) {
        await task.working('holding');
        await new Promise<void>((resolve) => {
          const stop = (): void => {
            aborted.get(text)?.resolve(ctx.signal.reason);
            resolve();
          };
          if (ctx.signal.aborted) stop();
          else ctx.signal.addEventListener('abort', stop, { once: true });
        });
        return;
      }
      // Seen at once (a task exists from the agent's first event), then held until the test
      // has subscribed on both replicas.
      await task.working('waiting');
      await gate(text).promise;
      await task.working('step 1');
      for (let i = 0; i < 5; i++)
        await task.artifact({ artifactId: 'out', text: `chunk ${i}` }, { append: i > 0 });
      // Over the NOTIFY payload limit: travels through a2a_events.
      await task.artifact({ artifactId: 'big', text: 'x'.repeat(20_000) });
      await task.requireInput('which branch?');
    },
  };
}

async function replicas(t: { after: (fn: () => Promise<void>) => void }): Promise<[A2AServer, A2AServer]> {
  const schema = freshSchema('replicas');
  const url = new URL(postgresUrl());
  url.searchParams.set('schema', schema);
  const store = url.toString() as `postgres://${string}`;
  const a = createA2AServer({ agent: agentFor('A'), card: TEST_CARD, store });
  const b = createA2AServer({ agent: agentFor('B'), card: TEST_CARD, store });
  t.after(async () => {
    await Promise.all([a.close(), b.close()]);
    await dropSchema(schema);
  });
  await a.listen(0, '127.0.0.1');
  await b.listen(0, '127.0.0.1');
  return [a, b];
}

/** Event text with the parts that identify it, for comparing two streams. */
function fingerprint(event: StreamResponse): string {
  const chunk = event.artifactUpdate?.artifact.parts[0]?.text;
  return `${describeEvent(event)}${chunk !== undefined ? `:${chunk.length}:${chunk.slice(0, 12)}` : ''}`;
}

describe('PostgreSQL event bus across two replicas', () => {
  test(
    'a subscriber on B gets every event of a task running on A, in order; B answers its question',
    { timeout: 60_000 },
    async (t) => {
      const [a, b] = await replicas(t);
      const ctx = callAs('alice');
      const sent = await a.handler.sendMessage(
        { message: userMessage('steps'), configuration: { returnImmediately: true } },
        ctx,
      );
      assert.ok(sent.task);
      const id = sent.task.id;
      const onB = await b.handler.subscribeToTask({ id }, ctx);
      const onA = await a.handler.subscribeToTask({ id }, ctx);
      const seenB = collect(onB, 50);
      const seenA = collect(onA, 50);
      gate('steps').resolve();
      const [eventsB, eventsA] = await Promise.all([seenB, seenA]);
      assert.deepEqual(eventsB.map(fingerprint), eventsA.map(fingerprint));
      assert.deepEqual(eventsB.slice(1).map(describeEvent), [
        'status:WORKING',
        'artifact:out',
        'artifact:out',
        'artifact:out',
        'artifact:out',
        'artifact:out',
        'artifact:big',
        'status:INPUT_REQUIRED',
      ]);
      assert.equal(eventsB[7]?.artifactUpdate?.artifact.parts[0]?.text?.length, 20_000);

      const answered = await b.handler.sendMessage({ message: userMessage('main', { taskId: id }) }, ctx);
      assert.equal(answered.task?.status.state, TaskState.COMPLETED);
      const onA2 = await a.handler.getTask({ id }, ctx);
      assert.equal(onA2.status.state, TaskState.COMPLETED);
      assert.equal(onA2.artifacts?.find((x) => x.artifactId === 'answer')?.parts[0]?.text, 'B got main');
    },
  );

  test('CancelTask through B reaches the agent running on A', { timeout: 60_000 }, async (t) => {
    const [a, b] = await replicas(t);
    const ctx = callAs('alice');
    started.set('hold-1', deferred<string>());
    aborted.set('hold-1', deferred<unknown>());
    const sent = await a.handler.sendMessage(
      { message: userMessage('hold-1'), configuration: { returnImmediately: true } },
      ctx,
    );
    assert.ok(sent.task);
    assert.equal(await started.get('hold-1')!.promise, 'A');
    const watcher = await b.handler.subscribeToTask({ id: sent.task.id }, ctx);
    const watched = collect(watcher, 20);
    const canceled = await b.handler.cancelTask({ id: sent.task.id }, ctx);
    assert.equal(canceled.status.state, TaskState.CANCELED);
    const reason = await aborted.get('hold-1')!.promise;
    assert.match(String((reason as Error).message), /was canceled/);
    const events = await watched;
    assert.equal(events[events.length - 1]?.statusUpdate?.status.state, TaskState.CANCELED);
    assert.equal((await a.handler.getTask({ id: sent.task.id }, ctx)).status.state, TaskState.CANCELED);
  });
});
