/**
 * Issue 26, defect 6: on SQLite a push claim never leases a notification whose change is
 * committed but not yet on disk. A failed sync of the log (an fdatasync EIO, injected with the
 * test-only `beforeSyncForTests`) stops the store: no notification of the changes it covered
 * is POSTed (none was streamed), and those changes, reported as failed, are not readable.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { A2AClient } from '../../../src/client/client.js';
import type { StreamEvent } from '../../../src/client/stream-events.js';
import type { AgentExecutor } from '../../../src/core/executor.js';
import { openStores } from '../../../src/core/stores/open.js';
import { SqlitePushOutbox } from '../../../src/core/stores/sqlite/push-outbox.js';
import { createA2AServer } from '../../../src/server/http.js';
import { CARD, kindOf, LOOPBACK_PUSH, startWebhook, until } from '../../server/push/support.js';

/** An EIO as `fdatasync` reports it. */
function eio(): NodeJS.ErrnoException {
  return Object.assign(new Error('EIO: i/o error, fdatasync'), {
    code: 'EIO',
    errno: -5,
    syscall: 'fdatasync',
  });
}

function kindOfEvent(event: StreamEvent): string {
  if (event.kind === 'task') return `task:${event.task.status.state.replace('TASK_STATE_', '')}`;
  if (event.kind === 'statusUpdate')
    return `status:${event.statusUpdate.status.state.replace('TASK_STATE_', '')}`;
  if (event.kind === 'artifactUpdate') return `artifact:${event.artifactUpdate.artifact.artifactId}`;
  return event.kind;
}

test('defect 6: after a failed log sync no unsynced notification is POSTed and the failed writes are not visible', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-sync-failure-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  let failSyncs = false;
  const stores = openStores(`sqlite:${join(dir, 'a2a.sqlite')}`, {
    sqlite: { beforeSyncForTests: () => (failSyncs ? Promise.reject(eio()) : Promise.resolve()) },
  });
  t.after(() => stores.close());
  const outbox = stores.pushOutbox;
  assert.ok(outbox instanceof SqlitePushOutbox);
  let go: () => void = () => {};
  const gate = new Promise<void>((resolve) => (go = resolve));
  const agent: AgentExecutor = {
    async execute(_ctx, task) {
      await task.working('starting');
      await gate;
      // Written after the disk fails: committed, never synced.
      await task.artifact({ artifactId: 'late', parts: [{ text: 'never durable' }] });
      await task.complete();
    },
  };
  const hook = await startWebhook(() => 200);
  t.after(() => hook.close());
  const errors: unknown[] = [];
  const server = createA2AServer({
    agent,
    card: CARD,
    store: stores.taskStore,
    pushNotifications: true,
    onError: (error) => errors.push(error),
    // A short poll: a worker that could see the unsynced rows would claim them at once.
    push: { ...LOOPBACK_PUSH, configStore: stores.pushConfigStore, outbox: stores.pushOutbox, pollMs: 10 },
  });
  const { url } = await server.listen(0, '127.0.0.1');
  t.after(() => server.close());
  const client = await A2AClient.connect(url);
  t.after(() => client.close());

  const streamed: string[] = [];
  let taskId = '';
  const stream = client.stream({ text: 'go', pushNotificationConfig: { url: hook.url } });
  const reading = (async () => {
    try {
      for await (const event of stream) {
        streamed.push(kindOfEvent(event));
        if (event.kind === 'task') taskId = event.task.id;
      }
    } catch {
      // The stream may end with an error: it must end, either way.
    }
  })();
  await until(() => hook.received.length >= 1, 'the WORKING notification');
  assert.deepEqual(
    hook.received.map((r) => kindOf(r.json)),
    ['task:WORKING'],
  );
  failSyncs = true;
  go();
  await until(() => outbox.database.failure !== undefined, 'the store to stop after the failed sync');
  // Polls that would have claimed the unsynced rows (pollMs: 10) come and go.
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual(
    hook.received.map((r) => kindOf(r.json)),
    ['task:WORKING'],
    'nothing POSTed of the changes whose sync failed',
  );
  assert.ok(!streamed.includes('artifact:late') && !streamed.includes('status:COMPLETED'), streamed.join());
  await assert.rejects(client.getTask(taskId), 'the task is not read from a store whose last writes failed');
  await assert.rejects(
    stores.taskStore.get({ tenant: '', owner: 'anonymous' }, taskId),
    /syncing its log failed/,
  );
  await assert.rejects(stores.pushOutbox.claim('another', 10, 60_000), /syncing its log failed/);
  // Streams ending here is the handler's part (its final FAILED write fails too): issue 26, defect 3.
  void reading;
});

test('defect 6: a claim in the same batch as a change sees its notification only once the change is synced', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-sync-claim-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  let releaseSync: (() => void) | undefined;
  let holding = false;
  const stores = openStores(`sqlite:${join(dir, 'a2a.sqlite')}`, {
    sqlite: {
      beforeSyncForTests: () =>
        holding ? new Promise<void>((resolve) => (releaseSync = resolve)) : Promise.resolve(),
    },
  });
  t.after(() => stores.close());
  const scope = { tenant: '', owner: 'alice' };
  await stores.pushConfigStore.put(scope, { id: 'c', taskId: 't1', url: 'https://example.com/hook' });
  holding = true; // from now on each sync waits for the test
  const status = { state: 'TASK_STATE_WORKING' as const };
  const saved = stores.pushOutbox.saveChange(
    stores.taskStore,
    {
      ...scope,
      task: { id: 't1', contextId: 'c', status, history: [], artifacts: [] },
      version: 1,
      statusTimeMs: Date.now(),
    },
    0,
    { statusUpdate: { taskId: 't1', contextId: 'c', status } },
  );
  // Queued in the same turn: the same write batch as the change, answered at its commit.
  const early = await stores.pushOutbox.claim('worker', 10, 60_000);
  assert.deepEqual(early, [], 'nothing is claimable while its change is not on disk');
  holding = false;
  await until(() => releaseSync !== undefined, 'the sync to start');
  releaseSync!();
  await saved;
  const late = await stores.pushOutbox.claim('worker', 10, 60_000);
  assert.equal(late.length, 1, 'claimable once synced');
});
