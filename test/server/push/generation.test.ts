/**
 * GEN-6 on real servers, stores and receivers: a push config registered by a call that opted in
 * to the A2A 1.1 draft (`A2A-Version: 1.1`, or the generation extension in `A2A-Extensions`)
 * gets every change with its `generation`, consecutive per task and equal to what GetTask
 * reports to a call that opted in; on memory, on SQLite across a restart (the opt-in and the
 * generations of the backlog are stored), and on two PostgreSQL replicas sharing the outbox.
 * A v1.0 config of the same task gets the same bodies without it, and the opt-in never shows in
 * a push-config answer. The v1.0 bytes themselves: test/bindings/generation-push-golden.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AgentExecutor } from '../../../src/core/executor.js';
import { GENERATION_EXTENSION } from '../../../src/core/generation.js';
import { openStores } from '../../../src/core/stores/open.js';
import { dropSchema, freshSchema, postgresUrl } from '../../support/postgres.js';
import {
  freePort,
  kindOf,
  LOOPBACK_PUSH,
  startPushServer,
  startWebhook,
  until,
  type Received,
  type Webhook,
} from './support.js';

/** `ask`: WORKING, then INPUT_REQUIRED; `steps:N` (a first message or the answer): N artifacts, COMPLETED. */
const agent: AgentExecutor = {
  async execute(ctx, task) {
    const text = ctx.text ?? '';
    if (text === 'ask') {
      await task.working('thinking');
      return task.requireInput('which one?');
    }
    const n = Number(/^steps:(\d+)$/.exec(text)?.[1] ?? '0');
    await task.working('starting');
    for (let i = 0; i < n; i++) await task.artifact({ artifactId: `a${i}`, parts: [{ text: `part ${i}` }] });
    await task.complete();
  },
};

const V10 = { 'a2a-version': '1.0' };
const V11 = { 'a2a-version': '1.1' };
const EXT = { 'a2a-version': '1.0', 'a2a-extensions': GENERATION_EXTENSION };

let seq = 0;
const message = (text: string, taskId?: string) => ({
  messageId: `push-gen-${++seq}`,
  role: 'ROLE_USER',
  parts: [{ text }],
  ...(taskId ? { taskId } : {}),
});

/** A JSON-RPC call; its result, or a thrown error naming the JSON-RPC error. */
async function rpc(
  base: string,
  method: string,
  params: unknown,
  headers: Record<string, string>,
): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: Record<string, unknown>; error?: unknown };
  if (body.error !== undefined) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result!;
}

type Task = { id: string; generation?: string; status: { state: string } };

/** SendMessage; the task it answered with. */
async function send(
  base: string,
  headers: Record<string, string>,
  text: string,
  options: { taskId?: string; hook?: string } = {},
): Promise<Task> {
  const result = await rpc(
    base,
    'SendMessage',
    {
      message: message(text, options.taskId),
      ...(options.hook ? { configuration: { taskPushNotificationConfig: { url: options.hook } } } : {}),
    },
    headers,
  );
  return result.task as Task;
}

/** The task's generation as GetTask tells a call that opted in. */
async function generationOf(base: string, id: string): Promise<number> {
  const task = (await rpc(base, 'GetTask', { id }, V11)) as unknown as Task;
  assert.ok(task.generation !== undefined, 'GetTask with A2A-Version 1.1 reports the generation');
  return Number(task.generation);
}

/** The `generation` a notification body carries (undefined: none). */
function generationIn(json: Record<string, unknown>): string | undefined {
  const body = (json.task ?? json.statusUpdate ?? json.artifactUpdate) as { generation?: string };
  return body.generation;
}

/** Consecutive integers from `from` to `to` as ProtoJSON strings. */
const range = (from: number, to: number): string[] =>
  Array.from({ length: to - from + 1 }, (_, i) => String(from + i));

/** Asserts the notifications of one opted-in config: generations `from`..GetTask's, in order. */
async function assertConsecutive(base: string, taskId: string, got: Received[], from: number): Promise<void> {
  const last = await generationOf(base, taskId);
  assert.deepEqual(
    got.map((r) => generationIn(r.json)),
    range(from, last),
    `generations ${from}..${last}, one per change, in order (${got.map((r) => kindOf(r.json)).join(' ')})`,
  );
}

/** One webhook per config (told apart by port), on 127.0.0.1; each test closes its own. */
async function hooks(n: number): Promise<Webhook[]> {
  const all: Webhook[] = [];
  for (let i = 0; i < n; i++) all.push(await startWebhook());
  return all;
}

