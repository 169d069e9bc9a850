/**
 * Cloudflare Workers with the Durable Object store (issue 29): examples/cloudflare-worker (a
 * Worker sending every request to one Durable Object, whose SQLite storage holds the tasks)
 * bundled as wrangler would and run by the real `workerd` with its objects on a local disk
 * directory. The agent answers every operation, SubscribeToTask included (the object's memory
 * is the event bus of its requests); then workerd is killed (SIGKILL) and started
 * again on the same directory, and the tasks and idempotency records are still there. And crash
 * recovery: a task a killed object was running is failed by the object's next incarnation.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { A2AClient, textOf, type StreamEvent } from '../../src/client/index.js';
import { WORKERD, bundleWorker, exampleWorkerdConfig } from './workerd-support.js';
import {
  checkExampleAgent,
  freePort,
  requireBuiltPackage,
  spawnWatched,
  waitForPort,
  type WatchedProcess,
} from './support.js';

/** A worker bundled from `entry` and served by workerd on a fresh port, its objects on disk. */
async function durableObjectWorker(
  t: TestContext,
  entry: string,
  className?: string,
): Promise<{ url: string; start(): Promise<WatchedProcess> }> {
  const dir = await bundleWorker(t, entry);
  const dataDir = join(dir, 'a2a-data');
  await mkdir(dataDir);
  const port = await freePort();
  await writeFile(join(dir, 'config.capnp'), exampleWorkerdConfig(port, dataDir, className));
  return {
    url: `http://127.0.0.1:${port}`,
    start: async () => {
      // The binary itself, in its own process group, ended by the test whatever happens.
      const workerd = spawnWatched(WORKERD, ['serve', join(dir, 'config.capnp'), '--experimental']);
      t.after(() => workerd.stop('SIGKILL'));
      await waitForPort(port).catch((error: Error) => {
        throw new Error(`${error.message}; workerd said: ${workerd.output()}`);
      });
      return workerd;
    },
  };
}

test('workerd Durable Object store: every operation, and tasks and idempotency survive a kill', async (t) => {
  await requireBuiltPackage();
  const { url, start } = await durableObjectWorker(t, 'examples/cloudflare-worker/worker.mjs');

  const first = await start();
  // Card, SendMessage, SendStreamingMessage (SSE), GetTask, CancelTask.
  await checkExampleAgent(url);
  let client = await A2AClient.connect(url);
  const sent = await client.send({ text: 'keep this', messageId: 'durable-message-1' });
  assert.equal(sent.kind, 'task');
  const taskId = sent.kind === 'task' ? sent.task.id : '';
  // SubscribeToTask on a task another request started, ended by a CancelTask from a third: the
  // object's own event bus carries the change between them.
  const waiting = await client.send({ text: 'wait', returnImmediately: true });
  const waitingId = waiting.kind === 'task' ? waiting.task.id : '';
  const subscription = client.subscribeToTask(waitingId);
  const snapshot = await subscription.next();
  assert.equal(!snapshot.done && snapshot.value.kind, 'task');
  const canceler = await A2AClient.connect(url);
  assert.equal((await canceler.cancelTask(waitingId)).status.state, 'TASK_STATE_CANCELED');
  await canceler.close();
  const events: StreamEvent[] = [];
  for await (const event of subscription) events.push(event);
  const end = events.at(-1);
  assert.equal(end?.kind === 'statusUpdate' && end.statusUpdate.status.state, 'TASK_STATE_CANCELED');
  const listed = await client.listTasks({ pageSize: 2 });
  // Three sends and two canceled waits by now, newest first.
  assert.equal(listed.totalSize, 5);
  assert.equal(listed.tasks[0]?.id, waitingId);
  assert.equal(listed.tasks[1]?.id, taskId);
  assert.equal(listed.tasks.length, 2);
  assert.ok(listed.nextPageToken, 'a second page follows');
  const rest = await client.listTasks({ pageSize: 2, pageToken: listed.nextPageToken });
  assert.equal(rest.tasks.length, 2);
  const canceled = await client.listTasks({ status: 'TASK_STATE_CANCELED' });
  assert.equal(canceled.tasks.length, 2);
  await client.close();

  // SIGKILL: nothing is flushed on the way out; what was answered was already on disk.
  await first.stop('SIGKILL');
  await start();
  client = await A2AClient.connect(url);
  try {
    const got = await client.getTask(taskId);
    assert.equal(got.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(textOf(got.artifacts?.[0]), 'you said: keep this');
    // The same messageId again: the same task, not a new one.
    const again = await client.send({ text: 'keep this', messageId: 'durable-message-1' });
    assert.equal(again.kind === 'task' ? again.task.id : '', taskId);
    const after = await client.listTasks({});
    assert.equal(after.totalSize, 5);
    // A page token from before the restart still works: the secret is stored too.
    const resumed = await client.listTasks({ pageSize: 2, pageToken: listed.nextPageToken });
    assert.deepEqual(
      resumed.tasks.map((task) => task.id),
      rest.tasks.map((task) => task.id),
    );
  } finally {
    await client.close();
  }
});

test('workerd Durable Object store: a task the killed object was running is failed by its next start', async (t) => {
  await requireBuiltPackage();
  const { url, start } = await durableObjectWorker(
    t,
    'test/runtimes/durable-object-recovery-worker.mjs',
    'HoldingAgent',
  );
  const first = await start();
  let client = await A2AClient.connect(url);
  const sent = await client.send({ text: 'hold', returnImmediately: true });
  const taskId = sent.kind === 'task' ? sent.task.id : '';
  // Held once WORKING: the execution runs, under its lease.
  let state = '';
  for (let i = 0; i < 100 && state !== 'TASK_STATE_WORKING'; i++) {
    state = (await client.getTask(taskId)).status.state;
    if (state !== 'TASK_STATE_WORKING') await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.equal(state, 'TASK_STATE_WORKING');
  await client.close();
  await first.stop('SIGKILL');

  await start();
  client = await A2AClient.connect(url);
  try {
    // The first request wakes the object; its lease heartbeat finds the dead one's lease expired.
    for (let i = 0; i < 150 && state === 'TASK_STATE_WORKING'; i++) {
      state = (await client.getTask(taskId)).status.state;
      if (state === 'TASK_STATE_WORKING') await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.equal(state, 'TASK_STATE_FAILED');
  } finally {
    await client.close();
  }
});
