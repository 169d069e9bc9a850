/**
 * The life of one execution of the agent, on real sockets through the bindings: one execution
 * per task at a time (a message meanwhile waits its turn), every execution's end applied once,
 * shutdown never reported as success, returnImmediately keeps a Message a Message, agent
 * output that is not JSON refused and stored nowhere, client messages are ROLE_USER, a stream
 * starts before the agent's first event, and a bare INPUT_REQUIRED.
 */
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { Client, credentials, Metadata } from '@grpc/grpc-js';
import { InvalidAgentResponseError, UnsupportedOperationError } from '../../../src/errors/a2a-error.js';
import { TaskState } from '../../../src/model/enums.js';
import type { Task } from '../../../src/model/schema.js';
import { GRPC_METHODS } from '../../../src/bindings/grpc/service.js';
import { encodeMessage } from '../../../src/bindings/grpc/encode.js';
import { createA2AServer } from '../../../src/server/index.js';
import type { AgentExecutor, RequestContext, TaskEventSink } from '../../../src/core/executor.js';
import { MemoryTaskStore } from '../../../src/core/stores/memory/task-store.js';
import type { StoredTask, TaskScope } from '../../../src/core/stores/task-store.js';
import { deferred, eventually, TEST_CARD } from '../../support/handler.js';

type Execute = (ctx: RequestContext, task: TaskEventSink) => Promise<void>;

/** A memory store (our public TaskStore) that counts reads per task id, to see a request arrive. */
class CountingReadsStore extends MemoryTaskStore {
  readonly #reads = new Map<string, number>();
  override get(scope: TaskScope, id: string): Promise<StoredTask | undefined> {
    this.#reads.set(id, (this.#reads.get(id) ?? 0) + 1);
    return super.get(scope, id);
  }
  reads(id: string): number {
    return this.#reads.get(id) ?? 0;
  }
}

interface Running {
  rpc: string;
  rest: string;
  grpcTarget: string;
  store: CountingReadsStore;
  close: () => Promise<void>;
}

async function start(t: TestContext, agent: Execute | AgentExecutor, grpc = false): Promise<Running> {
  const store = new CountingReadsStore();
  const server = createA2AServer({
    agent,
    card: TEST_CARD,
    store,
    closeGraceMs: 200,
    ...(grpc ? { grpc: { port: 0, host: '127.0.0.1' } } : {}),
  });
  const { url, grpcPort } = await server.listen(0, '127.0.0.1');
  t.after(() => server.close());
  return {
    rpc: `${url}/a2a/jsonrpc`,
    rest: `${url}/a2a/rest`,
    grpcTarget: `127.0.0.1:${grpcPort ?? 0}`,
    store,
    close: () => server.close(),
  };
}

const JSON_RPC_HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0' };
let seq = 0;

interface RpcReply {
  result?: { task?: Task; message?: { parts: { text?: string }[] }; tasks?: Task[] } & Partial<Task>;
  error?: { code: number; message: string; data?: { reason?: string }[] };
}

async function rpc(endpoint: string, method: string, params: unknown): Promise<RpcReply> {
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: JSON_RPC_HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id: ++seq, method, params }),
  });
  return (await res.json()) as RpcReply;
}

