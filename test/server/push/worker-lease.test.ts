/**
 * Issue 26, defect 8 (push half): a push lease must outlast the POST it covers (`leaseMs` >
 * `timeoutMs`), else another claim takes the delivery while the first POST still runs and it
 * is sent twice at once. The server refuses such options when it is made, with the reason.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryPushOutbox } from '../../../src/core/push/memory-outbox.js';
import { MemoryPushConfigStore } from '../../../src/core/stores/memory/push-config-store.js';
import { PushDeliveryWorker } from '../../../src/server/push/delivery-worker.js';
import { createA2AServer } from '../../../src/server/http.js';
import { CARD, LOOPBACK_PUSH, pushAgent } from './support.js';

const refused = /push leaseMs \(\d+\) must exceed timeoutMs \(\d+\)/;

test('defect 8: a server whose push leaseMs does not exceed timeoutMs is refused at startup', () => {
  const agent = pushAgent().agent;
  for (const push of [
    { ...LOOPBACK_PUSH, timeoutMs: 2000, leaseMs: 1000 },
    { ...LOOPBACK_PUSH, timeoutMs: 2000, leaseMs: 2000 },
    { ...LOOPBACK_PUSH, leaseMs: 10_000 }, // below the default timeoutMs of 15 s
  ]) {
    assert.throws(
      () => createA2AServer({ agent, card: CARD, store: 'memory', pushNotifications: true, push }),
      (error: unknown) => error instanceof RangeError && refused.test(error.message),
      JSON.stringify(push),
    );
  }
});

test('defect 8: the worker accepts a lease longer than the timeout, and its default', async () => {
  const configs = new MemoryPushConfigStore();
  const outbox = new MemoryPushOutbox(configs);
  for (const options of [{ timeoutMs: 2000, leaseMs: 2001 }, { timeoutMs: 60_000 }, {}]) {
    const worker = new PushDeliveryWorker({ outbox, configs, senderThread: false, ...options });
    await worker.close();
  }
});
