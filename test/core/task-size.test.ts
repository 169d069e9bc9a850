/**
 * Artifact chunks are appended in place (a chunk costs the same whatever the artifact's size),
 * without corrupting snapshots taken meanwhile, and a task's size is capped (parts and bytes),
 * over JSON-RPC on a real socket.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createA2AServer, type A2AServer } from '../../src/server/index.js';
import { MemoryTaskStore } from '../../src/core/stores/memory/task-store.js';
import type { TaskEventSink } from '../../src/core/executor.js';
import { TEST_CARD } from '../support/handler.js';

const V1 = { 'content-type': 'application/json', 'a2a-version': '1.0' };

interface TaskJson {
  id: string;
  status: { state: string };
  artifacts: { parts: { text: string }[] }[];
}
/** A JSON-RPC result read loosely: a Task, or a stream event. */
type Result = TaskJson & { task: TaskJson; artifactUpdate?: { artifact: { parts: { text: string }[] } } };

async function rpc(endpoint: string, method: string, params: unknown): Promise<{ result: Result }> {
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: V1,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as { result: Result };
}

async function start(
  t: { after: (fn: () => Promise<void>) => void },
  execute: (text: string, events: TaskEventSink, taskId: string) => Promise<void>,
  options: { store?: MemoryTaskStore; maxTaskParts?: number; maxTaskBytes?: number } = {},
): Promise<{ server: A2AServer; endpoint: string }> {
  const server = createA2AServer({
    agent: (ctx, events) => execute(ctx.text, events, ctx.taskId),
    card: TEST_CARD,
    store: options.store ?? 'memory',
    limits: {
      ...(options.maxTaskParts !== undefined ? { maxTaskParts: options.maxTaskParts } : {}),
      ...(options.maxTaskBytes !== undefined ? { maxTaskBytes: options.maxTaskBytes } : {}),
    },
  });
  const { url } = await server.listen(0, '127.0.0.1');
  t.after(() => server.close());
  return { server, endpoint: `${url}/a2a/jsonrpc` };
}

function send(text: string): unknown {
  return { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] } };
}

/** Notes what the TaskManager hands the store (instrumentation only; behaviour unchanged). */
class ObservedStore extends MemoryTaskStore {
  readonly savedParts = new Set<unknown>();
  gets = 0;

  override get(...args: Parameters<MemoryTaskStore['get']>): ReturnType<MemoryTaskStore['get']> {
    this.gets++;
    return super.get(...args);
  }

  override save(...args: Parameters<MemoryTaskStore['save']>): ReturnType<MemoryTaskStore['save']> {
    const parts = args[0].task.artifacts?.[0]?.parts;
    if (parts) this.savedParts.add(parts);
    return super.save(...args);
  }
}

test('appending a chunk extends the stored parts in place: no copy, no re-read per chunk', async (t) => {
  const store = new ObservedStore();
  const { endpoint } = await start(
    t,
    async (_text, events) => {
      await events.working();
      for (let i = 0; i < 500; i++) {
        await events.artifact({ artifactId: 'out', text: `chunk-${i + 1}` }, { append: i > 0 });
      }
      await events.complete();
    },
    { store },
  );
  const reply = await rpc(endpoint, 'SendMessage', send('go'));
  const parts = reply.result.task.artifacts[0]!.parts;
  assert.deepEqual(
    parts.map((p) => p.text),
    Array.from({ length: 500 }, (_, i) => `chunk-${i + 1}`),
  );
  // One parts array through all 500 saves (each chunk O(1), not a copy of the array), and
  // the execution's events do not read the task back from the store.
  assert.equal(store.savedParts.size, 1);
  assert.ok(store.gets < 10, `${store.gets} reads`);
});

test('a snapshot taken mid-stream is not changed by later chunks (GetTask and SubscribeToTask)', async (t) => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let midway!: () => void;
  const reached = new Promise<void>((resolve) => (midway = resolve));
  const { endpoint } = await start(t, async (_text, events) => {
    await events.working();
    for (let i = 0; i < 20; i++) {
      await events.artifact({ artifactId: 'out', text: `chunk-${i + 1}` }, { append: i > 0 });
      if (i === 9) {
        midway();
        await gate;
      }
    }
    await events.complete();
  });
  const first = await rpc(endpoint, 'SendMessage', {
    ...(send('go') as object),
    configuration: { returnImmediately: true },
  });
  const taskId = first.result.task.id as string;
  await reached;
  const snapshot = await rpc(endpoint, 'GetTask', { id: taskId });
  assert.equal(snapshot.result.artifacts[0]!.parts.length, 10);
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: V1,
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'SubscribeToTask', params: { id: taskId } }),
  });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  // The subscription's snapshot is written at once; let the agent go on only after it arrived.
  while (!text.includes('\n\n')) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  release();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  const events = text
    .split('\n\n')
    .filter((frame) => frame.startsWith('data: '))
    .map((frame) => (JSON.parse(frame.slice(6)) as { result: Result }).result);
  const chunks: string[] = events[0]!.task.artifacts[0]!.parts.map((p: { text: string }) => p.text);
  for (const event of events.slice(1)) {
    if (event.artifactUpdate)
      chunks.push(...event.artifactUpdate.artifact.parts.map((p: { text: string }) => p.text));
  }
  assert.deepEqual(
    chunks,
    Array.from({ length: 20 }, (_, i) => `chunk-${i + 1}`),
  );
  const done = await rpc(endpoint, 'GetTask', { id: taskId });
  assert.equal(done.result.artifacts[0]!.parts.length, 20);
  assert.equal(snapshot.result.artifacts[0]!.parts.length, 10);
});

