/**
 * The A2A 1.1 draft support over real sockets (issue 31): generation on the wire for calls that
 * opt in (GEN-1, GEN-2), ifGenerationMatch (GEN-4), long-polling GetTask (GEN-3) and exact
 * SSE resumption with Last-Event-ID (GEN-5) on memory, SQLite and PostgreSQL (resumed on the
 * other replica).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentExecutor } from '../../src/core/executor.js';
import { GENERATION_EXTENSION } from '../../src/core/generation.js';
import type { StreamResponse } from '../../src/model/schema.js';
import { createA2AServer, type A2AServer } from '../../src/server/index.js';
import { TEST_CARD } from '../support/handler.js';
import { dropSchema, freshSchema, postgresUrl } from '../support/postgres.js';

/** The `gate` task waits between its events until the test opens the gate it hands over. */
let reachGate: (open: () => void) => void = () => undefined;
function armGate(): Promise<() => void> {
  return new Promise((resolve) => (reachGate = resolve));
}

const agent: AgentExecutor = {
  async execute(ctx, task) {
    const text = ctx.text ?? '';
    if (text === 'ask') return task.requireInput('more?');
    if (text === 'gate') {
      await task.working('a');
      await task.working('b');
      await new Promise<void>((resolve) => reachGate(resolve));
      await task.working('c');
      return task.complete('done');
    }
    const steps = /^steps:(\d+)$/.exec(text);
    for (let i = 1; i <= Number(steps?.[1] ?? 1); i++) await task.working(`step ${i}`);
    await task.artifact({ name: 'out', text: 'result' });
    return task.complete();
  },
};

const V1 = { 'content-type': 'application/json', 'a2a-version': '1.0' };
const OPTED = { ...V1, 'a2a-extensions': GENERATION_EXTENSION };

let seq = 0;
function message(text: string, taskId?: string) {
  return { messageId: `gen-${++seq}`, role: 'ROLE_USER', parts: [{ text }], ...(taskId ? { taskId } : {}) };
}

async function rpc(base: string, method: string, params: unknown, headers: Record<string, string> = OPTED) {
  const res = await fetch(`${base}/a2a/jsonrpc`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as {
    result?: Record<string, unknown>;
    error?: { code: number; data?: unknown };
  };
  return { res, body };
}

interface Frame {
  id: string | undefined;
  event: StreamResponse;
}

/**
 * An SSE call, read frame by frame; with `stopAfter`, the connection is cut after that many
 * frames (the client went away).
 */
async function sse(
  base: string,
  method: string,
  params: unknown,
  headers: Record<string, string>,
  stopAfter = Infinity,
  onOpen?: () => void,
): Promise<Frame[]> {
  const abort = new AbortController();
  const res = await fetch(`${base}/a2a/jsonrpc`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: abort.signal,
  });
  assert.equal(res.headers.get('content-type'), 'text/event-stream');
  onOpen?.();
  const frames: Frame[] = [];
  const decoder = new TextDecoder();
  let buffer = '';
  const reader = res.body!.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let id: string | undefined;
        let data = '';
        for (const line of block.split('\n')) {
          if (line.startsWith('id: ')) id = line.slice(4);
          else if (line.startsWith('data: ')) data += line.slice(6);
        }
        if (!data) continue;
        const parsed = JSON.parse(data) as { result?: StreamResponse; error?: unknown };
        assert.ok(parsed.result, `stream error: ${data}`);
        frames.push({ id, event: parsed.result });
        if (frames.length >= stopAfter) {
          abort.abort();
          return frames;
        }
      }
    }
  } catch (error) {
    if (!abort.signal.aborted) throw error;
  }
  return frames;
}

function generationOf(event: StreamResponse): string | undefined {
  const g = event.task?.generation ?? event.statusUpdate?.generation ?? event.artifactUpdate?.generation;
  return g === undefined ? undefined : String(g);
}

function taskIdOf(event: StreamResponse): string {
  return event.task?.id ?? event.statusUpdate?.taskId ?? event.artifactUpdate?.taskId ?? '';
}

