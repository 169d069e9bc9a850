/**
 * The delivery worker's sender thread (issue 12): the signing and the POSTs run on a worker
 * thread of the worker's own, fed in batches. Notifications still arrive signed and in order
 * per config; close() in the middle of a backlog aborts and gives back; a sender thread that
 * dies (terminated through the test hook) loses nothing: what it held is retried on a new one.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { MemoryPushOutbox } from '../../../src/core/push/memory-outbox.js';
import { NotificationSigner, sha256Hex } from '../../../src/core/push/notification-signing.js';
import { RetryPolicy } from '../../../src/core/push/retry-policy.js';
import { MemoryPushConfigStore } from '../../../src/core/stores/memory/push-config-store.js';
import { MemoryTaskStore } from '../../../src/core/stores/memory/task-store.js';
import {
  PushDeliveryWorker,
  type PushDeliveryWorkerOptions,
} from '../../../src/server/push/delivery-worker.js';
import { startWebhook, until } from './support.js';

const scope = { tenant: '', owner: 'alice' };

/**
 * A memory outbox with `configs` configs on task `t1` pointing at `url`, a way to enqueue, and
 * a delivery worker on that outbox (loopback allowed) with the given further options.
 */
async function setup(url: string, configs: number) {
  const configStore = new MemoryPushConfigStore();
  const outbox = new MemoryPushOutbox(configStore);
  const tasks = new MemoryTaskStore();
  for (let i = 0; i < configs; i++) {
    await configStore.put(scope, { id: `c${i}`, taskId: 't1', url: `${url}?config=c${i}` });
  }
  let version = 0;
  /** Saves one change of t1 whose notification carries `n` (in `metadata.n`). */
  const enqueue = async (n: number): Promise<void> => {
    const task = {
      id: 't1',
      contextId: 'ctx',
      status: { state: 'TASK_STATE_WORKING' as const, timestamp: new Date().toISOString() },
      history: [],
      artifacts: [],
    };
    await outbox.saveChange(
      tasks,
      { ...scope, task, version: version + 1, statusTimeMs: Date.now() },
      version,
      { statusUpdate: { taskId: 't1', contextId: 'ctx', status: task.status, metadata: { n } } },
    );
    version++;
  };
  type Extra = Omit<PushDeliveryWorkerOptions, 'outbox' | 'configs' | 'addressPolicy'>;
  const newWorker = (extra: Extra): PushDeliveryWorker =>
    new PushDeliveryWorker({ outbox, configs: configStore, addressPolicy: LOOPBACK, ...extra });
  return { outbox, enqueue, newWorker };
}

/** The `metadata.n` of a notification. */
function nOf(json: Record<string, unknown>): number {
  return (json.statusUpdate as { metadata: { n: number } }).metadata.n;
}

const LOOPBACK = { allowHosts: ['127.0.0.1'], allowHttp: true };

