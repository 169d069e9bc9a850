/**
 * Issue 26, defect 4, made deterministic: the outbox answers a retry settlement only after the
 * next claim (which takes the same delivery again, its retry being due at once) was answered,
 * as two PostgreSQL connections may, or two writes of one SQLite batch did. The worker once
 * filed both claims of the delivery under its id: the late settlement removed the new claim's
 * entry, and the worker died of a TypeError (or lost the new POST's answer and waited for the
 * lease). Each claim must be its own flight, settled under its own lease.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryPushOutbox } from '../../../src/core/push/memory-outbox.js';
import type { PushAttempt, PushDelivery, PushOutbox, PushSettlement } from '../../../src/core/push/outbox.js';
import { RetryPolicy } from '../../../src/core/push/retry-policy.js';
import { MemoryPushConfigStore } from '../../../src/core/stores/memory/push-config-store.js';
import { MemoryTaskStore } from '../../../src/core/stores/memory/task-store.js';
import { PushDeliveryWorker } from '../../../src/server/push/delivery-worker.js';
import { startWebhook, until } from './support.js';

/**
 * The memory outbox, with each settlement applied at once but answered only after the claim
 * that follows it was answered (and that claim started by the settlement's wake-up).
 */
class LateSettlements implements PushOutbox {
  readonly processLocal = true;
  readonly #held: (() => void)[] = [];
  readonly #listeners: (() => void)[] = [];
  /** Settlements applied and not yet answered when a claim took their delivery again. */
  overlaps = 0;
  #settledIds = new Set<string>();

  constructor(readonly inner: MemoryPushOutbox) {}

  saveChange: PushOutbox['saveChange'] = (...args) => this.inner.saveChange(...args);

  async claim(workerId: string, limit: number, leaseMs: number): Promise<PushDelivery[]> {
    const claimed = await this.inner.claim(workerId, limit, leaseMs);
    for (const d of claimed) if (this.#settledIds.has(d.id)) this.overlaps++;
    // The held settlements are answered after this claim's answer (a turn later).
    const held = this.#held.splice(0);
    if (held.length > 0) setImmediate(() => held.forEach((answer) => answer()));
    return claimed;
  }

  async settle(
    id: string,
    workerId: string,
    attempt: PushAttempt,
    settlement: PushSettlement,
  ): Promise<boolean> {
    const settled = await this.inner.settle(id, workerId, attempt, settlement);
    this.#settledIds.add(id);
    await new Promise<void>((resolve) => {
      this.#held.push(resolve);
      // Wake the worker now, so its next claim comes before this answer.
      for (const listener of this.#listeners) listener();
    });
    this.#settledIds.delete(id);
    return settled;
  }

  renew = (id: string, workerId: string, leaseMs: number) => this.inner.renew!(id, workerId, leaseMs);
  get = (id: string) => this.inner.get(id);
  list: PushOutbox['list'] = (query) => this.inner.list(query);
  attempts = (id: string) => this.inner.attempts(id);
  replay = (id: string) => this.inner.replay(id);
  nextDueAtMs = () => this.inner.nextDueAtMs();
  onEnqueued(listener: () => void): void {
    this.#listeners.push(listener);
    this.inner.onEnqueued(listener);
  }
}

test('defect 4: a retry settled after its next claim was answered neither crashes the worker nor loses the claim', async (t) => {
  const crashes: unknown[] = [];
  const onCrash = (error: unknown): void => void crashes.push(error);
  process.on('unhandledRejection', onCrash);
  t.after(() => process.off('unhandledRejection', onCrash));
  const hook = await startWebhook(() => 503);
  t.after(() => hook.close());
  const configs = new MemoryPushConfigStore();
  const outbox = new LateSettlements(new MemoryPushOutbox(configs));
  const store = new MemoryTaskStore();
  const scope = { tenant: '', owner: 'alice' };
  const status = { state: 'TASK_STATE_WORKING' as const };
  for (let i = 0; i < 4; i++) {
    const taskId = `t${i}`;
    await configs.put(scope, { id: 'c', taskId, url: hook.url });
    await outbox.saveChange(
      store,
      {
        ...scope,
        task: { id: taskId, contextId: 'c', status, history: [], artifacts: [] },
        version: 1,
        statusTimeMs: Date.now(),
      },
      0,
      { statusUpdate: { taskId, contextId: 'c', status } },
    );
  }
  const errors: unknown[] = [];
  const worker = new PushDeliveryWorker({
    outbox,
    configs,
    senderThread: false,
    addressPolicy: { allowHosts: ['127.0.0.1'], allowHttp: true },
    retry: new RetryPolicy({ baseDelayMs: 0, maxDelayMs: 0, maxAttempts: 6 }),
    timeoutMs: 2000,
    leaseMs: 600_000, // a lost answer would hold its delivery past the wait below
    onError: (error) => errors.push(error),
  });
  t.after(() => worker.close());
  worker.start();
  const dead = async () => (await outbox.inner.list({ state: 'dead', limit: 10 })).length;
  await until(
    async () => (await dead()) === 4 || crashes.length > 0,
    'every delivery to die after 6 attempts',
    20_000,
  );
  assert.deepEqual(crashes.map(String), [], 'no unhandled rejection');
  assert.ok(outbox.overlaps > 0, 'a claim took a delivery whose settlement was not answered yet');
  assert.deepEqual(errors.map(String), []);
  for (const delivery of await outbox.inner.list({ state: 'dead', limit: 10 })) {
    assert.equal(delivery.attempts, 6, delivery.id);
  }
  assert.equal(hook.received.length, 0);
});
