/**
 * SRV-PUSH-5 on real stores and sockets: the SQLite outbox outlives the server (a receiver that
 * is down, a server closed with the backlog, the next server on the file delivers it, once and
 * in order); two replicas on one PostgreSQL share the outbox and each notification is
 * delivered by one of them only.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { A2AClient } from '../../../src/client/client.js';
import { openStores } from '../../../src/core/stores/open.js';
import { exitCode, isRunning, waitForLine } from '../../support/cli.js';
import { dropSchema, freshSchema, postgresUrl } from '../../support/postgres.js';
import {
  freePort,
  kindOf,
  LOOPBACK_PUSH,
  pushAgent,
  startPushServer,
  startWebhook,
  until,
  type Received,
} from './support.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

const steps = (n: number) => [
  'task:WORKING',
  ...Array.from({ length: n }, (_, i) => `artifact:a${i}`),
  'status:COMPLETED',
];

const idOf = (r: Received): string => String(r.headers['x-a2a-notification-id']);

/** The task a notification is about. */
function taskOf(json: Record<string, unknown>): string {
  const body = (json.task ?? json.statusUpdate ?? json.artifactUpdate) as { id?: string; taskId?: string };
  return String(body.taskId ?? body.id);
}

test('SRV-PUSH-5 (SQLite): notifications pending when the server closes are delivered by the next server on the file', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-push-durable-'));
  const cleanup: (() => unknown)[] = [() => rmSync(dir, { recursive: true, force: true })];
  t.after(async () => {
    for (const step of cleanup.reverse()) await step();
  });
  const store = `sqlite:${join(dir, 'a2a.sqlite')}` as const;
  const port = await freePort(); // the receiver is down: nothing listens there yet
  const { agent } = pushAgent();
  const push = { ...LOOPBACK_PUSH, maxAttempts: 1000, closeGraceMs: 50 };
  const first = await startPushServer(agent, push, { store });
  let firstClosed = false;
  cleanup.push(() => (firstClosed ? undefined : first.server.close()));
  const client = await A2AClient.connect(first.url);
  cleanup.push(() => client.close());
  const reply = await client.send({
    text: 'steps:2',
    pushNotificationConfig: { url: `http://127.0.0.1:${port}/hook` },
  });
  assert.equal(reply.kind, 'task');
  await first.server.close();
  firstClosed = true;

  // Between the servers: the four notifications wait in the file, none delivered.
  const stores = openStores(store);
  const pending = await stores.pushOutbox.list({ state: 'pending', limit: 100 });
  const attempted = await stores.pushOutbox.attempts(pending[pending.length - 1]!.id);
  await stores.close();
  assert.equal(pending.length, 4);
  assert.ok(attempted.length > 0 && attempted.every((a) => !a.ok), 'tried while the receiver was down');

  const hook = await startWebhook(() => 200, port);
  cleanup.push(() => hook.close());
  const second = await startPushServer(agent, push, { store });
  cleanup.push(() => second.server.close());
  await until(() => hook.received.length >= 4, 'the backlog delivered after the restart');
  assert.deepEqual(
    hook.received.map((r) => kindOf(r.json)),
    steps(2),
  );
  assert.deepEqual(
    hook.received.map(idOf).sort(),
    pending.map((d) => d.id).sort(),
    'the notifications enqueued before the restart, each once',
  );
});