test('GEN-6 (memory): an opted-in config gets generations 1..N, as GetTask reports; a v1.0 config of the same task the same bodies without', async (t) => {
  const [v11, ext, v10] = await hooks(3);
  t.after(() => Promise.all([v11!.close(), ext!.close(), v10!.close()]));
  const { server, url } = await startPushServer(
    agent,
    { ...LOOPBACK_PUSH, senderThread: false },
    { store: 'memory', generation: true },
  );
  t.after(() => server.close());

  // A2A-Version 1.1, the config inline: every change from the task's creation on.
  const first = await send(url, V11, 'steps:3', { hook: v11!.url });
  assert.equal(first.status.state, 'TASK_STATE_COMPLETED');
  const last = await generationOf(url, first.id);
  await until(() => v11!.received.length >= last, `${last} notifications`);
  await assertConsecutive(url, first.id, v11!.received, 1);
  for (const r of v11!.received) {
    assert.equal(r.headers['a2a-version'], '1.1', 'the POST says the version its body speaks');
    assert.equal(r.headers['a2a-extensions'], undefined);
    assert.equal(r.headers['content-type'], 'application/a2a+json');
  }

  // A task of a v1.0 call; two configs created on it, one naming the extension, one v1.0.
  const asked = await send(url, V10, 'ask');
  assert.equal(asked.status.state, 'TASK_STATE_INPUT_REQUIRED');
  assert.equal(asked.generation, undefined, 'a v1.0 call sees no generation');
  const created = (await rpc(
    url,
    'CreateTaskPushNotificationConfig',
    { taskId: asked.id, id: 'ext', url: ext!.url },
    EXT,
  )) as Record<string, unknown>;
  assert.deepEqual(created, { id: 'ext', taskId: asked.id, url: ext!.url }, 'the opt-in is not on the wire');
  await rpc(url, 'CreateTaskPushNotificationConfig', { taskId: asked.id, id: 'v10', url: v10!.url }, V10);
  const before = await generationOf(url, asked.id);
  const answered = await send(url, V10, 'steps:2', { taskId: asked.id });
  assert.equal(answered.status.state, 'TASK_STATE_COMPLETED');
  const end = await generationOf(url, asked.id);
  const count = end - before;
  await until(() => ext!.received.length >= count && v10!.received.length >= count, `${count} each`);
  await assertConsecutive(url, asked.id, ext!.received, before + 1);
  for (const r of ext!.received) {
    assert.equal(r.headers['a2a-extensions'], GENERATION_EXTENSION, 'the POST names the extension');
    assert.equal(r.headers['a2a-version'], undefined);
  }
  // The v1.0 config: the same changes, no generation, no new header.
  assert.equal(v10!.received.length, count);
  v10!.received.forEach((r, i) => {
    assert.equal(generationIn(r.json), undefined);
    assert.equal(r.headers['a2a-version'], undefined);
    assert.equal(r.headers['a2a-extensions'], undefined);
    const withGeneration = ext!.received[i]!.json;
    const member = Object.keys(withGeneration)[0]!;
    const { generation: _, ...rest } = withGeneration[member] as Record<string, unknown>;
    assert.deepEqual(r.json, { [member]: rest }, 'the same change');
  });

  // Reading the configs back: wire fields only, for a v1.0 call and for one that opted in.
  for (const headers of [V10, V11, EXT]) {
    assert.deepEqual(
      await rpc(url, 'GetTaskPushNotificationConfig', { taskId: asked.id, id: 'ext' }, headers),
      {
        id: 'ext',
        taskId: asked.id,
        url: ext!.url,
      },
    );
    const list = await rpc(url, 'ListTaskPushNotificationConfigs', { taskId: first.id }, headers);
    assert.deepEqual(list.configs, [
      { id: (list.configs as { id: string }[])[0]!.id, taskId: first.id, url: v11!.url },
    ]);
  }
});

test('GEN-6: with the draft support off, a config that names the extension is a v1.0 config', async (t) => {
  const hook = await startWebhook();
  t.after(() => hook.close());
  const { server, url } = await startPushServer(
    agent,
    { ...LOOPBACK_PUSH, senderThread: false },
    { store: 'memory' },
  );
  t.after(() => server.close());
  const task = await send(url, EXT, 'steps:1', { hook: hook.url });
  await until(() => hook.received.length >= 3, 'three notifications');
  assert.equal(task.generation, undefined);
  for (const r of hook.received) {
    assert.equal(generationIn(r.json), undefined);
    assert.equal(r.headers['a2a-extensions'], undefined);
    assert.equal(r.headers['a2a-version'], undefined);
  }
});

