/**
 * The PushOutbox contract (issue 12), run against the memory, SQLite and PostgreSQL outboxes:
 * one delivery per config per change written with the change, a config's deliveries one at a
 * time in order, leases two workers never share, expiry takeover, settle by the holder only,
 * dead letters, replay, the operator view.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { PushOutbox } from '../../../src/core/push/outbox.js';
import type { PushConfigStore } from '../../../src/core/stores/push-config-store.js';
import type { StoredTask, TaskStore } from '../../../src/core/stores/task-store.js';
import { TaskVersionConflictError } from '../../../src/core/stores/task-store.js';
import type { StreamResponse } from '../../../src/model/schema.js';

/** One outbox with the stores it goes with. */
export interface OutboxUnderTest {
  outbox: PushOutbox;
  taskStore: TaskStore;
  configs: PushConfigStore;
  /** A second outbox on the same data (another replica), when the kind has one. */
  second?: PushOutbox;
  close(): Promise<void>;
}

const scope = { tenant: '', owner: 'alice' };
const attempt = { atMs: 1, durationMs: 1, ok: false, status: 500, error: 'HTTP 500' };
const delivered = { atMs: 2, durationMs: 1, ok: true, status: 200 };

function record(taskId: string, version: number): StoredTask {
  return {
    ...scope,
    task: {
      id: taskId,
      contextId: 'c1',
      status: { state: 'TASK_STATE_WORKING' },
      history: [],
      artifacts: [],
    },
    version,
    statusTimeMs: Date.now(),
  };
}

const event = (taskId: string, n: number): StreamResponse => ({
  statusUpdate: {
    taskId,
    contextId: 'c1',
    status: {
      state: 'TASK_STATE_WORKING',
      message: { messageId: `m${n}`, role: 'ROLE_AGENT', parts: [{ text: String(n) }] },
    },
  },
});

const messageOf = (payload: string): string =>
  (JSON.parse(payload) as { statusUpdate: { status: { message: { messageId: string } } } }).statusUpdate
    .status.message.messageId;

/** Changes of task `taskId` through `outbox`, numbered from 1. */
function changer(subject: OutboxUnderTest, taskId: string) {
  let version = 0;
  return async (n: number): Promise<void> => {
    await subject.outbox.saveChange(
      subject.taskStore,
      record(taskId, version + 1),
      version,
      event(taskId, n),
    );
    version++;
  };
}

async function addConfigs(subject: OutboxUnderTest, taskId: string, ids: string[]): Promise<void> {
  for (const id of ids) await subject.configs.put(scope, { id, taskId, url: `https://example.com/${id}` });
}

async function pending(outbox: PushOutbox): Promise<number> {
  return (await outbox.list({ state: 'pending', limit: 1000 })).length;
}

