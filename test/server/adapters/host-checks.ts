/**
 * The checks every host of an A2A server passes (issue 29), over real sockets on 127.0.0.1
 * with a2a-kit's client: the card names the mount path, SendMessage, SSE streaming, the body
 * limit, and a client that goes away: its request's signal is aborted, the server stops
 * streaming, and the task runs on.
 */
import assert from 'node:assert/strict';
import { A2AClient, textOf, type StreamEvent } from '../../../src/client/index.js';
import { createA2AServer, type A2AServer } from '../../../src/server/http.js';
import type { ServerInterceptor } from '../../../src/core/handler/interceptor.js';

/** The body limit of {@link hostTestServer}: small, so a test body can exceed it cheaply. */
export const HOST_TEST_BODY_LIMIT = 16 * 1024;

/** A server for host tests and what the checks observe of it. */
export interface HostTestServer {
  server: A2AServer;
  /** The signals of the SendStreamingMessage calls, in order. */
  streamSignals: AbortSignal[];
  /** For each SendStreamingMessage call, in order: resolves once the server stops reading its events. */
  streamEnds: Promise<void>[];
  /** Lets `hold` tasks finish (called by the test's cleanup). */
  release(): void;
}

/**
 * An agent that streams `stream` as three chunks, holds `hold` until released or canceled,
 * and answers anything else with `echo: <text>`; memory store.
 */
export function hostTestServer(): HostTestServer {
  const streamSignals: AbortSignal[] = [];
  const streamEnds: Promise<void>[] = [];
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const recordStreams: ServerInterceptor = (next) => async (call) => {
    if (call.method !== 'SendStreamingMessage') return next(call);
    if (call.ctx.signal) streamSignals.push(call.ctx.signal);
    let ended!: () => void;
    streamEnds.push(new Promise<void>((resolve) => (ended = resolve)));
    return watchEnd((await next(call)) as AsyncIterable<unknown>, () => ended());
  };
  const server = createA2AServer({
    store: 'memory',
    bodyLimit: HOST_TEST_BODY_LIMIT,
    interceptors: [recordStreams],
    card: {
      name: 'host-test',
      description: 'streams, holds and echoes',
      version: '1.0.0',
      skills: [{ id: 'echo', name: 'echo', description: 'echoes', tags: ['test'] }],
    },
    agent: async (ctx, task) => {
      if (ctx.text === 'stream') {
        await task.working();
        const words = ['one ', 'two ', 'three'];
        for (const [i, text] of words.entries()) {
          await task.artifact(
            { artifactId: 'words', text },
            { append: i > 0, lastChunk: i === words.length - 1 },
          );
        }
        await task.complete();
        return;
      }
      if (ctx.text === 'hold') {
        await task.working('holding');
        await Promise.race([
          released,
          new Promise<void>((resolve) =>
            ctx.signal.addEventListener('abort', () => resolve(), { once: true }),
          ),
        ]);
        if (!ctx.signal.aborted) await task.complete('released');
        return;
      }
      await task.complete(`echo: ${ctx.text}`);
    },
  });
  return { server, streamSignals, streamEnds, release };
}

/**
 * `events`, calling `onEnd` when its reader is done with it (ended, or stopped by `return()`).
 * By hand, not an async generator: a `return()` must reach the inner iterator while a `next()`
 * is pending, where a generator would queue it behind that `next()`.
 */
function watchEnd<T>(events: AsyncIterable<T>, onEnd: () => void): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<T> {
      const inner = events[Symbol.asyncIterator]();
      return {
        next: async () => {
          const result = await inner.next();
          if (result.done) onEnd();
          return result;
        },
        return: async (value?: unknown) => {
          onEnd();
          return (await inner.return?.(value)) ?? { done: true, value: undefined };
        },
      };
    },
  };
}

/** Resolves once `signal` is aborted. */
function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) =>
    signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true }),
  );
}

/** The card at `base` names interfaces under `base` itself (the mount path included). */
export async function checkCard(base: string): Promise<void> {
  const response = await fetch(`${base}/.well-known/agent-card.json`, { headers: { 'a2a-version': '1.0' } });
  assert.equal(response.status, 200);
  const card = (await response.json()) as { name: string; supportedInterfaces: { url: string }[] };
  assert.equal(card.name, 'host-test');
  assert.ok(card.supportedInterfaces.length > 0);
  for (const i of card.supportedInterfaces)
    assert.ok(i.url.startsWith(`${base}/`), `${i.url} is under ${base}`);
}