test('maxTaskParts and maxTaskBytes refuse the event that would pass them; the task keeps what it had', async (t) => {
  const refusals: string[] = [];
  const { endpoint } = await start(
    t,
    async (text, events) => {
      await events.working();
      const size = text === 'bytes' ? 700 : 10;
      for (let i = 0; i < 10; i++) {
        try {
          await events.artifact({ artifactId: 'out', text: 'x'.repeat(size) }, { append: i > 0 });
        } catch (error) {
          refusals.push(`${(error as Error).constructor.name}: ${(error as Error).message}`);
          break;
        }
      }
      await events.complete();
    },
    { maxTaskParts: 5, maxTaskBytes: 2000 },
  );
  const parts = await rpc(endpoint, 'SendMessage', send('parts'));
  assert.equal(parts.result.task.status.state, 'TASK_STATE_COMPLETED');
  // The client message holds one part: four chunks fit.
  assert.equal(parts.result.task.artifacts[0]!.parts.length, 4);
  assert.match(refusals[0]!, /^TaskTooLargeError: .*6 parts.*maxTaskParts 5/);
  const bytes = await rpc(endpoint, 'SendMessage', send('bytes'));
  assert.equal(bytes.result.task.status.state, 'TASK_STATE_COMPLETED');
  assert.equal(bytes.result.task.artifacts[0]!.parts.length, 2);
  assert.match(refusals[1]!, /maxTaskBytes 2000/);
});

test('the part cap counts alike before and after the size is cached (from 64 parts on)', async (t) => {
  const refusals: string[] = [];
  const { endpoint } = await start(
    t,
    async (_text, events) => {
      await events.working();
      for (let i = 0; i < 150; i++) {
        try {
          // A second artifact from the 40th chunk on: the cached size follows both.
          const artifactId = i < 40 ? 'a' : 'b';
          await events.artifact({ artifactId, text: `${i}` }, { append: i !== 0 && i !== 40 });
        } catch (error) {
          refusals.push((error as Error).message);
          break;
        }
      }
      await events.complete();
    },
    { maxTaskParts: 100 },
  );
  const sent = await rpc(endpoint, 'SendMessage', send('go'));
  assert.equal(sent.result.task.status.state, 'TASK_STATE_COMPLETED');
  // The client message holds one part: 99 chunks fit, 40 in the first artifact.
  assert.deepEqual(
    sent.result.task.artifacts.map((artifact) => artifact.parts.length),
    [40, 59],
  );
  assert.match(refusals[0]!, /101 parts.*maxTaskParts 100/);
});

test('subscriptions opened while chunks keep coming see every chunk exactly once', async (t) => {
  const CHUNKS = 20_000;
  let started!: (taskId: string) => void;
  const running = new Promise<string>((resolve) => (started = resolve));
  const { endpoint } = await start(t, async (_text, events, taskId) => {
    await events.working();
    for (let i = 0; i < CHUNKS; i++) {
      await events.artifact({ artifactId: 'out', text: `chunk-${i + 1}` }, { append: i > 0 });
      if (i === 10) started(taskId);
    }
    await events.complete();
  });
  void rpc(endpoint, 'SendMessage', {
    ...(send('go') as object),
    configuration: { returnImmediately: true },
  });
  const taskId = await running;
  const subscribe = async (): Promise<string[]> => {
    const res = await fetch(endpoint, {
      method: 'POST',
      headers: V1,
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'SubscribeToTask', params: { id: taskId } }),
    });
    const events = (await res.text())
      .split('\n\n')
      .filter((frame) => frame.startsWith('data: '))
      .map((frame) => (JSON.parse(frame.slice(6)) as { result: Result }).result);
    const chunks = (events[0]!.task.artifacts ?? [])[0]?.parts.map((p) => p.text) ?? [];
    for (const event of events.slice(1)) {
      if (event.artifactUpdate) chunks.push(...event.artifactUpdate.artifact.parts.map((p) => p.text));
    }
    return chunks;
  };
  const expected = Array.from({ length: CHUNKS }, (_, i) => `chunk-${i + 1}`);
  const walks = await Promise.all([subscribe(), subscribe(), subscribe()]);
  for (const chunks of walks) assert.deepEqual(chunks, expected);
});
