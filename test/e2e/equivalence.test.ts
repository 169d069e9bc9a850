/**
 * Functional equivalence of the three bindings: one scenario table, run over
 * JSON-RPC, HTTP+JSON and gRPC against our own server (`createA2AServer` with the built-in
 * `bench` agent and gRPC on), through our client library connected from the card URL so that
 * binding selection (and the gRPC transport built from the card's `host:port`) is exercised.
 *
 * Every scenario records a transcript of results and errors. Server-minted ids, page tokens
 * and timestamps are replaced by placeholders numbered in order of appearance; the three
 * transcripts must then be deepEqual, and each scenario also checks what the transcript says.
 * Each scenario gets a fresh server per binding, so listings see only that run's tasks.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createA2AServer, type A2AServerOptions } from '../../src/server/http.js';
import { builtInAgents } from '../../src/agents/index.js';
import { A2AClient, type A2AClientOptions, type StreamEvent } from '../../src/client/client.js';
import { grpcTarget, type BindingName } from '../../src/client/binding-selection.js';
import { isInterceptedTransport } from '../../src/client/interceptor.js';
import { GrpcTransport } from '../../src/bindings/grpc/client.js';
import { A2AClientError, A2ATimeoutError } from '../../src/errors/client-errors.js';
import { A2AError, ExtendedAgentCardNotConfiguredError } from '../../src/errors/index.js';
import { TaskState } from '../../src/model/enums.js';
import type { Task } from '../../src/model/schema.js';

const BINDINGS: readonly BindingName[] = ['JSONRPC', 'HTTP+JSON', 'GRPC'];
const bench = builtInAgents.bench!;

/** Keys whose string values are ids minted by the server or the client library. */
const ID_KEYS = new Set(['id', 'taskId', 'contextId', 'messageId', 'referenceTaskIds']);
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const ISO_TIME = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)/g;

/** One recorded step: its label and its (raw) outcome. */
type Step = [label: string, outcome: unknown];

/** What a scenario gets to work with. */
interface ScenarioContext {
  client: A2AClient;
  /** Records a value under `label`. */
  record(label: string, value: unknown): void;
  /** Runs `fn`, recording its result or the error it throws; returns the result when it has one. */
  attempt<T>(label: string, fn: () => Promise<T>): Promise<T | undefined>;
  /** Every event of a stream, recorded under `label`. */
  drain(label: string, stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]>;
  /** Mutable settings of the scenario's server (see {@link Scenario.server}). */
  settings: { extendedConfigured: boolean };
  /** Another client on the same binding, from the same card URL (closed after the scenario). */
  connect(options?: A2AClientOptions): Promise<A2AClient>;
}

interface Scenario {
  name: string;
  /** Extra server options (besides the bench agent and gRPC on port 0). */
  server?: (settings: { extendedConfigured: boolean }) => Partial<A2AServerOptions>;
  run(ctx: ScenarioContext): Promise<void>;
  /** Checks the normalized transcript's content (it is the same for every binding). */
  expect(t: Map<string, unknown>): void;
}

/** A thrown error as data: what every binding must agree on. */
function errorOutcome(error: unknown): unknown {
  if (error instanceof A2AError) {
    return {
      error: error.constructor.name,
      code: error.code,
      message: error.message,
      ...(Object.keys(error.metadata).length > 0 ? { metadata: { ...error.metadata } } : {}),
      ...(error.violations.length > 0 ? { violations: error.violations.map((v) => v.path) } : {}),
    };
  }
  // Client-side failures carry binding-specific text (URLs...): their type is what must agree.
  if (error instanceof A2AClientError) {
    return {
      error: error.constructor.name,
      ...(error instanceof A2ATimeoutError ? { timeoutMs: error.timeoutMs } : {}),
    };
  }
  return { error: 'unexpected', detail: String(error) };
}