/** SendMessage, SSE, GetTask and CancelTask through the client, which reads the card at `base`. */
export async function checkOperations(base: string): Promise<void> {
  const client = await A2AClient.connect(base);
  try {
    const sent = await client.send({ text: 'hi' });
    assert.equal(sent.kind, 'task');
    assert.equal(sent.kind === 'task' && sent.task.status.state, 'TASK_STATE_COMPLETED');
    const events: StreamEvent[] = [];
    for await (const event of client.stream({ text: 'stream' })) events.push(event);
    const chunks = events.filter((e) => e.kind === 'artifactUpdate');
    assert.equal(chunks.length, 3);
    assert.equal(
      chunks.map((e) => (e.kind === 'artifactUpdate' ? textOf(e.artifactUpdate.artifact) : '')).join(''),
      'one two three',
    );
    const last = events.at(-1);
    assert.equal(last?.kind === 'statusUpdate' && last.statusUpdate.status.state, 'TASK_STATE_COMPLETED');
    const taskId = last?.kind === 'statusUpdate' ? last.statusUpdate.taskId : '';
    const task = await client.getTask(taskId);
    assert.equal(textOf(task.artifacts?.[0]), 'one two three');
    const held = await client.send({ text: 'hold', returnImmediately: true });
    assert.equal(held.kind, 'task');
    const canceled = await client.cancelTask(held.kind === 'task' ? held.task.id : '');
    assert.equal(canceled.status.state, 'TASK_STATE_CANCELED');
  } finally {
    await client.close();
  }
}

/** A body over the limit is refused with 413, on JSON-RPC and on REST. */
export async function checkBodyLimit(base: string): Promise<void> {
  const text = 'x'.repeat(HOST_TEST_BODY_LIMIT * 2);
  const message = { messageId: 'm-big', role: 'ROLE_USER', parts: [{ text }] };
  const rpc = await fetch(`${base}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message } }),
  });
  assert.equal(rpc.status, 413);
  await rpc.arrayBuffer();
  const rest = await fetch(`${base}/a2a/rest/message:send`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ message }),
  });
  assert.equal(rest.status, 413);
  await rest.arrayBuffer();
}

/**
 * A streaming client that goes away: the request's signal is aborted on the server, the server
 * stops streaming, and the task is still WORKING (a dropped stream never cancels its task:
 * docs/protocol-behaviour.md, "Executors run detached").
 */
export async function checkDisconnect(base: string, host: HostTestServer): Promise<void> {
  const client = await A2AClient.connect(base);
  try {
    const before = host.streamSignals.length;
    const { taskId, drop } = await openHeldStream(client);
    const signal = host.streamSignals[before];
    assert.ok(signal, 'the stream call was seen');
    assert.equal(signal.aborted, false);
    await drop();
    await aborted(signal);
    await host.streamEnds[before];
    const task = await client.getTask(taskId);
    assert.equal(task.status.state, 'TASK_STATE_WORKING', 'the dropped stream left its task running');
  } finally {
    await client.close();
  }
}

/**
 * Streams `hold` (the test agents keep that task WORKING) and reads its first event: the task's
 * id, and `drop()`, which goes away as a client does (aborts the call, stops reading).
 */
export async function openHeldStream(
  client: A2AClient,
): Promise<{ taskId: string; drop: () => Promise<void> }> {
  const controller = new AbortController();
  const stream = client.stream({ text: 'hold', signal: controller.signal });
  const first = await stream.next();
  assert.equal(first.done, false);
  const event = first.value as StreamEvent;
  const taskId =
    event.kind === 'task' ? event.task.id : event.kind === 'statusUpdate' ? event.statusUpdate.taskId : '';
  assert.ok(taskId, `the first event names the task: ${JSON.stringify(event)}`);
  return {
    taskId,
    drop: async () => {
      controller.abort();
      await stream.return(undefined).catch(() => undefined);
    },
  };
}

/** Every check at `base`. */
export async function checkHost(base: string, host: HostTestServer): Promise<void> {
  await checkCard(base);
  await checkOperations(base);
  await checkBodyLimit(base);
  await checkDisconnect(base, host);
}