describe('push sender thread', () => {
  for (const senderThread of [true, false]) {
    test(`senderThread ${senderThread}: every notification arrives signed, in order per config`, async (t) => {
      const hook = await startWebhook();
      t.after(() => hook.close());
      const { enqueue, newWorker } = await setup(hook.url, 3);
      const signer = new NotificationSigner();
      const worker = newWorker({
        signer,
        senderThread,
        onError: (error) => assert.fail(String(error)),
      });
      t.after(() => worker.close());
      worker.start();
      for (let n = 0; n < 20; n++) await enqueue(n);
      await until(() => hook.received.length >= 60, 'sixty notifications');
      const jwks = createLocalJWKSet(JSON.parse(signer.jwksJson) as Parameters<typeof createLocalJWKSet>[0]);
      const perConfig = new Map<string, number[]>();
      for (const r of hook.received) {
        const token = String(r.headers['x-a2a-notification-signature']);
        const { payload } = await jwtVerify(token, jwks);
        assert.equal(payload.request_body_sha256, sha256Hex(r.body));
        assert.equal(payload.jti, r.headers['x-a2a-notification-id']);
        const aud = String(payload.aud);
        perConfig.set(aud, [...(perConfig.get(aud) ?? []), nOf(r.json)]);
      }
      assert.equal(perConfig.size, 3);
      for (const [, ns] of perConfig)
        assert.deepEqual(
          ns,
          Array.from({ length: 20 }, (_, i) => i),
        );
      // A thread ran the POSTs exactly when one was asked for.
      assert.equal(await worker.terminateSenderThread(), senderThread);
    });
  }

  test('a sender thread that dies loses nothing: what it held is retried on a new thread, in order', async (t) => {
    // The first five POSTs hang, held by the thread; the rest are answered.
    const seen: number[] = [];
    const hook = await startWebhook((i, r) => {
      seen.push(nOf(r.json));
      return i < 5 ? 'hang' : 200;
    });
    t.after(() => hook.close());
    const { outbox, enqueue, newWorker } = await setup(hook.url, 5);
    const worker = newWorker({
      retry: new RetryPolicy({ baseDelayMs: 10, maxDelayMs: 20 }),
      onError: () => {}, // the thread's end is reported here; not a failure of this test
    });
    t.after(() => worker.close());
    worker.start();
    // Until the thread is up, deliveries go out from this loop: let it boot first.
    assert.equal(await worker.senderThreadReady(), true);
    for (let n = 0; n < 4; n++) await enqueue(n);
    await until(() => seen.length >= 5, 'five POSTs held by the thread');
    assert.equal(await worker.terminateSenderThread(), true);
    await until(() => outbox.pendingCount === 0, 'every delivery settled');
    const deliveries = await outbox.list({ limit: 100 });
    assert.equal(deliveries.length, 20);
    assert.ok(
      deliveries.every((d) => d.state === 'delivered'),
      'all delivered, none dead',
    );
    const perConfig = new Map<string, number[]>();
    for (const r of hook.received) {
      const id = String(r.headers['x-a2a-notification-id']);
      const delivery = deliveries.find((d) => d.id === id)!;
      perConfig.set(delivery.configId, [...(perConfig.get(delivery.configId) ?? []), nOf(r.json)]);
    }
    for (const [, ns] of perConfig) assert.deepEqual(ns, [0, 1, 2, 3], 'order per config kept');
    // The held ones were settled once, as a failed attempt, then delivered.
    const stopped = [];
    for (const d of deliveries) {
      const attempts = await outbox.attempts(d.id);
      if (attempts.some((a) => /ESENDERSTOPPED/.test(a.error ?? ''))) stopped.push(attempts);
    }
    assert.equal(stopped.length, 5);
    for (const attempts of stopped) {
      assert.equal(attempts.length, 2);
      assert.equal(attempts[1]!.ok, true);
    }
  });

  test('close() in the middle of a backlog aborts the running POSTs and gives them back', async (t) => {
    let posts = 0;
    const hook = await startWebhook(() => {
      posts++;
      return 'hang';
    });
    t.after(() => hook.close());
    const { outbox, enqueue, newWorker } = await setup(hook.url, 4);
    const worker = newWorker({
      closeGraceMs: 50,
      onError: (error) => assert.fail(String(error)),
    });
    worker.start();
    for (let n = 0; n < 3; n++) await enqueue(n);
    await until(() => posts >= 4, 'four POSTs running');
    await worker.close();
    assert.equal(outbox.pendingCount, 12, 'nothing lost');
    const now = Date.now();
    const claimed = await outbox.claim('next-worker', 100, 60_000);
    assert.equal(claimed.length, 4, "each config's oldest is claimable at once by the next worker");
    for (const d of claimed) {
      assert.equal(d.attempts, 1);
      assert.equal(d.lastError, 'interrupted: the server stopped');
      assert.ok(d.nextAttemptAtMs <= now);
      const data = JSON.parse(d.payload) as Record<string, unknown>;
      assert.equal(nOf(data), 0, 'the first of each config');
    }
  });
});