/** Replaces ids, tokens and timestamps by placeholders numbered by first appearance. */
function normalize(steps: Step[]): Step[] {
  const ids = new Map<string, string>();
  const tokens = new Map<string, string>();
  const idFor = (value: string) => {
    let p = ids.get(value);
    if (!p) ids.set(value, (p = `<id${ids.size + 1}>`));
    return p;
  };
  // Pass 1, in a stable order (sorted keys): learn every id so that ids inside messages map too.
  const collect = (value: unknown, key: string | undefined): void => {
    if (typeof value === 'string') {
      if (key && ID_KEYS.has(key)) idFor(value);
      for (const m of value.matchAll(UUID)) idFor(m[0]);
    } else if (Array.isArray(value)) value.forEach((v) => collect(v, key));
    else if (value && typeof value === 'object') {
      for (const k of Object.keys(value).sort()) collect((value as Record<string, unknown>)[k], k);
    }
  };
  const rewrite = (value: unknown, key: string | undefined): unknown => {
    if (typeof value === 'string') {
      if (key === 'timestamp') return '<timestamp>';
      if (key === 'nextPageToken' && value !== '') {
        let p = tokens.get(value);
        if (!p) tokens.set(value, (p = `<token${tokens.size + 1}>`));
        return p;
      }
      const exact = ids.get(value);
      if (exact) return exact;
      // Every run has its own server, so its own ports.
      let out = value.replace(ISO_TIME, '<timestamp>').replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>');
      for (const [id, p] of ids) if (id.length >= 8) out = out.split(id).join(p);
      return out;
    }
    if (Array.isArray(value)) return value.map((v) => rewrite(v, key));
    if (value && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(value).sort()) out[k] = rewrite((value as Record<string, unknown>)[k], k);
      return out;
    }
    return value;
  };
  for (const [, outcome] of steps) collect(outcome, undefined);
  return steps.map(([label, outcome]) => [label, rewrite(outcome, undefined)]);
}