describe('GEN-1, GEN-2: generation on the wire only for a call that opts in', () => {
  let server: A2AServer;
  let base: string;
  before(async () => {
    server = createA2AServer({ agent, card: TEST_CARD, store: 'memory', generation: true, logger: false });
    base = (await server.listen(0, '127.0.0.1')).url;
  });
  after(() => server.close());

  test('the card declares the extension; a v1.0 call sees no generation', async () => {
    const card = (await (await fetch(`${base}/.well-known/agent-card.json`)).json()) as {
      capabilities: { extensions?: { uri: string }[] };
      supportedInterfaces: { protocolVersion: string }[];
    };
    assert.ok(card.capabilities.extensions?.some((e) => e.uri === GENERATION_EXTENSION));
    assert.ok(!card.supportedInterfaces.some((i) => i.protocolVersion === '1.1'));
    const { res, body } = await rpc(base, 'SendMessage', { message: message('steps:2') }, V1);
    assert.equal(res.headers.get('a2a-extensions'), null);
    assert.doesNotMatch(JSON.stringify(body), /generation/);
  });

  test('through the extension: the task and every event carry it, gap-free, with SSE ids', async () => {
    const frames = await sse(base, 'SendStreamingMessage', { message: message('steps:3') }, OPTED);
    const generations = frames.map((f) => Number(generationOf(f.event)));
    assert.equal(generations[0], 1);
    assert.deepEqual(
      generations,
      generations.map((_, i) => i + 1),
    );
    const id = taskIdOf(frames[0]!.event);
    assert.deepEqual(
      frames.map((f) => f.id),
      generations.map((g) => `${id}:${g}`),
    );
    const got = await rpc(base, 'GetTask', { id });
    assert.equal(got.res.headers.get('a2a-extensions'), GENERATION_EXTENSION);
    assert.equal(got.body.result?.generation, String(generations.at(-1)));
  });

  test('through A2A-Version: 1.1 (accepted only with the feature on)', async () => {
    const sent = await rpc(
      base,
      'SendMessage',
      { message: message('steps:1') },
      { ...V1, 'a2a-version': '1.1' },
    );
    const task = sent.body.result?.task as { generation?: string } | undefined;
    assert.ok(task?.generation, JSON.stringify(sent.body));
    const off = createA2AServer({ agent, card: TEST_CARD, store: 'memory', logger: false });
    const offBase = (await off.listen(0, '127.0.0.1')).url;
    try {
      const refused = await rpc(
        offBase,
        'SendMessage',
        { message: message('x') },
        { ...V1, 'a2a-version': '1.1' },
      );
      assert.equal(refused.body.error?.code, -32009);
    } finally {
      await off.close();
    }
  });
});

describe('GEN-4: ifGenerationMatch', () => {
  let server: A2AServer;
  let base: string;
  before(async () => {
    server = createA2AServer({ agent, card: TEST_CARD, store: 'memory', generation: true, logger: false });
    base = (await server.listen(0, '127.0.0.1')).url;
  });
  after(() => server.close());

  async function askTask(): Promise<{ id: string; generation: number }> {
    const { body } = await rpc(base, 'SendMessage', { message: message('ask') });
    const task = body.result!.task as { id: string; generation: string };
    return { id: task.id, generation: Number(task.generation) };
  }

  test('a mismatch is -32010 (JSON-RPC), 409 ABORTED (REST) with both generations, and changes nothing', async () => {
    const { id, generation } = await askTask();
    const rpcMismatch = await rpc(base, 'SendMessage', {
      message: message('ask', id),
      configuration: { ifGenerationMatch: String(generation + 5) },
    });
    assert.equal(rpcMismatch.body.error?.code, -32010);
    const info = (rpcMismatch.body.error?.data as { metadata?: Record<string, string> }[])[0]?.metadata;
    assert.deepEqual(info, {
      taskId: id,
      expectedGeneration: String(generation + 5),
      currentGeneration: String(generation),
    });
    const rest = await fetch(`${base}/a2a/rest/message:send`, {
      method: 'POST',
      headers: OPTED,
      body: JSON.stringify({ message: message('ask', id), configuration: { ifGenerationMatch: '0' } }),
    });
    assert.equal(rest.status, 409);
    const restBody = (await rest.json()) as { error: { status: string } };
    assert.equal(restBody.error.status, 'ABORTED');
    const now = await rpc(base, 'GetTask', { id });
    assert.equal(now.body.result?.generation, String(generation));
    // The right generation passes.
    const ok = await rpc(base, 'SendMessage', {
      message: message('ask', id),
      configuration: { ifGenerationMatch: String(generation) },
    });
    assert.ok(ok.body.result?.task, JSON.stringify(ok.body));
  });

  test('a v1.0 call ignores the field', async () => {
    const { id } = await askTask();
    const v1 = await rpc(
      base,
      'SendMessage',
      { message: message('ask', id), configuration: { ifGenerationMatch: '999' } },
      V1,
    );
    assert.ok(v1.body.result?.task, JSON.stringify(v1.body));
  });

  test('1000 rounds of two senders naming the same generation: exactly one wins each time', async () => {
    const { id } = await askTask();
    let { generation } = await rpc(base, 'GetTask', { id }).then((r) => ({
      generation: Number(r.body.result!.generation),
    }));
    for (let round = 0; round < 1000; round++) {
      const send = () =>
        rpc(base, 'SendMessage', {
          message: message('ask', id),
          configuration: { ifGenerationMatch: String(generation) },
        });
      const results = await Promise.all([send(), send()]);
      const won = results.filter((r) => r.body.result?.task);
      const lost = results.filter((r) => r.body.error?.code === -32010);
      assert.equal(won.length, 1, `round ${round}: ${JSON.stringify(results.map((r) => r.body))}`);
      assert.equal(lost.length, 1);
      const winner = won[0]!.body.result!.task as { generation: string };
      const current = (lost[0]!.body.error!.data as { metadata: { currentGeneration: string } }[])[0]!
        .metadata.currentGeneration;
      assert.ok(Number(current) > generation);
      generation = Number(winner.generation);
    }
  });
});

