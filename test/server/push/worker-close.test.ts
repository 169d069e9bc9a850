/**
 * The delivery worker's close() while a claim is still on its way (a SQL outbox answers claims
 * asynchronously): close waits for it, and what it claimed is given back at once, not left
 * leased to a worker that will never send it (the next server would wait for the lease).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openStores } from '../../../src/core/stores/open.js';
import { PushDeliveryWorker } from '../../../src/server/push/delivery-worker.js';

test('close() during a claim waits for it and gives the claimed deliveries back', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-worker-close-'));
  const stores = openStores(`sqlite:${join(dir, 'a2a.sqlite')}`);
  t.after(async () => {
    await stores.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const scope = { tenant: '', owner: 'alice' };
  await stores.pushConfigStore.put(scope, { id: 'a', taskId: 't1', url: 'https://example.com/a' });
  await stores.pushOutbox.saveChange(
    stores.taskStore,
    {
      ...scope,
      task: { id: 't1', contextId: 'c', status: { state: 'TASK_STATE_WORKING' }, history: [], artifacts: [] },
      version: 1,
      statusTimeMs: Date.now(),
    },
    0,
    { statusUpdate: { taskId: 't1', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } },
  );
  const worker = new PushDeliveryWorker({
    outbox: stores.pushOutbox,
    configs: stores.pushConfigStore,
    leaseMs: 3_600_000,
    onError: (error) => assert.fail(String(error)),
  });
  worker.start(); // its claim is queued for the next write batch
  await worker.close(); // in the same turn: before the claim is answered
  const [free] = await stores.pushOutbox.claim('next-server', 10, 60_000);
  assert.ok(free, 'the delivery is claimable at once by the next worker');
  assert.equal(free.attempts, 0, 'giving it back is not an attempt');
});