/** Runs `scenario` over one binding on a fresh server and returns the raw transcript. */
async function runOn(binding: BindingName, scenario: Scenario): Promise<Step[]> {
  const settings = { extendedConfigured: true };
  const server = createA2AServer({
    agent: bench.executor,
    card: bench.card,
    grpc: { port: 0 },
    onError: () => {},
    ...scenario.server?.(settings),
  });
  const listening = await server.listen(0, '127.0.0.1');
  const cardUrl = `${listening.url}/.well-known/agent-card.json`;
  const connect = (options: A2AClientOptions = {}) =>
    A2AClient.connect(cardUrl, {
      bindings: [binding],
      retry: false,
      timeoutMs: 15_000,
      streamIdleTimeoutMs: 15_000,
      ...options,
    });
  const client = await connect();
  const others: A2AClient[] = [];
  const steps: Step[] = [];
  try {
    // Binding selection really happened from the card.
    assert.equal(client.binding, binding);
    const offered = client.card?.supportedInterfaces
      .filter((i) => i.protocolVersion === '1.0')
      .map((i) => i.protocolBinding)
      .sort();
    assert.deepEqual(offered, ['GRPC', 'HTTP+JSON', 'JSONRPC']);
    if (binding === 'GRPC') {
      const grpcIface = client.card?.supportedInterfaces.find((i) => i.protocolBinding === 'GRPC');
      assert.equal(grpcIface?.url, `127.0.0.1:${listening.grpcPort}`, 'the GRPC url is host:port');
      assert.equal(grpcTarget(grpcIface.url), grpcIface.url);
      // The transport was built from that url: GrpcTransport under the interface's
      // interceptors (tenant, gRPC call defaults).
      assert.ok(isInterceptedTransport(client.transport));
      assert.ok(client.transport.inner instanceof GrpcTransport);
    }
    const ctx: ScenarioContext = {
      client,
      settings,
      async connect(options) {
        const other = await connect(options);
        others.push(other);
        return other;
      },
      record: (label, value) => void steps.push([label, structuredClone(value)]),
      async attempt(label, fn) {
        try {
          const value = await fn();
          steps.push([label, { ok: structuredClone(value ?? null) }]);
          return value;
        } catch (error) {
          steps.push([label, errorOutcome(error)]);
          return undefined;
        }
      },
      async drain(label, stream) {
        const events: StreamEvent[] = [];
        try {
          for await (const event of stream) {
            events.push(event);
            if (events.length > 1000) throw new Error('runaway stream');
          }
          steps.push([label, { events: structuredClone(events) }]);
        } catch (error) {
          steps.push([label, { events: structuredClone(events), ...(errorOutcome(error) as object) }]);
        }
        return events;
      },
    };
    await scenario.run(ctx);
  } finally {
    for (const other of others) await other.close();
    await client.close();
    await server.close();
  }
  return steps;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The task a blocking send returned. */
function taskOf(result: unknown): Task {
  const r = result as { kind?: string; task?: Task } | undefined;
  assert.equal(r?.kind, 'task', `expected a task, got ${JSON.stringify(result)}`);
  return r.task as Task;
}

/** `ok` value of an attempt, asserting it succeeded. */
function ok<T = Record<string, unknown>>(outcome: unknown): T {
  const o = outcome as { ok?: T; error?: string };
  assert.ok(o && 'ok' in o, `expected success, got ${JSON.stringify(outcome)}`);
  return o.ok as T;
}

function failedWith(outcome: unknown, errorClass: string): void {
  assert.equal((outcome as { error?: string }).error, errorClass, JSON.stringify(outcome));
}

const scenarios: Scenario[] = [
  {
    name: 'SendMessage, blocking: task and direct message (SRV-SEND-1/2/3)',
    async run({ client, attempt }) {
      await attempt('task', () => client.send({ text: 'task:hello' }));
      await attempt('echo', () => client.send({ text: 'echo:hi there' }));
    },
    expect(t) {
      const task = ok<{ kind: string; task: Task }>(t.get('task'));
      assert.equal(task.kind, 'task');
      assert.equal(task.task.status.state, TaskState.COMPLETED);
      assert.deepEqual(task.task.artifacts, [{ artifactId: 'out', parts: [{ text: 'hello' }] }]);
      assert.equal(task.task.history?.length, 1);
      assert.equal(task.task.history?.[0]?.role, 'ROLE_USER');
      assert.equal(task.task.history?.[0]?.taskId, task.task.id);
      const echo = ok<{ kind: string; message: { role: string; parts: unknown[] } }>(t.get('echo'));
      assert.equal(echo.kind, 'message');
      assert.equal(echo.message.role, 'ROLE_AGENT');
      assert.deepEqual(echo.message.parts, [{ text: 'hi there' }]);
    },
  },
  {
    name: 'SendMessage, returnImmediately: the task is answered before it ends (SRV-SEND-2)',
    async run({ client, attempt }) {
      const sent = await attempt('sent', () => client.send({ text: 'slow:200', returnImmediately: true }));
      const id = taskOf(sent).id;
      await attempt('waited', () => client.waitForTask(id, { initialDelayMs: 50, maxDelayMs: 100 }));
    },
    expect(t) {
      const sent = ok<{ task: Task }>(t.get('sent')).task;
      assert.ok(!['TASK_STATE_COMPLETED'].includes(sent.status.state), sent.status.state);
      assert.equal(sent.artifacts, undefined);
      const done = ok<Task>(t.get('waited'));
      assert.equal(done.id, sent.id);
      assert.equal(done.status.state, TaskState.COMPLETED);
      assert.deepEqual(done.artifacts, [{ artifactId: 'out', parts: [{ text: 'slept 200' }] }]);
    },
  },
  {
    name: 'SendStreamingMessage: stream:5 with append/lastChunk, then GetTask',
    async run({ client, drain, attempt }) {
      const events = await drain('stream', client.stream({ text: 'stream:5' }));
      const first = events[0];
      assert.ok(first?.kind === 'task');
      await attempt('get', () => client.getTask(first.task.id));
    },
    expect(t) {
      const { events, error } = t.get('stream') as { events: StreamEvent[]; error?: string };
      assert.equal(error, undefined);
      assert.deepEqual(
        events.map((e) => e.kind),
        [
          'task',
          'artifactUpdate',
          'artifactUpdate',
          'artifactUpdate',
          'artifactUpdate',
          'artifactUpdate',
          'statusUpdate',
        ],
      );
      const chunks = events.flatMap((e) => (e.kind === 'artifactUpdate' ? [e.artifactUpdate] : []));
      assert.deepEqual(
        chunks.map((c) => [c.artifact.parts[0]?.text, c.append ?? false, c.lastChunk ?? false]),
        [
          ['chunk-1', false, false],
          ['chunk-2', true, false],
          ['chunk-3', true, false],
          ['chunk-4', true, false],
          ['chunk-5', true, true],
        ],
      );
      const last = events.at(-1);
      assert.ok(last?.kind === 'statusUpdate');
      assert.equal(last.statusUpdate.status.state, TaskState.COMPLETED);
      const task = ok<Task>(t.get('get'));
      assert.equal(task.status.state, TaskState.COMPLETED);
      assert.deepEqual(
        task.artifacts?.[0]?.parts.map((p) => p.text),
        ['chunk-1', 'chunk-2', 'chunk-3', 'chunk-4', 'chunk-5'],
      );
    },
  },
  {
    name: 'GetTask with historyLength absent, 0 and 1 (SRV-HIST)',
    async run({ client, attempt }) {
      const asked = taskOf(await attempt('ask', () => client.send({ text: 'input:your name?' })));
      await attempt('answer', () =>
        client.send({ text: 'Ada', taskId: asked.id, contextId: asked.contextId }),
      );
      await attempt('get', () => client.getTask(asked.id));
      await attempt('get-0', () => client.getTask(asked.id, { historyLength: 0 }));
      await attempt('get-1', () => client.getTask(asked.id, { historyLength: 1 }));
      await attempt('get-negative', () => client.getTask(asked.id, { historyLength: -1 }));
    },
    expect(t) {
      const full = ok<Task>(t.get('get'));
      assert.equal(full.status.state, TaskState.COMPLETED);
      const history = full.history ?? [];
      assert.ok(history.length >= 2, `history of ${history.length}`);
      assert.ok(!('history' in ok<Task>(t.get('get-0'))) || ok<Task>(t.get('get-0')).history?.length === 0);
      const one = ok<Task>(t.get('get-1')).history ?? [];
      assert.equal(one.length, 1);
      assert.deepEqual(one[0], history.at(-1));
      failedWith(t.get('get-negative'), 'InvalidParamsError');
    },
  },
  {
    name: 'ListTasks: pages, includeArtifacts, contextId and status filters (SRV-LIST)',
    async run({ client, attempt, record }) {
      const first = taskOf(await attempt('t0', () => client.send({ text: 'task:r0' })));
      for (let i = 1; i < 5; i++) {
        // Distinct status times keep the newest-first order free of ties between bindings.
        await sleep(4);
        await attempt(`t${i}`, () => client.send({ text: `task:r${i}`, contextId: first.contextId }));
      }
      await sleep(4);
      await attempt('other', () => client.send({ text: 'input:which?' }));
      let token: string | undefined;
      for (let page = 0; page < 10; page++) {
        const r = await attempt(`page${page}`, () =>
          client.listTasks({ pageSize: 2, ...(token ? { pageToken: token } : {}) }),
        );
        token = r?.nextPageToken;
        if (!token) break;
      }
      const all: string[] = [];
      for await (const task of client.listAllTasks({ pageSize: 4 })) all.push(task.id);
      record('all', all);
      await attempt('artifacts', () => client.listTasks({ pageSize: 2, includeArtifacts: true }));
      await attempt('context', () => client.listTasks({ contextId: first.contextId }));
      await attempt('status', () => client.listTasks({ status: TaskState.INPUT_REQUIRED }));
      await attempt('both', () =>
        client.listTasks({ contextId: first.contextId, status: TaskState.INPUT_REQUIRED }),
      );
      await attempt('history-0', () => client.listTasks({ pageSize: 1, historyLength: 0 }));
      await attempt('bad-token', () => client.listTasks({ pageToken: 'not-a-token' }));
      await attempt('bad-size', () => client.listTasks({ pageSize: 1000 }));
    },
    expect(t) {
      const created = [0, 1, 2, 3, 4].map((i) => ok<{ task: Task }>(t.get(`t${i}`)).task);
      const other = ok<{ task: Task }>(t.get('other')).task;
      const newestFirst = [other.id, ...created.map((c) => c.id).reverse()];
      const pages = [0, 1, 2].map((i) =>
        ok<{ tasks: Task[]; nextPageToken: string; pageSize: number; totalSize: number }>(t.get(`page${i}`)),
      );
      assert.equal(t.has('page3'), false);
      assert.deepEqual(
        pages.flatMap((p) => p.tasks.map((task) => task.id)),
        newestFirst,
      );
      assert.deepEqual(
        pages.map((p) => [p.tasks.length, p.pageSize, p.totalSize]),
        [
          [2, 2, 6],
          [2, 2, 6],
          [2, 2, 6],
        ],
      );
      assert.match(pages[0]!.nextPageToken, /^<token\d+>$/);
      assert.equal(pages[2]!.nextPageToken, '', 'the last page has nextPageToken "" (SRV-LIST-4)');
      for (const p of pages) for (const task of p.tasks) assert.equal('artifacts' in task, false);
      assert.deepEqual(t.get('all'), newestFirst);
      const withArtifacts = ok<{ tasks: Task[] }>(t.get('artifacts')).tasks;
      assert.deepEqual(withArtifacts[1]?.artifacts, [{ artifactId: 'out', parts: [{ text: 'r4' }] }]);
      const byContext = ok<{ tasks: Task[]; totalSize: number }>(t.get('context'));
      assert.deepEqual(
        byContext.tasks.map((task) => task.id),
        created.map((c) => c.id).reverse(),
      );
      assert.equal(byContext.totalSize, 5);
      const byStatus = ok<{ tasks: Task[] }>(t.get('status')).tasks;
      assert.deepEqual(
        byStatus.map((task) => task.id),
        [other.id],
      );
      assert.deepEqual(ok<{ tasks: Task[] }>(t.get('both')).tasks, []);
      const h0 = ok<{ tasks: Task[] }>(t.get('history-0')).tasks[0];
      assert.ok(h0 && (h0.history === undefined || h0.history.length === 0));
      failedWith(t.get('bad-token'), 'InvalidParamsError');
      failedWith(t.get('bad-size'), 'InvalidParamsError');
    },
  },
  {
    name: 'CancelTask: a running task, then a completed one (SRV-TASK-3)',
    async run({ client, attempt }) {
      const running = taskOf(
        await attempt('sent', () => client.send({ text: 'slow:30000', returnImmediately: true })),
      );
      await attempt('cancel', () => client.cancelTask(running.id));
      await attempt('get', () => client.getTask(running.id));
      await attempt('cancel-again', () => client.cancelTask(running.id));
      const done = taskOf(await attempt('done', () => client.send({ text: 'task:x' })));
      await attempt('cancel-done', () => client.cancelTask(done.id));
      await attempt('cancel-unknown', () => client.cancelTask('no-such-task'));
    },
    expect(t) {
      assert.equal(ok<Task>(t.get('cancel')).status.state, TaskState.CANCELED);
      assert.equal(ok<Task>(t.get('get')).status.state, TaskState.CANCELED);
      assert.equal(ok<Task>(t.get('get')).artifacts, undefined);
      // Cancel is idempotent for a task already CANCELED (N7, SRV-TASK-3).
      assert.equal(ok<Task>(t.get('cancel-again')).status.state, TaskState.CANCELED);
      failedWith(t.get('cancel-done'), 'TaskNotCancelableError');
      failedWith(t.get('cancel-unknown'), 'TaskNotFoundError');
    },
  },
  {
    name: 'SubscribeToTask: a running task, an interrupted one, a terminal one (SRV-SUB)',
    async run({ client, attempt, record }) {
      const running = taskOf(
        await attempt('sent', () => client.send({ text: 'slow:30000', returnImmediately: true })),
      );
      // Read the snapshot, then cancel: the stream must carry CANCELED and end.
      const events: StreamEvent[] = [];
      let error: unknown;
      try {
        for await (const event of client.subscribeToTask(running.id)) {
          events.push(event);
          if (events.length === 1) await attempt('cancel', () => client.cancelTask(running.id));
          if (events.length > 50) break;
        }
      } catch (e) {
        error = e;
      }
      record('running', { events, ...(error ? (errorOutcome(error) as object) : {}) });

      const asked = taskOf(await attempt('ask', () => client.send({ text: 'input:color?' })));
      const stream = client.subscribeToTask(asked.id)[Symbol.asyncIterator]();
      const snapshot = await stream.next();
      record('interrupted-snapshot', snapshot.value);
      await attempt('answer', () => client.send({ text: 'blue', taskId: asked.id }));
      const rest: StreamEvent[] = [];
      for (let i = 0; i < 50; i++) {
        const next = await stream.next();
        if (next.done) break;
        rest.push(next.value);
      }
      record('interrupted-rest', rest);

      await attempt('terminal', async () => {
        for await (const event of client.subscribeToTask(running.id)) return event;
        return 'ended without events';
      });
      await attempt('unknown', async () => {
        for await (const event of client.subscribeToTask('no-such-task')) return event;
        return 'ended without events';
      });
    },
    expect(t) {
      const running = t.get('running') as { events: StreamEvent[]; error?: string };
      assert.equal(running.error, undefined);
      assert.equal(running.events[0]?.kind, 'task');
      const first = running.events[0] as { task: Task };
      assert.equal(first.task.status.state, TaskState.WORKING);
      const last = running.events.at(-1);
      assert.ok(last?.kind === 'statusUpdate', JSON.stringify(running.events));
      assert.equal(last.statusUpdate.status.state, TaskState.CANCELED);
      const snapshot = t.get('interrupted-snapshot') as StreamEvent;
      assert.ok(snapshot.kind === 'task');
      assert.equal(snapshot.task.status.state, TaskState.INPUT_REQUIRED);
      const rest = t.get('interrupted-rest') as StreamEvent[];
      const artifact = rest.find((e) => e.kind === 'artifactUpdate');
      assert.ok(artifact?.kind === 'artifactUpdate');
      assert.deepEqual(artifact.artifactUpdate.artifact.parts, [{ text: 'blue' }]);
      const end = rest.at(-1);
      assert.ok(end?.kind === 'statusUpdate');
      assert.equal(end.statusUpdate.status.state, TaskState.COMPLETED);
      failedWith(t.get('terminal'), 'UnsupportedOperationError');
      failedWith(t.get('unknown'), 'TaskNotFoundError');
    },
  },
  {
    name: 'Multi-turn: input-required, follow-up on the task, then in the same context',
    async run({ client, attempt }) {
      const asked = taskOf(await attempt('ask', () => client.send({ text: 'input:favourite number?' })));
      await attempt('answer', () =>
        client.send({ text: '42', taskId: asked.id, contextId: asked.contextId }),
      );
      await attempt('follow-up', () => client.send({ text: 'task:more', contextId: asked.contextId }));
      await attempt('other-context', () =>
        client.send({ text: 'again', taskId: asked.id, contextId: 'another-context' }),
      );
    },
    expect(t) {
      const asked = ok<{ task: Task }>(t.get('ask')).task;
      assert.equal(asked.status.state, TaskState.INPUT_REQUIRED);
      assert.deepEqual(asked.status.message?.parts, [{ text: 'favourite number?' }]);
      assert.equal(asked.status.message?.role, 'ROLE_AGENT');
      const answered = ok<{ task: Task }>(t.get('answer')).task;
      assert.equal(answered.id, asked.id);
      assert.equal(answered.contextId, asked.contextId);
      assert.equal(answered.status.state, TaskState.COMPLETED);
      assert.deepEqual(answered.artifacts, [{ artifactId: 'out', parts: [{ text: '42' }] }]);
      const follow = ok<{ task: Task }>(t.get('follow-up')).task;
      assert.notEqual(follow.id, asked.id);
      assert.equal(follow.contextId, asked.contextId);
      assert.equal(follow.status.state, TaskState.COMPLETED);
      // G1: a contextId that does not match the task is InvalidParams on message.contextId.
      failedWith(t.get('other-context'), 'InvalidParamsError');
      assert.deepEqual((t.get('other-context') as { violations?: string[] }).violations, [
        'message.contextId',
      ]);
    },
  },
  {
    name: 'Errors: unknown task, terminal task, client-chosen taskId, push operations, extended card',
    async run({ client, attempt }) {
      await attempt('get-unknown', () => client.getTask('no-such-task'));
      const done = taskOf(await attempt('done', () => client.send({ text: 'task:x' })));
      await attempt('message-to-completed', () => client.send({ text: 'more', taskId: done.id }));
      await attempt('stream-to-completed', async () => {
        for await (const event of client.stream({ text: 'more', taskId: done.id })) return event;
        return 'ended without events';
      });
      await attempt('client-chosen-task-id', () =>
        client.send({ text: 'task:new', taskId: 'my-own-task-id' }),
      );
      await attempt('after-errors', () => client.getTask(done.id));
      // A call timeout is the same typed error everywhere (a gRPC deadline on gRPC).
      await attempt('timeout', () =>
        client.sendMessage(client.buildRequest({ text: 'slow:30000' }), { timeoutMs: 300 }),
      );
      // Straight to the transport: the client refuses these from the card alone.
      const transport = client.transport;
      await attempt('push-create', () =>
        transport.createTaskPushNotificationConfig({ taskId: done.id, url: 'https://example.com/hook' }),
      );
      await attempt('push-get', () => transport.getTaskPushNotificationConfig({ taskId: done.id, id: 'c1' }));
      await attempt('push-list', () => transport.listTaskPushNotificationConfigs({ taskId: done.id }));
      await attempt('push-delete', () =>
        transport.deleteTaskPushNotificationConfig({ taskId: done.id, id: 'c1' }),
      );
      await attempt('extended-card', () => transport.getExtendedAgentCard({}));
      await attempt('client-push', () => client.listTaskPushNotificationConfigs(done.id));
      await attempt('client-extended-card', () => client.getExtendedAgentCard());
    },
    expect(t) {
      failedWith(t.get('get-unknown'), 'TaskNotFoundError');
      failedWith(t.get('message-to-completed'), 'UnsupportedOperationError');
      failedWith(t.get('stream-to-completed'), 'UnsupportedOperationError');
      failedWith(t.get('client-chosen-task-id'), 'TaskNotFoundError');
      const after = ok<Task>(t.get('after-errors'));
      assert.equal(after.status.state, TaskState.COMPLETED);
      assert.equal(after.history?.length, 1, 'refused messages changed nothing');
      assert.deepEqual(t.get('timeout'), { error: 'A2ATimeoutError', timeoutMs: 300 });
      for (const op of ['push-create', 'push-get', 'push-list', 'push-delete', 'client-push']) {
        failedWith(t.get(op), 'PushNotificationNotSupportedError');
      }
      failedWith(t.get('extended-card'), 'UnsupportedOperationError');
      failedWith(t.get('client-extended-card'), 'UnsupportedOperationError');
    },
  },
  {
    name: 'Service parameters: a required extension, and client headers, on every binding',
    server: () => ({
      card: {
        ...bench.card,
        extensions: [{ uri: 'urn:example:needed', required: true, description: 'must be requested' }],
      },
    }),
    async run({ client, attempt, connect }) {
      await attempt('without', () => client.send({ text: 'task:x' }));
      const withExtension = await connect({ extensions: ['urn:example:needed'] });
      await attempt('with-client-extensions', () => withExtension.send({ text: 'task:x' }));
      const withHeader = await connect({ headers: { 'A2A-Extensions': 'urn:example:needed' } });
      await attempt('with-client-header', () => withHeader.send({ text: 'task:y' }));
      await attempt('with-call-header', () =>
        client.sendMessage(client.buildRequest({ text: 'task:z' }), {
          headers: { 'a2a-extensions': 'urn:example:needed' },
        }),
      );
      await attempt('bad-version', () =>
        client.getTask('no-such-task', { headers: { 'a2a-version': '9.9' } }),
      );
    },
    expect(t) {
      failedWith(t.get('without'), 'ExtensionSupportRequiredError');
      for (const step of ['with-client-extensions', 'with-client-header', 'with-call-header']) {
        const task = ok<{ kind: string; task: Task }>(t.get(step));
        assert.equal(task.task.status.state, TaskState.COMPLETED, step);
      }
      failedWith(t.get('bad-version'), 'VersionNotSupportedError');
    },
  },
  {
    name: 'GetExtendedAgentCard: configured, then not configured (SRV-XCARD-3)',
    server: (settings) => ({
      extendedCard: () => {
        if (!settings.extendedConfigured) throw new ExtendedAgentCardNotConfiguredError();
        return { ...bench.card, description: 'the extended bench card', name: 'bench+' };
      },
    }),
    async run({ client, attempt, settings, record }) {
      record('declared', client.card?.capabilities.extendedAgentCard);
      const card = await attempt('configured', () => client.getExtendedAgentCard());
      record(
        'interfaces',
        card?.supportedInterfaces
          .filter((i) => i.protocolVersion === '1.0')
          .map((i) => i.protocolBinding)
          .sort(),
      );
      settings.extendedConfigured = false;
      await attempt('not-configured', () => client.getExtendedAgentCard());
    },
    expect(t) {
      assert.equal(t.get('declared'), true);
      const card = ok<{ name: string; description: string }>(t.get('configured'));
      assert.equal(card.name, 'bench+');
      assert.equal(card.description, 'the extended bench card');
      assert.deepEqual(t.get('interfaces'), ['GRPC', 'HTTP+JSON', 'JSONRPC']);
      failedWith(t.get('not-configured'), 'ExtendedAgentCardNotConfiguredError');
    },
  },
];

describe('the three bindings give equal results (issue 5 functional equivalence)', () => {
  for (const scenario of scenarios) {
    test(scenario.name, async () => {
      const transcripts = new Map<BindingName, Step[]>();
      for (const binding of BINDINGS) transcripts.set(binding, normalize(await runOn(binding, scenario)));
      const reference = transcripts.get('JSONRPC')!;
      for (const binding of BINDINGS) {
        const transcript = transcripts.get(binding)!;
        assert.deepEqual(
          transcript.map(([label]) => label),
          reference.map(([label]) => label),
          `${binding}: same steps as JSONRPC`,
        );
        for (let i = 0; i < reference.length; i++) {
          const [label] = reference[i]!;
          assert.deepEqual(transcript[i], reference[i], `${binding} differs from JSONRPC at step "${label}"`);
        }
      }
      // The content checks read the normalized transcript, which every binding shares.
      scenario.expect(new Map(reference));
    });
  }
});