describe('GEN-3: long-polling GetTask', () => {
  let server: A2AServer;
  let base: string;
  before(async () => {
    server = createA2AServer({
      agent,
      card: TEST_CARD,
      store: 'memory',
      generation: { longPollMaxMs: 300, maxLongPollsPerPrincipal: 2 },
      logger: false,
    });
    base = (await server.listen(0, '127.0.0.1')).url;
  });
  after(() => server.close());

  test('returns at once when already past, on the next event, and at the bound', async () => {
    const { body } = await rpc(base, 'SendMessage', { message: message('ask') });
    const task = body.result!.task as { id: string; generation: string };
    const g = Number(task.generation);
    const past = await rpc(base, 'GetTask', { id: task.id, currentGeneration: String(g - 1) });
    assert.equal(past.body.result?.generation, String(g));
    // At the bound: nothing happens, the current task comes back.
    const bound = await rpc(base, 'GetTask', { id: task.id, currentGeneration: String(g) });
    assert.equal(bound.body.result?.generation, String(g));
    // The next event wakes it: an answer moves the task on while the poll is held.
    const polled = rpc(base, 'GetTask', { id: task.id, currentGeneration: String(g) });
    await rpc(base, 'SendMessage', { message: message('ask', task.id) });
    const woke = await polled;
    assert.ok(Number(woke.body.result?.generation) > g);
  });
});

describe('GEN-5: past the log bound a resumed stream starts with a Task snapshot', () => {
  for (const store of ['memory', 'sqlite'] as const) {
    test(store, async (t) => {
      const dir = mkdtempSync(join(tmpdir(), 'a2a-gen-bound-'));
      t.after(() => rmSync(dir, { recursive: true, force: true }));
      const server = createA2AServer({
        agent,
        card: TEST_CARD,
        store: store === 'memory' ? 'memory' : `sqlite:${join(dir, 'a2a.sqlite')}`,
        generation: { eventLogPerTask: 2 },
        logger: false,
      });
      t.after(() => server.close());
      const base = (await server.listen(0, '127.0.0.1')).url;
      const full = await sse(base, 'SendStreamingMessage', { message: message('steps:40') }, OPTED);
      const taskId = taskIdOf(full[0]!.event);
      const last = full.at(-1)!;
      // Two behind: still in the log, replayed exactly.
      const near = await sse(
        base,
        'SubscribeToTask',
        { id: taskId },
        { ...OPTED, 'last-event-id': full.at(-3)!.id! },
      );
      assert.deepEqual(
        near.map((f) => f.id),
        full.slice(-2).map((f) => f.id),
      );
      // Far behind: gone from the log; the stream starts with the task as it is.
      const far = await sse(
        base,
        'SubscribeToTask',
        { id: taskId },
        { ...OPTED, 'last-event-id': full[1]!.id! },
      );
      assert.equal(far.length, 1);
      assert.ok(far[0]!.event.task, JSON.stringify(far[0]));
      assert.equal(far[0]!.id, last.id);
    });
  }
});

test(
  'GEN-3: closing the server answers a held long poll at once (not after the close grace)',
  { timeout: 20_000 },
  async () => {
    const server = createA2AServer({
      agent,
      card: TEST_CARD,
      store: 'memory',
      generation: { longPollMaxMs: 600_000 },
      closeGraceMs: 600_000,
      logger: false,
    });
    const base = (await server.listen(0, '127.0.0.1')).url;
    const { body } = await rpc(base, 'SendMessage', { message: message('ask') });
    const task = body.result!.task as { id: string; generation: string };
    const polled = rpc(base, 'GetTask', { id: task.id, currentGeneration: task.generation });
    // Held once the server answers the next request (one connection each, in order of arrival).
    await rpc(base, 'GetTask', { id: task.id });
    await server.close();
    assert.equal((await polled).body.result?.generation, task.generation);
  },
);