test('SRV-PUSH-5 (SQLite): a server process killed (SIGKILL) with a backlog; the next start delivers it once, in order', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-push-kill-'));
  const cleanup: (() => unknown)[] = [() => rmSync(dir, { recursive: true, force: true })];
  t.after(async () => {
    for (const step of cleanup.reverse()) await step();
  });
  const store = `sqlite:${join(dir, 'a2a.sqlite')}` as const;
  const port = await freePort(); // the receiver is down while the first process lives
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/push-child.ts', store], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  cleanup.push(() => (isRunning(child) ? child.kill('SIGKILL') : undefined));
  const [, url] = await waitForLine(child, /^listening (\S+)$/m);
  const client = await A2AClient.connect(url!);
  cleanup.push(() => client.close());
  const reply = await client.send({
    text: 'steps:3',
    pushNotificationConfig: { url: `http://127.0.0.1:${port}/hook` },
  });
  assert.equal(reply.kind, 'task');
  // The task is complete, so its five notifications are committed; the worker keeps retrying.
  for (let i = 0; i < 200; i++) {
    const task = await client.getTask(reply.kind === 'task' ? reply.task.id : '');
    if (task.status.state === 'TASK_STATE_COMPLETED') break;
    await new Promise((r) => setTimeout(r, 10));
  }
  child.kill('SIGKILL');
  await exitCode(child);

  const hook = await startWebhook(() => 200, port);
  cleanup.push(() => hook.close());
  const { agent } = pushAgent();
  const next = await startPushServer(agent, { ...LOOPBACK_PUSH, maxAttempts: 1000 }, { store });
  cleanup.push(() => next.server.close());
  // A delivery the killed process had leased waits for its lease (1.5 s) to expire.
  await until(() => hook.received.length >= 5, 'the backlog delivered after the kill');
  assert.deepEqual(
    hook.received.map((r) => kindOf(r.json)),
    steps(3),
  );
  const ids = hook.received.map(idOf);
  assert.equal(new Set(ids).size, 5, 'each once');
});

test('SRV-PUSH-5 (PostgreSQL): two replicas share the outbox; every notification is delivered once, by one replica', async (t) => {
  const schema = freshSchema('push_replicas');
  // After hooks run in the order they are added: the schema goes last, after every server.
  const cleanup: (() => Promise<void>)[] = [() => dropSchema(schema)];
  t.after(async () => {
    for (const step of cleanup.reverse()) await step();
  });
  const store = `${postgresUrl()}?schema=${schema}` as `postgres://${string}`;
  const hook = await startWebhook();
  cleanup.push(() => hook.close());
  const { agent } = pushAgent();
  const push = { ...LOOPBACK_PUSH, concurrency: 4, pollMs: 50 };
  const a = await startPushServer(agent, push, { store });
  cleanup.push(() => a.server.close());
  const b = await startPushServer(agent, push, { store });
  cleanup.push(() => b.server.close());
  const clientA = await A2AClient.connect(a.url);
  cleanup.push(() => clientA.close());
  const clientB = await A2AClient.connect(b.url);
  cleanup.push(() => clientB.close());
  const tasks = 12;
  const sends = [];
  for (let i = 0; i < tasks; i++) {
    const client = i % 2 ? clientA : clientB;
    sends.push(client.send({ text: 'steps:2', pushNotificationConfig: { url: hook.url } }));
  }
  await Promise.all(sends);
  const total = tasks * 4;
  await until(() => hook.received.length >= total, `${total} notifications`);
  const ids = hook.received.map(idOf);
  assert.equal(new Set(ids).size, ids.length, 'no notification delivered twice');
  assert.equal(ids.length, total);
  const byTask = new Map<string, string[]>();
  for (const r of hook.received)
    byTask.set(taskOf(r.json), [...(byTask.get(taskOf(r.json)) ?? []), kindOf(r.json)]);
  assert.equal(byTask.size, tasks);
  for (const [task, kinds] of byTask) assert.deepEqual(kinds, steps(2), `task ${task} in order`);
  // Both replicas see the same outbox: nothing is left pending for either. A delivery is
  // settled after its receiver answered, so the last settlements may still be on their way.
  const stores = openStores(store);
  cleanup.push(() => stores.close());
  await stores.ready;
  const pending = () => stores.pushOutbox.list({ state: 'pending', limit: 10 });
  await until(async () => (await pending()).length === 0, 'the last settlements', 5_000).catch(() => {});
  assert.deepEqual(await pending(), []);
  assert.equal((await stores.pushOutbox.list({ state: 'delivered', limit: 1000 })).length, total);
});