test("GEN-6 (SQLite): the opt-in and the backlog's generations survive a restart; the next changes continue them", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-push-gen-'));
  const cleanup: (() => unknown)[] = [() => rmSync(dir, { recursive: true, force: true })];
  t.after(async () => {
    for (const step of cleanup.reverse()) await step();
  });
  const store = `sqlite:${join(dir, 'a2a.sqlite')}` as const;
  const port = await freePort(); // the receiver is down while the first server lives
  const push = { ...LOOPBACK_PUSH, maxAttempts: 1000, closeGraceMs: 50 };
  const first = await startPushServer(agent, push, { store, generation: true });
  let firstClosed = false;
  cleanup.push(() => (firstClosed ? undefined : first.server.close()));
  const asked = await send(first.url, V11, 'ask', { hook: `http://127.0.0.1:${port}/hook` });
  assert.equal(asked.status.state, 'TASK_STATE_INPUT_REQUIRED');
  const before = await generationOf(first.url, asked.id);
  await first.server.close();
  firstClosed = true;

  // Between the servers: the notifications wait in the file with their generations.
  const stores = openStores(store);
  const pending = await stores.pushOutbox.list({ state: 'pending', limit: 100 });
  await stores.close();
  assert.deepEqual(
    pending.map((d) => d.generation).reverse(),
    range(1, before).map(Number),
    'one pending notification per change, each with its generation',
  );

  const hook = await startWebhook(() => 200, port);
  cleanup.push(() => hook.close());
  const second = await startPushServer(agent, push, { store, generation: true });
  cleanup.push(() => second.server.close());
  await until(() => hook.received.length >= before, 'the backlog after the restart');
  // The answer comes from a v1.0 call: the config's opt-in is what decides. Many artifacts, so
  // the SQLite store's staged writes put several changes in one row write.
  const answered = await send(second.url, V10, 'steps:20', { taskId: asked.id });
  assert.equal(answered.status.state, 'TASK_STATE_COMPLETED');
  const end = await generationOf(second.url, asked.id);
  await until(() => hook.received.length >= end, `${end} notifications`);
  await assertConsecutive(second.url, asked.id, hook.received, 1);
  assert.ok(hook.received.every((r) => r.headers['a2a-version'] === '1.1'));
});

test("GEN-6 (PostgreSQL): two replicas share the outbox; the generations are consecutive, as either replica's GetTask reports", async (t) => {
  const schema = freshSchema('push_gen');
  const cleanup: (() => Promise<void>)[] = [() => dropSchema(schema)];
  t.after(async () => {
    for (const step of cleanup.reverse()) await step();
  });
  const store = `${postgresUrl()}?schema=${schema}` as `postgres://${string}`;
  const [hook, v10] = await hooks(2);
  cleanup.push(
    () => hook!.close(),
    () => v10!.close(),
  );
  const push = { ...LOOPBACK_PUSH, concurrency: 4, pollMs: 50 };
  const a = await startPushServer(agent, push, { store, generation: true });
  cleanup.push(() => a.server.close());
  const b = await startPushServer(agent, push, { store, generation: true });
  cleanup.push(() => b.server.close());

  // Created on replica A (the extension), answered on replica B (a v1.0 call).
  const asked = await send(a.url, EXT, 'ask', { hook: hook!.url });
  await rpc(a.url, 'CreateTaskPushNotificationConfig', { taskId: asked.id, id: 'v10', url: v10!.url }, V10);
  const before = await generationOf(b.url, asked.id);
  const answered = await send(b.url, V10, 'steps:5', { taskId: asked.id });
  assert.equal(answered.status.state, 'TASK_STATE_COMPLETED');
  const end = await generationOf(a.url, asked.id);
  assert.equal(await generationOf(b.url, asked.id), end, 'the same generation on both replicas');
  await until(() => hook!.received.length >= end, `${end} notifications`);
  await assertConsecutive(a.url, asked.id, hook!.received, 1);
  assert.ok(hook!.received.every((r) => r.headers['a2a-extensions'] === GENERATION_EXTENSION));
  await until(() => v10!.received.length >= end - before, 'the v1.0 config');
  assert.ok(v10!.received.every((r) => generationIn(r.json) === undefined));
});