/** The resumption scenario on one store: two servers (replicas) when `second` is given. */
function resumption(
  name: string,
  open: () => Promise<{ first: A2AServer; second: A2AServer; cleanup: () => Promise<void> }>,
) {
  describe(`GEN-5: streams cut after each event resume exactly (${name})`, () => {
    let first: A2AServer;
    let second: A2AServer;
    let cleanup: () => Promise<void>;
    let a: string;
    let b: string;
    before(async () => {
      ({ first, second, cleanup } = await open());
      a = (await first.listen(0, '127.0.0.1')).url;
      b = first === second ? a : (await second.listen(0, '127.0.0.1')).url;
    });
    after(async () => {
      await first.close();
      if (second !== first) await second.close();
      await cleanup();
    });

    test('cut after each of N events of an ended task: the rest, exactly, in order', async () => {
      const full = await sse(a, 'SendStreamingMessage', { message: message('steps:4') }, OPTED);
      const n = full.length;
      assert.ok(n >= 6, `${n} events`);
      const taskId = taskIdOf(full[0]!.event);
      for (let k = 1; k < n; k++) {
        const rest = await sse(
          b,
          'SubscribeToTask',
          { id: taskId },
          { ...OPTED, 'last-event-id': full[k - 1]!.id! },
        );
        assert.deepEqual(
          rest.map((f) => f.id),
          full.slice(k).map((f) => f.id),
          `cut after ${k}`,
        );
        assert.deepEqual(
          rest.map((f) => f.event),
          full.slice(k).map((f) => f.event),
        );
      }
    });

    test('a GetTask long-polled on one replica wakes on a change made on the other', async () => {
      const { body } = await rpc(a, 'SendMessage', { message: message('ask') });
      const task = body.result!.task as { id: string; generation: string };
      const polled = rpc(b, 'GetTask', { id: task.id, currentGeneration: task.generation });
      await rpc(a, 'SendMessage', { message: message('ask', task.id) });
      const woke = await polled;
      assert.ok(Number(woke.body.result?.generation) > Number(task.generation), JSON.stringify(woke.body));
    });

    test('cut while the task runs, resumed on the other replica, then live to the end: 1..N', async () => {
      const gate = armGate();
      const head = await sse(a, 'SendStreamingMessage', { message: message('gate') }, OPTED, 2);
      const taskId = taskIdOf(head[0]!.event);
      const open = await gate;
      // The gate opens once the resumed stream is open (attached): the rest comes live.
      const resumed = sse(
        b,
        'SubscribeToTask',
        { id: taskId },
        { ...OPTED, 'last-event-id': head[1]!.id! },
        Infinity,
        () => open(),
      );
      const tail = await resumed;
      const ids = [...head, ...tail].map((f) => f.id);
      const generations = ids.map((id) => Number(id!.split(':')[1]));
      assert.deepEqual(
        generations,
        generations.map((_, i) => i + 1),
      );
      assert.equal(tail.at(-1)?.event.statusUpdate?.status.state, 'TASK_STATE_COMPLETED');
    });
  });
}

resumption('memory', async () => {
  const server = createA2AServer({
    agent,
    card: TEST_CARD,
    store: 'memory',
    generation: true,
    logger: false,
  });
  return { first: server, second: server, cleanup: async () => undefined };
});

for (const push of [false, true]) {
  // With push notifications on, the push outbox writes the task rows (and the log with them).
  const label = push ? ', push outbox on' : '';
  resumption(`SQLite${label}`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-gen-'));
    const server = createA2AServer({
      agent,
      card: TEST_CARD,
      store: `sqlite:${join(dir, 'a2a.sqlite')}`,
      generation: true,
      pushNotifications: push,
      logger: false,
    });
    return {
      first: server,
      second: server,
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  });

  resumption(`PostgreSQL, resumed on the other replica${label}`, async () => {
    const schema = freshSchema('gen');
    const url = `${postgresUrl()}${postgresUrl().includes('?') ? '&' : '?'}schema=${schema}`;
    const make = () =>
      createA2AServer({
        agent,
        card: TEST_CARD,
        store: url as `postgres://${string}`,
        generation: true,
        pushNotifications: push,
        logger: false,
      });
    return { first: make(), second: make(), cleanup: () => dropSchema(schema) };
  });
}
