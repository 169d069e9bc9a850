/**
 * Cloudflare Workers with the Durable Object store (issue 29): examples/cloudflare-worker (a
 * Worker sending every request to one Durable Object, whose SQLite storage holds the tasks)
 * bundled as wrangler would and run by the real `workerd` with its objects on a local disk
 * directory. The agent answers every operation, SubscribeToTask included (the object's memory
 * is the event bus of its requests); then workerd is killed (SIGKILL) and started
 * again on the same directory, and the tasks and idempotency records are still there.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { A2AClient, textOf, type StreamEvent } from '../../src/client/index.js';
import { WORKERD, bundleWorker } from './workerd-support.js';
import {
  checkExampleAgent,
  freePort,
  requireBuiltPackage,
  spawnWatched,
  waitForPort,
  type WatchedProcess,
} from './support.js';

/** The workerd config of the example (as its build.mjs writes it), objects kept in `dataDir`. */
function durableObjectConfig(port: number, dataDir: string): string {
  return `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    (name = "a2a-data", disk = (path = ${JSON.stringify(dataDir)}, writable = true)),
  ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [ (name = "worker.js", esModule = embed "worker.js") ],
  compatibilityDate = "2025-09-01",
  compatibilityFlags = ["nodejs_compat", "enable_request_signal"],
  durableObjectNamespaces = [ (className = "A2AAgent", uniqueKey = "a2a-anywhere-agent", enableSql = true) ],
  durableObjectStorage = (localDisk = "a2a-data"),
  bindings = [ (name = "A2A_AGENT", durableObjectNamespace = "A2AAgent") ],
);
`;
}

test('workerd Durable Object store: every operation, and tasks and idempotency survive a kill', async (t) => {
  await requireBuiltPackage();
  const dir = await bundleWorker(t, 'examples/cloudflare-worker/worker.mjs');
  const dataDir = join(dir, 'a2a-data');
  await mkdir(dataDir);
  const port = await freePort();
  await writeFile(join(dir, 'config.capnp'), durableObjectConfig(port, dataDir));
  const start = async (): Promise<WatchedProcess> => {
    // The binary itself, in its own process group, ended by the test whatever happens.
    const workerd = spawnWatched(WORKERD, ['serve', join(dir, 'config.capnp'), '--experimental']);
    t.after(() => workerd.stop('SIGKILL'));
    await waitForPort(port).catch((error: Error) => {
      throw new Error(`${error.message}; workerd said: ${workerd.output()}`);
    });
    return workerd;
  };
  const url = `http://127.0.0.1:${port}`;

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
