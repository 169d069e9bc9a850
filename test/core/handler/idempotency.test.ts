/**
 * SendMessage idempotency over JSON-RPC on a real socket: a true repeat returns the first
 * result (the agent runs once), a reused messageId with other content is refused, the window
 * is configurable; and the memory store's idempotency records and tasks stay bounded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createA2AServer, type ServerLimits } from '../../../src/server/index.js';
import { MemoryTaskStore } from '../../../src/core/stores/memory/task-store.js';
import type { AgentExecutor } from '../../../src/core/executor.js';
import { TEST_CARD } from '../../support/handler.js';

const V1 = { 'content-type': 'application/json', 'a2a-version': '1.0' };

interface Reply {
  result?: { task?: { id: string; status: { state: string } }; message?: { parts: { text: string }[] } };
  error?: { code: number; message: string };
}

async function start(
  t: { after: (fn: () => Promise<void>) => void },
  agent: AgentExecutor['execute'],
  options: { store?: MemoryTaskStore; limits?: ServerLimits } = {},
): Promise<(params: unknown) => Promise<Reply>> {
  const server = createA2AServer({
    agent,
    card: TEST_CARD,
    store: options.store ?? 'memory',
    ...(options.limits ? { limits: options.limits } : {}),
  });
  const { url } = await server.listen(0, '127.0.0.1');
  t.after(() => server.close());
  return async (params) => {
    const res = await fetch(`${url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: V1,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params }),
    });
    return (await res.json()) as Reply;
  };
}

function message(messageId: string, text: string, extra: Record<string, unknown> = {}): unknown {
  return { message: { messageId, role: 'ROLE_USER', parts: [{ text }], ...extra } };
}

test('a repeated messageId with the same message returns the first result; the agent runs once', async (t) => {
  let runs = 0;
  const send = await start(t, async (ctx, task) => {
    runs++;
    await task.complete(`you said ${ctx.text}`);
  });
  const first = await send(message('m-1', 'hello'));
  const again = await send(message('m-1', 'hello'));
  assert.equal(again.result?.task?.id, first.result?.task?.id);
  assert.equal(runs, 1);
});

test('a reused messageId with another text, taskId or contextId is InvalidParamsError', async (t) => {
  let runs = 0;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const send = await start(t, async (ctx, task) => {
    runs++;
    if (ctx.text === 'wait') await gate;
    await task.complete('done');
  });
  const first = await send(message('m-2', 'hello'));
  const taskId = first.result!.task!.id;
  for (const other of [
    message('m-2', 'goodbye'),
    message('m-2', 'hello', { contextId: 'another-context' }),
    message('m-2', 'hello', { taskId }),
  ]) {
    const reply = await send(other);
    assert.equal(reply.error?.code, -32602, JSON.stringify(reply));
    assert.match(reply.error!.message, /messageId "m-2" was already used for another message/);
  }
  // Also while the first request is still running (the in-flight path).
  const running = send(message('m-3', 'wait'));
  await new Promise((resolve) => setImmediate(resolve));
  const clash = await send(message('m-3', 'not the same'));
  assert.equal(clash.error?.code, -32602);
  release();
  assert.equal((await running).result?.task?.status.state, 'TASK_STATE_COMPLETED');
  assert.equal(runs, 2);
});

test('idempotencyTtlMs: 0 turns de-duplication off; after the window a messageId is free again', async (t) => {
  let runs = 0;
  const off = await start(
    t,
    async (_ctx, task) => {
      runs++;
      await task.complete('done');
    },
    { limits: { idempotencyTtlMs: 0 } },
  );
  const a = await off(message('m-4', 'hello'));
  const b = await off(message('m-4', 'hello'));
  assert.notEqual(a.result?.task?.id, b.result?.task?.id);
  assert.equal(runs, 2);

  const short = await start(t, async (ctx, task) => task.complete(ctx.text), {
    limits: { idempotencyTtlMs: 1 },
  });
  const first = await short(message('m-5', 'hello'));
  const since = Date.now();
  while (Date.now() < since + 2) await new Promise((resolve) => setImmediate(resolve));
  const later = await short(message('m-5', 'another message'));
  assert.equal(later.error, undefined);
  assert.notEqual(later.result?.task?.id, first.result?.task?.id);
});

test('idempotency records are bounded by bytes; a task result is kept as a reference', async (t) => {
  const store = new MemoryTaskStore({ maxIdempotencyBytes: 1024 * 1024 });
  const send = await start(
    t,
    async (ctx, task) => {
      // Replies of ~100 KB: the records keep them whole, so the byte cap decides.
      if (ctx.text === 'reply') await task.reply('r'.repeat(100_000));
      else await task.complete({ text: 'a'.repeat(200_000) });
    },
    { store },
  );
  for (let i = 0; i < 30; i++) {
    const reply = await send(message(`reply-${i}`, 'reply'));
    assert.equal(reply.result?.message?.parts[0]?.text.length, 100_000);
  }
  assert.ok(store.idempotencyBytes <= 1024 * 1024, `${store.idempotencyBytes} bytes held`);
  assert.ok(store.idempotencyCount < 30 && store.idempotencyCount >= 4, `${store.idempotencyCount} records`);
  // The newest reply is still a true repeat.
  const repeat = await send(message('reply-29', 'reply'));
  assert.equal(repeat.result?.message?.parts[0]?.text.length, 100_000);

  const before = store.idempotencyBytes;
  for (let i = 0; i < 5; i++) await send(message(`task-${i}`, 'task'));
  // Five 200 KB tasks add a few hundred bytes of records, not copies of their results.
  assert.ok(store.idempotencyBytes - before < 5 * 1024, `${store.idempotencyBytes - before} bytes added`);
});

test('memory store retention: maxTasks drops the tasks that ended first; terminalTaskMaxAgeMs drops old ones', async (t) => {
  const store = new MemoryTaskStore({ maxTasks: 5 });
  const send = await start(t, async (_ctx, task) => task.complete('done'), { store });
  const ids: string[] = [];
  for (let i = 0; i < 12; i++) ids.push((await send(message(`keep-${i}`, 'x'))).result!.task!.id);
  assert.equal(store.size, 5);
  const scope = { tenant: '', owner: 'anonymous' };
  for (const [i, id] of ids.entries()) {
    assert.equal((await store.get(scope, id)) !== undefined, i >= 7, `task ${i}`);
  }

  const aging = new MemoryTaskStore({ terminalTaskMaxAgeMs: 1 });
  const sendAging = await start(t, async (_ctx, task) => task.complete('done'), { store: aging });
  const old = (await sendAging(message('old', 'x'))).result!.task!.id;
  const since = Date.now();
  while (Date.now() < since + 3) await new Promise((resolve) => setImmediate(resolve));
  const fresh = (await sendAging(message('fresh', 'x'))).result!.task!.id;
  assert.equal(await aging.get(scope, old), undefined, 'old');
  assert.ok(await aging.get(scope, fresh), 'fresh');
  assert.equal(await aging.purgeTerminalBefore(Date.now() + 1), 1, 'purge');
  assert.equal(aging.size, 0);
});

test('a memory store full of running tasks refuses a new one with UnavailableError', async () => {
  const store = new MemoryTaskStore({ maxTasks: 1 });
  const task = (id: string) => ({
    tenant: '',
    owner: 'o',
    version: 1,
    statusTimeMs: 1,
    task: {
      id,
      contextId: 'c',
      status: { state: 'TASK_STATE_WORKING' as const },
      history: [],
      artifacts: [],
    },
  });
  await store.save(task('a'), 0);
  await assert.rejects(store.save(task('b'), 0), { name: 'UnavailableError' });
});