export function outboxContract(name: string, open: () => Promise<OutboxUnderTest>): void {
  const withOutbox = (fn: (subject: OutboxUnderTest) => Promise<void>) => async () => {
    const subject = await open();
    try {
      await fn(subject);
    } finally {
      await subject.close();
    }
  };

  describe(`push outbox contract: ${name}`, () => {
    test(
      'one delivery per config, the StreamResponse as payload and its generation, the task saved with it; nothing when the save is refused',
      withOutbox(async (s) => {
        await addConfigs(s, 't1', ['a', 'b']);
        const change = changer(s, 't1');
        await change(1);
        assert.equal((await s.taskStore.get(scope, 't1'))?.version, 1, 'the task change is saved');
        assert.equal(await pending(s.outbox), 2);
        await assert.rejects(
          s.outbox.saveChange(s.taskStore, record('t1', 6), 5, event('t1', 9)),
          TaskVersionConflictError,
        );
        assert.equal(await pending(s.outbox), 2, 'a refused save enqueues nothing');
        await s.outbox.saveChange(s.taskStore, record('t1', 2), 1, undefined);
        assert.equal(await pending(s.outbox), 2, 'a change without an event enqueues nothing');
        assert.equal((await s.taskStore.get(scope, 't1'))?.version, 2);
        const claimed = await s.outbox.claim('w1', 10, 60_000);
        assert.deepEqual(claimed.map((d) => d.configId).sort(), ['a', 'b']);
        assert.deepEqual(JSON.parse(claimed[0]!.payload), event('t1', 1));
        for (const d of claimed) {
          assert.equal(d.generation, 1, 'the task version the change made (GEN-6)');
          assert.equal(d.state, 'pending');
          assert.equal(d.attempts, 0);
          assert.equal(d.taskId, 't1');
          assert.equal(d.owner, 'alice');
          assert.match(d.id, /^[0-9a-f-]{36}$/);
        }
      }),
    );

    test(
      'a task without configs costs no delivery',
      withOutbox(async (s) => {
        await changer(s, 't1')(1);
        assert.equal(await pending(s.outbox), 0);
        assert.deepEqual(await s.outbox.claim('w', 10, 60_000), []);
      }),
    );

    test(
      "a config's next delivery waits for the previous one; a retried one stays first; two workers never hold the same",
      withOutbox(async (s) => {
        await addConfigs(s, 't1', ['a']);
        const change = changer(s, 't1');
        for (let i = 1; i <= 3; i++) await change(i);
        const first = await s.outbox.claim('w1', 10, 60_000);
        assert.equal(first.length, 1, 'only the head of the config');
        assert.equal(messageOf(first[0]!.payload), 'm1');
        assert.deepEqual(await s.outbox.claim('w2', 10, 60_000), [], 'leased: not handed out again');
        assert.equal(
          await s.outbox.settle(first[0]!.id, 'w2', attempt, { outcome: 'delivered' }),
          false,
          'a non-holder cannot settle',
        );
        assert.equal(
          await s.outbox.settle(first[0]!.id, 'w1', attempt, {
            outcome: 'retry',
            nextAttemptAtMs: 0,
            error: 'HTTP 500',
          }),
          true,
        );
        assert.equal(
          await s.outbox.settle(first[0]!.id, 'w1', attempt, { outcome: 'delivered' }),
          false,
          'settled once: the lease is gone',
        );
        const again = await s.outbox.claim('w2', 10, 60_000);
        assert.equal(again.length, 1);
        assert.equal(again[0]!.id, first[0]!.id, 'a retried delivery stays first');
        assert.equal(again[0]!.attempts, 1);
        assert.equal(again[0]!.lastError, 'HTTP 500');
        assert.equal(await s.outbox.settle(again[0]!.id, 'w2', delivered, { outcome: 'delivered' }), true);
        const next = await s.outbox.claim('w1', 10, 60_000);
        assert.equal(messageOf(next[0]!.payload), 'm2');
        assert.equal(next[0]!.generation, 2);
        const done = await s.outbox.get(first[0]!.id);
        assert.equal(done?.state, 'delivered');
        assert.equal(done?.attempts, 2);
        assert.equal(done?.lastError, undefined);
      }),
    );

    test(
      'a retry is not claimed before it is due',
      withOutbox(async (s) => {
        await addConfigs(s, 't1', ['a']);
        await changer(s, 't1')(1);
        const [held] = await s.outbox.claim('w', 1, 60_000);
        await s.outbox.settle(held!.id, 'w', attempt, {
          outcome: 'retry',
          nextAttemptAtMs: Date.now() + 3_600_000,
          error: 'HTTP 500',
        });
        assert.deepEqual(await s.outbox.claim('w', 10, 60_000), []);
        const due = s.outbox.nextDueAtMs?.();
        if (due !== undefined) assert.ok(due > Date.now() + 3_000_000);
      }),
    );

    test(
      'an expired lease is taken over, and the old holder can no longer settle or renew',
      withOutbox(async (s) => {
        await addConfigs(s, 't1', ['a']);
        await changer(s, 't1')(1);
        const [held] = await s.outbox.claim('w1', 1, 0);
        const [taken] = await s.outbox.claim('w2', 1, 60_000);
        assert.equal(taken!.id, held!.id);
        if (s.outbox.renew) {
          assert.equal(await s.outbox.renew(held!.id, 'w1', 60_000), false);
          assert.equal(await s.outbox.renew(taken!.id, 'w2', 60_000), true);
        }
        assert.equal(await s.outbox.settle(held!.id, 'w1', attempt, { outcome: 'delivered' }), false);
        assert.equal(await s.outbox.settle(taken!.id, 'w2', delivered, { outcome: 'delivered' }), true);
        assert.deepEqual(await s.outbox.attempts(taken!.id), [delivered], "only the holder's attempt counts");
      }),
    );

    test(
      'dead letters unblock the config; list and attempts show them; replay puts one back',
      withOutbox(async (s) => {
        await addConfigs(s, 't1', ['a']);
        const change = changer(s, 't1');
        await change(1);
        await change(2);
        const [first] = await s.outbox.claim('w', 1, 60_000);
        await s.outbox.settle(first!.id, 'w', attempt, { outcome: 'dead', error: 'gave up' });
        const [second] = await s.outbox.claim('w', 1, 60_000);
        assert.notEqual(second!.id, first!.id);
        assert.equal(messageOf(second!.payload), 'm2');
        const dead = await s.outbox.list({ state: 'dead', limit: 10 });
        assert.deepEqual(
          dead.map((d) => d.id),
          [first!.id],
        );
        assert.equal(dead[0]!.lastError, 'gave up');
        assert.deepEqual(await s.outbox.attempts(first!.id), [attempt]);
        assert.deepEqual(
          (await s.outbox.list({ taskId: 't1', limit: 10 })).map((d) => d.id),
          [second!.id, first!.id],
          'newest first',
        );
        assert.deepEqual(await s.outbox.list({ taskId: 'other', limit: 10 }), []);
        assert.equal(await s.outbox.replay(second!.id), false, 'only dead deliveries are replayed');
        assert.equal(await s.outbox.replay('no-such-id'), false);
        assert.equal(await s.outbox.replay(first!.id), true);
        const replayed = await s.outbox.get(first!.id);
        assert.equal(replayed?.state, 'pending');
        assert.equal(replayed?.attempts, 0);
        assert.equal(replayed?.lastError, undefined);
        // Still one delivery of the config at a time: the replayed one follows the one in flight.
        assert.deepEqual(await s.outbox.claim('w2', 10, 60_000), []);
        await s.outbox.settle(second!.id, 'w', delivered, { outcome: 'delivered' });
        const [back] = await s.outbox.claim('w2', 10, 60_000);
        assert.equal(back!.id, first!.id);
        await s.outbox.settle(back!.id, 'w2', delivered, { outcome: 'delivered' });
        assert.deepEqual(await s.outbox.attempts(first!.id), [attempt, delivered]);
      }),
    );

    test(
      'many tasks and configs drained by two workers: every delivery once, each config in order',
      withOutbox(async (s) => {
        const tasks = ['t1', 't2', 't3'];
        const changes = 6;
        for (const task of tasks) await addConfigs(s, task, ['a', 'b']);
        const changers = tasks.map((task) => changer(s, task));
        // Interleaved: the changes of different tasks alternate, like concurrent tasks.
        for (let i = 1; i <= changes; i++) await Promise.all(changers.map((change) => change(i)));
        const seen = new Map<string, string[]>();
        const ids = new Set<string>();
        const workers: [string, PushOutbox][] = [
          ['w1', s.outbox],
          ['w2', s.second ?? s.outbox],
        ];
        const total = tasks.length * 2 * changes;
        for (let round = 0; ids.size < total; round++) {
          assert.ok(round < total * 4, 'bounded: the outbox keeps handing out work');
          const claims = await Promise.all(workers.map(([id, outbox]) => outbox.claim(id, 4, 60_000)));
          const held = new Set<string>();
          for (const claimed of claims) {
            for (const d of claimed) {
              assert.ok(!held.has(d.id), `${d.id} claimed by two workers at once`);
              held.add(d.id);
              const key = `${d.taskId}/${d.configId}`;
              assert.ok(
                !claimed.some((o) => o !== d && `${o.taskId}/${o.configId}` === key) &&
                  !claims.some(
                    (other) => other !== claimed && other.some((o) => `${o.taskId}/${o.configId}` === key),
                  ),
                `two deliveries of ${key} at once`,
              );
            }
          }
          await Promise.all(
            claims.map((claimed, w) =>
              Promise.all(
                claimed.map(async (d) => {
                  assert.equal(
                    await workers[w]![1].settle(d.id, workers[w]![0], delivered, { outcome: 'delivered' }),
                    true,
                  );
                  ids.add(d.id);
                  const key = `${d.taskId}/${d.configId}`;
                  seen.set(key, [...(seen.get(key) ?? []), messageOf(d.payload)]);
                }),
              ),
            ),
          );
        }
        const inOrder = Array.from({ length: changes }, (_, i) => `m${i + 1}`);
        assert.equal(seen.size, tasks.length * 2);
        for (const [key, messages] of seen) assert.deepEqual(messages, inOrder, key);
        assert.equal(await pending(s.outbox), 0);
      }),
    );
  });
}