function message(text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { messageId: `m-${++seq}-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }], ...extra };
}

/** Resolves with `promise`, or rejects once `ms` passed: a bound on liveness, never an assertion on speed. */
async function bounded<T>(promise: Promise<T>, what: string, ms = 10_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: still pending after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, limit]);
  } finally {
    clearTimeout(timer);
  }
}

/** A gate the test opens, or that opens by itself after `ms` so a broken server cannot hang the test. */
function gate(ms = 5_000): { promise: Promise<void>; open: () => void; opened: () => boolean } {
  const d = deferred();
  let opened = false;
  const open = (): void => {
    opened = true;
    clearTimeout(timer);
    d.resolve();
  };
  const timer = setTimeout(open, ms);
  return { promise: d.promise, open, opened: () => opened };
}

/** A pause that lets requests already on their way get as far as they go (ordering only, nothing is timed). */
function settle(ms = 100): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

const INVALID_PARAMS = -32602;
const UNSUPPORTED_OPERATION = -32004;

describe('one execution per task; every end applied once (issue 8 items 1, 2)', () => {
  for (const ending of ['returns', 'throws'] as const) {
    test(`a follow-up while the agent works waits its turn; the first execution ${ending} and its end holds`, async (t) => {
      const hold = gate();
      let executions = 0;
      const server = await start(t, async (ctx, task) => {
        executions++;
        if (ctx.task) return task.complete('follow-up ran');
        await task.working('thinking');
        await hold.promise;
        if (ending === 'throws') throw new Error('the agent broke');
      });
      const first = await rpc(server.rpc, 'SendMessage', {
        message: message('start'),
        configuration: { returnImmediately: true },
      });
      const taskId = first.result!.task!.id;
      const readsBefore = server.store.reads(taskId);
      const second = rpc(server.rpc, 'SendMessage', { message: message('more', { taskId }) });
      // The follow-up has read the task (and found the agent still running) before the agent ends.
      assert.ok(await eventually(() => server.store.reads(taskId) >= readsBefore + 1));
      await settle();
      hold.open();
      const reply = await bounded(second, 'the follow-up SendMessage');
      const expected = ending === 'returns' ? TaskState.COMPLETED : TaskState.FAILED;
      // The first execution ended the task; the waiting message is answered with the truth.
      assert.equal(reply.error?.code, UNSUPPORTED_OPERATION, JSON.stringify(reply));
      assert.match(reply.error!.message, new RegExp(expected));
      const got = await rpc(server.rpc, 'GetTask', { id: taskId });
      assert.equal(got.result?.status?.state, expected);
      assert.equal(executions, 1, 'the refused follow-up never reached the agent');
      assert.ok(
        !got.result?.history?.some((m) => m.parts[0]?.text === 'more'),
        'a message that never ran is not in history',
      );
    });
  }

  test('a follow-up that waited runs after the first execution left the task INPUT_REQUIRED', async (t) => {
    const hold = gate();
    const server = await start(t, async (ctx, task) => {
      if (ctx.task) return task.complete(`answer: ${ctx.text}`);
      await task.requireInput('which one?');
      // Still running after asking (cleanup, logging): the answer must wait, not overlap.
      await hold.promise;
    });
    const asked = await rpc(server.rpc, 'SendMessage', { message: message('start') });
    const taskId = asked.result!.task!.id;
    assert.equal(asked.result?.task?.status.state, TaskState.INPUT_REQUIRED);
    const readsBefore = server.store.reads(taskId);
    const answer = rpc(server.rpc, 'SendMessage', { message: message('blue', { taskId }) });
    assert.ok(await eventually(() => server.store.reads(taskId) >= readsBefore + 1));
    hold.open();
    const done = await bounded(answer, 'the answer');
    assert.equal(done.result?.task?.status.state, TaskState.COMPLETED, JSON.stringify(done));
    assert.equal(done.result?.task?.artifacts?.[0]?.parts[0]?.text, 'answer: blue');
  });

  test('two answers to one INPUT_REQUIRED question: one runs, the other is told the truth about its own message', async (t) => {
    const hold = gate();
    let running = 0;
    let most = 0;
    const server = await start(t, async (ctx, task) => {
      if (!ctx.task) return task.requireInput('which colour?');
      running++;
      most = Math.max(most, running);
      try {
        await task.working();
        await hold.promise;
        await task.complete(`chose ${ctx.text}`);
      } finally {
        running--;
      }
    });
    const asked = await rpc(server.rpc, 'SendMessage', { message: message('start') });
    const taskId = asked.result!.task!.id;
    const readsBefore = server.store.reads(taskId);
    const answers = ['red', 'green'].map((colour) =>
      rpc(server.rpc, 'SendMessage', { message: message(colour, { taskId }) }).then((reply) => ({
        colour,
        reply,
      })),
    );
    assert.ok(await eventually(() => running >= 1 && server.store.reads(taskId) >= readsBefore + 2));
    // Both answers have read the task; give the second every chance to start a rival execution.
    await settle();
    hold.open();
    const replies = await bounded(Promise.all(answers), 'both answers');
    assert.equal(most, 1, 'never two executions of one task at once');
    const won = replies.filter((r) => r.reply.result?.task);
    const lost = replies.filter((r) => r.reply.error);
    assert.equal(won.length, 1, JSON.stringify(replies));
    assert.equal(lost.length, 1, JSON.stringify(replies));
    const winner = won[0]!;
    assert.equal(winner.reply.result?.task?.status.state, TaskState.COMPLETED);
    assert.equal(winner.reply.result?.task?.artifacts?.[0]?.parts[0]?.text, `chose ${winner.colour}`);
    assert.equal(lost[0]!.reply.error?.code, UNSUPPORTED_OPERATION);
  });
});

describe('shutdown (issue 8 item 3)', () => {
  test('a task interrupted by close() ends FAILED saying the server stopped, not COMPLETED', async (t) => {
    const started = deferred();
    const server = await start(t, async (ctx, task) => {
      await task.working('long job');
      started.resolve();
      // An agent that stops when told to and returns: that is no success.
      await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
    });
    const sent = await rpc(server.rpc, 'SendMessage', {
      message: message('go'),
      configuration: { returnImmediately: true },
    });
    const taskId = sent.result!.task!.id;
    await started.promise;
    await bounded(server.close(), 'close()');
    const record = await server.store.get({ tenant: '', owner: 'anonymous' }, taskId);
    assert.equal(record?.task.status.state, TaskState.FAILED);
    assert.match(record?.task.status.message?.parts[0]?.text ?? '', /server stopped/);
  });
});

describe('returnImmediately (issue 8 item 4)', () => {
  test('a direct Message reply stays a Message and creates no task', async (t) => {
    const server = await start(t, async (_ctx, task) => task.reply('just an answer'));
    const reply = await rpc(server.rpc, 'SendMessage', {
      message: message('hi'),
      configuration: { returnImmediately: true },
    });
    assert.equal(reply.result?.task, undefined, JSON.stringify(reply));
    assert.equal(reply.result?.message?.parts[0]?.text, 'just an answer');
    assert.equal(server.store.size, 0);
  });
});

describe('agent output is validated like client input (issue 8 item 5)', () => {
  test('an event that is not JSON is refused with InvalidAgentResponseError and stored nowhere', async (t) => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    const refused: string[] = [];
    const accepted: string[] = [];
    const server = await start(t, async (_ctx, task) => {
      await task.working();
      const attempts: [string, () => Promise<void>][] = [
        ['BigInt metadata', () => task.artifact({ text: 'a', metadata: { n: 1n } })],
        ['cyclic data', () => task.artifact({ data: cyclic })],
        ['function in data', () => task.artifact({ data: { f: () => 1 } })],
        ['undefined in an array', () => task.artifact({ data: [1, undefined] })],
        ['NaN in status metadata', () => task.status(TaskState.WORKING, undefined, { x: NaN })],
        [
          'Date in message metadata',
          () => task.working({ parts: [{ text: 'x' }], metadata: { at: new Date() } }),
        ],
        ['unknown part field', () => task.artifact({ parts: [{ text: 'x', kind: 'text' } as never] })],
        ['non-string name', () => task.artifact({ text: 'x', name: 42 as never })],
        ['BigInt in data part of a message', () => task.working({ parts: [{ data: { n: 2n } }] })],
      ];
      for (const [what, attempt] of attempts) {
        try {
          await attempt();
          accepted.push(what);
        } catch (error) {
          if (error instanceof InvalidAgentResponseError) refused.push(what);
          else throw error;
        }
      }
      await task.complete({ artifactId: 'good', data: { fine: [1, 'two', null, { three: true }] } });
    });
    const sent = await rpc(server.rpc, 'SendMessage', { message: message('go') });
    assert.deepEqual(accepted, []);
    assert.equal(refused.length, 9);
    const task = sent.result?.task;
    assert.equal(task?.status.state, TaskState.COMPLETED, JSON.stringify(sent));
    assert.deepEqual(
      task?.artifacts?.map((a) => a.artifactId),
      ['good'],
    );
    const got = await rpc(server.rpc, 'GetTask', { id: task!.id });
    assert.equal(got.error, undefined, JSON.stringify(got.error));
    const listed = await rpc(server.rpc, 'ListTasks', { includeArtifacts: true });
    assert.equal(listed.error, undefined, JSON.stringify(listed.error));
    assert.equal(listed.result?.tasks?.length, 1);
  });

  test('a first reply that is not JSON is refused; the agent can still answer', async (t) => {
    let refusal: unknown;
    const server = await start(t, async (_ctx, task) => {
      try {
        await task.reply({ parts: [{ text: 'x' }], metadata: { n: 10n } });
      } catch (error) {
        refusal = error;
      }
      await task.reply('a clean answer');
    });
    const reply = await bounded(rpc(server.rpc, 'SendMessage', { message: message('hi') }), 'the reply');
    assert.ok(refusal instanceof InvalidAgentResponseError);
    assert.match(refusal.message, /message\.metadata\.n/);
    assert.equal(reply.result?.message?.parts[0]?.text, 'a clean answer');
    assert.equal(server.store.size, 0);
  });
});

describe('client messages are ROLE_USER (issue 8 item 6)', () => {
  test('a ROLE_AGENT message from a client is InvalidParams naming message.role; nothing runs or is stored', async (t) => {
    let ran = false;
    const server = await start(t, async (_ctx, task) => {
      ran = true;
      await task.complete();
    });
    const reply = await rpc(server.rpc, 'SendMessage', {
      message: { ...message('I am the agent'), role: 'ROLE_AGENT' },
    });
    assert.equal(reply.error?.code, INVALID_PARAMS, JSON.stringify(reply));
    assert.match(reply.error!.message, /message\.role/);
    assert.equal(ran, false);
    assert.equal(server.store.size, 0);
  });
});

describe('a stream starts before the agent first speaks (issue 8 item 13)', () => {
  for (const binding of ['jsonrpc', 'rest'] as const) {
    test(`${binding}: headers at once; the Task follows when it exists`, async (t) => {
      const hold = gate();
      const server = await start(t, async (_ctx, task) => {
        await hold.promise; // thinking before any event
        await task.working();
        await task.complete('done');
      });
      const res = await fetch(binding === 'jsonrpc' ? server.rpc : `${server.rest}/message:stream`, {
        method: 'POST',
        headers: JSON_RPC_HEADERS,
        body: JSON.stringify(
          binding === 'jsonrpc'
            ? { jsonrpc: '2.0', id: 's', method: 'SendStreamingMessage', params: { message: message('hi') } }
            : { message: message('hi') },
        ),
      });
      const headersFirst = !hold.opened() && res.status === 200;
      hold.open();
      assert.ok(headersFirst, 'the response head arrived while the agent had not emitted anything');
      assert.equal(res.headers.get('content-type'), 'text/event-stream');
      const events = (await res.text())
        .split('\n\n')
        .filter((b) => b.startsWith('data: '))
        .map((b) => JSON.parse(b.slice(6)) as { result?: Record<string, unknown> } & Record<string, unknown>)
        .map((e) => (binding === 'jsonrpc' ? e.result! : e));
      assert.deepEqual(
        events.map((e) => Object.keys(e)[0]),
        ['task', 'artifactUpdate', 'statusUpdate'],
      );
      // The task exists from the agent's first event (until then it could still reply with a Message).
      assert.equal((events[0]!.task as Task).status.state, TaskState.WORKING);
    });
  }

  test('grpc: response metadata at once; the Task follows when it exists', async (t) => {
    const hold = gate();
    const server = await start(
      t,
      async (_ctx, task) => {
        await hold.promise;
        await task.complete('done');
      },
      true,
    );
    const client = new Client(server.grpcTarget, credentials.createInsecure());
    t.after(() => client.close());
    const method = GRPC_METHODS.SendStreamingMessage;
    const bytes = Buffer.from(encodeMessage(method.input, { message: message('hi') } as never));
    const identity = (b: Buffer): Buffer => b;
    const md = new Metadata();
    md.set('a2a-version', '1.0');
    const call = client.makeServerStreamRequest(method.path, identity, identity, bytes, md);
    const frames: Buffer[] = [];
    let headersFirst: boolean | undefined;
    call.on('metadata', () => {
      headersFirst ??= !hold.opened() && frames.length === 0;
      hold.open();
    });
    call.on('data', (frame: Buffer) => frames.push(frame));
    await bounded(
      new Promise<void>((resolve, reject) => {
        call.on('end', resolve);
        call.on('error', reject);
      }),
      'the gRPC stream',
    );
    assert.equal(headersFirst, true, 'metadata arrived while the agent had not emitted anything');
    assert.equal(frames.length, 1);
  });

  test('a follow-up stream starts with the Task snapshot before the agent runs again', async (t) => {
    const hold = gate();
    const server = await start(t, async (ctx, task) => {
      if (!ctx.task) return task.requireInput('which one?');
      await hold.promise;
      await task.complete(`answer ${ctx.text}`);
    });
    const asked = await rpc(server.rpc, 'SendMessage', { message: message('start') });
    const taskId = asked.result!.task!.id;
    const res = await fetch(server.rpc, {
      method: 'POST',
      headers: JSON_RPC_HEADERS,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'f',
        method: 'SendStreamingMessage',
        params: { message: message('blue', { taskId }) },
      }),
    });
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('\n\n')) {
      const chunk = await bounded(reader.read(), 'the first event');
      if (chunk.done) break;
      text += new TextDecoder().decode(chunk.value);
    }
    const snapshotFirst = !hold.opened();
    hold.open();
    const first = JSON.parse(text.slice(6, text.indexOf('\n\n'))) as { result: { task?: Task } };
    assert.ok(snapshotFirst, 'the snapshot came before the agent emitted anything');
    assert.equal(first.result.task?.status.state, TaskState.WORKING);
    await reader.cancel();
  });

  test('a direct reply is still a stream of exactly one Message; an agent error before any event is the one error event', async (t) => {
    const server = await start(t, async (ctx, task) => {
      if (ctx.text === 'fail') throw new UnsupportedOperationError('not today');
      await task.reply('only this');
    });
    const read = async (text: string): Promise<Record<string, unknown>[]> => {
      const res = await fetch(server.rpc, {
        method: 'POST',
        headers: JSON_RPC_HEADERS,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 'r',
          method: 'SendStreamingMessage',
          params: { message: message(text) },
        }),
      });
      return (await res.text())
        .split('\n\n')
        .filter((b) => b.startsWith('data: '))
        .map((b) => JSON.parse(b.slice(6)) as Record<string, unknown>);
    };
    const reply = await read('hi');
    assert.equal(reply.length, 1);
    assert.ok((reply[0]!.result as Record<string, unknown>).message);
    const failed = await read('fail');
    assert.equal(failed.length, 1);
    assert.equal((failed[0]!.error as { code: number }).code, UNSUPPORTED_OPERATION);
    assert.equal(server.store.size, 0);
  });
});

describe('a bare INPUT_REQUIRED (issue 8 item 30)', () => {
  test('requireInput() without a question pauses the task with no status message', async (t) => {
    const server = await start(t, async (ctx, task) => {
      if (ctx.task) return task.complete('thanks');
      await task.requireInput();
    });
    const reply = await rpc(server.rpc, 'SendMessage', { message: message('start') });
    const task = reply.result?.task;
    assert.equal(task?.status.state, TaskState.INPUT_REQUIRED, JSON.stringify(reply));
    assert.equal(task?.status.message, undefined);
  });
});
