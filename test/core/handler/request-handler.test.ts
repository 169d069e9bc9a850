import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ExtendedAgentCardNotConfiguredError,
  InvalidParamsError,
  PushNotificationNotSupportedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '../../../src/errors/a2a-error.js';
import { TaskState } from '../../../src/model/enums.js';
import type { StreamResponse, Task } from '../../../src/model/schema.js';
import type { RequestContext, TaskEventSink } from '../../../src/core/executor.js';
import { createCallContext } from '../../../src/core/context.js';
import { MemoryTaskStore } from '../../../src/core/stores/memory/task-store.js';
import type { StoredTask, TaskScope } from '../../../src/core/stores/task-store.js';
import {
  callAs,
  collect,
  createTestHandler,
  deferred,
  describeEvent,
  eventually,
  testCard,
  userMessage,
} from '../../support/handler.js';

const alice = callAs('alice');
const bob = callAs('bob');

/** An agent driven by the message text: `complete`, `ask` (INPUT_REQUIRED), `reply`, `slow` (waits for abort). */
async function scriptedAgent(ctx: RequestContext, events: TaskEventSink): Promise<void> {
  const text = ctx.text;
  if (text === 'reply') return events.reply('direct answer');
  if (text === 'ask') return events.requireInput('which file?');
  if (text === 'auth') return events.requireAuth('sign in first');
  if (text === 'slow') {
    await events.working('started');
    await new Promise<void>((resolve) => {
      if (ctx.signal.aborted) resolve();
      ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    return;
  }
  await events.working('on it');
  await events.complete({ artifactId: 'out', text: `did ${text}` });
}

/** A snapshot of everything the store holds for `owner` (to prove a bad request changed nothing). */
async function snapshot(store: MemoryTaskStore, owner = 'alice'): Promise<string> {
  const page = await store.list({ tenant: '', owner, limit: 100 });
  return JSON.stringify(page.tasks.map((r) => [r.version, r.task]));
}

async function rejectsWith(promise: Promise<unknown>, type: new (...args: never[]) => Error): Promise<Error> {
  let caught: unknown;
  await assert.rejects(promise, (error: unknown) => {
    caught = error;
    return error instanceof type;
  });
  return caught as Error;
}

describe('SendMessage', () => {
  test('SRV-SEND-2: blocks until terminal, with server-minted ids, history and artifacts', async (t) => {
    const { handler } = createTestHandler(scriptedAgent);
    t.after(() => handler.close());
    const message = userMessage('build');
    const response = await handler.sendMessage({ message }, alice);
    const task = response.task!;
    assert.equal(task.status.state, TaskState.COMPLETED);
    assert.match(task.id, /^[0-9a-f-]{36}$/);
    assert.ok(task.contextId);
    assert.equal(task.artifacts?.[0]?.parts[0]?.text, 'did build');
    assert.equal(task.history?.[0]?.messageId, message.messageId);
    assert.equal(task.history?.[0]?.taskId, task.id);
    assert.equal(task.history?.[1]?.role, 'ROLE_AGENT');
  });

  test('a blocking send whose own agent settles the task reads no task back from the store', async (t) => {
    class ReadCountingStore extends MemoryTaskStore {
      reads = 0;
      override get(scope: TaskScope, id: string): Promise<StoredTask | undefined> {
        this.reads++;
        return super.get(scope, id);
      }
    }
    const taskStore = new ReadCountingStore();
    const { handler } = createTestHandler(
      async (_ctx, events) => {
        await events.working();
        await events.artifact({ artifactId: 'out', text: 'x' });
        await events.complete();
      },
      { taskStore },
    );
    t.after(() => handler.close());
    const response = await handler.sendMessage({ message: userMessage('x') }, alice);
    assert.equal(response.task?.status.state, TaskState.COMPLETED);
    assert.equal(response.task?.artifacts?.[0]?.parts[0]?.text, 'x');
    // The settling event carries the record it was saved with; the execution's end needs
    // nothing either (it left the task terminal).
    assert.equal(taskStore.reads, 0);
    // A send that settles through another request (CancelTask) still answers with the task.
    const release = deferred();
    const slow = createTestHandler(async (_ctx, events) => {
      await events.working();
      await release.promise;
    });
    t.after(() => slow.handler.close());
    const message = userMessage('slow');
    const sent = slow.handler.sendMessage({ message }, alice);
    const id = await eventually(() => slow.store.size > 0).then(
      async () => (await slow.store.list({ tenant: '', owner: 'alice', limit: 1 })).tasks[0]!.task.id,
    );
    await slow.handler.cancelTask({ id }, alice);
    assert.equal((await sent).task?.status.state, TaskState.CANCELED);
    release.resolve();
  });

  test('SRV-SEND-2: returns at INPUT_REQUIRED and AUTH_REQUIRED', async (t) => {
    const { handler } = createTestHandler(scriptedAgent);
    t.after(() => handler.close());
    const a = await handler.sendMessage({ message: userMessage('ask') }, alice);
    assert.equal(a.task?.status.state, TaskState.INPUT_REQUIRED);
    const b = await handler.sendMessage({ message: userMessage('auth') }, alice);
    assert.equal(b.task?.status.state, TaskState.AUTH_REQUIRED);
  });

  test('returnImmediately answers at the first event, before the agent finishes; the task goes on', async (t) => {
    const release = deferred();
    const { handler } = createTestHandler(async (_ctx, events) => {
      await events.working();
      await release.promise;
      await events.complete('late');
    });
    t.after(() => handler.close());
    const response = await handler.sendMessage(
      { message: userMessage('x'), configuration: { returnImmediately: true } },
      alice,
    );
    assert.equal(response.task?.status.state, TaskState.WORKING);
    release.resolve();
    const stream = await handler.subscribeToTask({ id: response.task!.id }, alice).catch(() => undefined);
    if (stream) await collect(stream);
    const done = await handler.getTask({ id: response.task!.id }, alice);
    assert.equal(done.status.state, TaskState.COMPLETED);
  });

  test('a direct reply is returned as a Message and creates no task', async (t) => {
    const { handler, store } = createTestHandler(scriptedAgent);
    t.after(() => handler.close());
    const response = await handler.sendMessage({ message: userMessage('reply') }, alice);
    assert.equal(response.message?.parts[0]?.text, 'direct answer');
    assert.equal(response.task, undefined);
    assert.equal(store.size, 0);
  });

  test('SRV-HIST: historyLength 0 omits history, n keeps the last n, absent keeps all', async (t) => {
    const { handler } = createTestHandler(scriptedAgent);
    t.after(() => handler.close());
    const none = await handler.sendMessage(
      { message: userMessage('a'), configuration: { historyLength: 0 } },
      alice,
    );
    assert.equal(none.task?.history, undefined);
    assert.ok(!('history' in none.task!));
    const one = await handler.sendMessage(
      { message: userMessage('a'), configuration: { historyLength: 1 } },
      alice,
    );
    assert.equal(one.task?.history?.length, 1);
    assert.equal(one.task?.history?.[0]?.role, 'ROLE_AGENT');
    const all = await handler.sendMessage({ message: userMessage('a') }, alice);
    assert.equal(all.task?.history?.length, 2);
    const got = await handler.getTask({ id: all.task!.id, historyLength: 1 }, alice);
    assert.equal(got.history?.length, 1);
  });

  test('acceptedOutputModes and metadata reach the agent', async (t) => {
    let seen: RequestContext | undefined;
    const { handler } = createTestHandler(async (ctx, events) => {
      seen = ctx;
      await events.complete();
    });
    t.after(() => handler.close());
    await handler.sendMessage(
      {
        message: userMessage('hi', { parts: [{ text: 'hi' }, { data: { n: 1 } }] }),
        configuration: { acceptedOutputModes: ['application/json'] },
        metadata: { trace: 'x' },
      },
      alice,
    );
    assert.deepEqual(seen?.configuration?.acceptedOutputModes, ['application/json']);
    assert.deepEqual(seen?.metadata, { trace: 'x' });
    assert.deepEqual(seen?.data, { n: 1 });
    assert.equal(seen?.text, 'hi');
    assert.equal(seen?.principal.id, 'alice');
  });

  test('SRV-CTX: an interrupted task resumes with ctx.task set; a follow-up keeps the context', async (t) => {
    const seen: (Task | undefined)[] = [];
    const { handler } = createTestHandler(async (ctx, events) => {
      seen.push(ctx.task);
      if (!ctx.task) return events.requireInput('which file?');
      await events.complete(`got ${ctx.text}`);
    });
    t.after(() => handler.close());
    const first = (await handler.sendMessage({ message: userMessage('start') }, alice)).task!;
    assert.equal(first.status.state, TaskState.INPUT_REQUIRED);
    const second = (await handler.sendMessage({ message: userMessage('a.txt', { taskId: first.id }) }, alice))
      .task!;
    assert.equal(second.id, first.id);
    assert.equal(second.contextId, first.contextId);
    assert.equal(second.status.state, TaskState.COMPLETED);
    assert.equal(seen[1]?.id, first.id);
    assert.equal(seen[1]?.history?.at(-1)?.parts[0]?.text, 'a.txt');
    const followUp = (
      await handler.sendMessage({ message: userMessage('again', { contextId: first.contextId }) }, alice)
    ).task!;
    assert.notEqual(followUp.id, first.id);
    assert.equal(followUp.contextId, first.contextId);
  });

  test('an answer sent right after INPUT_REQUIRED is not overtaken by the first execution ending', async (t) => {
    const { handler } = createTestHandler(async (ctx, events) => {
      if (!ctx.task) return events.requireInput('name?');
      await events.working();
      await events.artifact({ artifactId: 'out', text: ctx.text });
      await events.complete();
    });
    t.after(() => handler.close());
    for (let i = 0; i < 20; i++) {
      const asked = (await handler.sendMessage({ message: userMessage('start') }, alice)).task!;
      const answered = (
        await handler.sendMessage({ message: userMessage(`n${i}`, { taskId: asked.id }) }, alice)
      ).task!;
      assert.equal(answered.status.state, TaskState.COMPLETED);
      assert.equal(answered.artifacts?.[0]?.parts[0]?.text, `n${i}`);
    }
  });

  test('SRV-CTX-2: a client-chosen taskId for a new task is TaskNotFound and stores nothing', async (t) => {
    const { handler, store } = createTestHandler(scriptedAgent);
    t.after(() => handler.close());
    await rejectsWith(
      handler.sendMessage({ message: userMessage('x', { taskId: 'my-own-id' }) }, alice),
      TaskNotFoundError,
    );
    assert.equal(store.size, 0);
  });

  test("SRV-CTX-6 / G1: another context's task is InvalidParams on message.contextId, store unchanged", async (t) => {
    const { handler, store } = createTestHandler(scriptedAgent);
    t.after(() => handler.close());
    const task = (await handler.sendMessage({ message: userMessage('ask') }, alice)).task!;
    const before = await snapshot(store);
    const error = await rejectsWith(
      handler.sendMessage({ message: userMessage('x', { taskId: task.id, contextId: 'other' }) }, alice),
      InvalidParamsError,
    );
    assert.equal((error as InvalidParamsError).violations[0]?.path, 'message.contextId');
    assert.equal(await snapshot(store), before);
  });

  test("D36: another principal's or tenant's task is TaskNotFound, identical to a missing one", async (t) => {
    const { handler, store } = createTestHandler(scriptedAgent);
    t.after(() => handler.close());
    const task = (await handler.sendMessage({ message: userMessage('ask') }, alice)).task!;
    const before = await snapshot(store);
    const foreign = await rejectsWith(
      handler.sendMessage({ message: userMessage('x', { taskId: task.id }) }, bob),
      TaskNotFoundError,
    );
    const missing = await rejectsWith(
      handler.sendMessage({ message: userMessage('x', { taskId: 'missing' }) }, bob),
      TaskNotFoundError,
    );
    assert.equal(foreign.message.replace(task.id, 'ID'), missing.message.replace('missing', 'ID'));
    await rejectsWith(handler.getTask({ id: task.id }, bob), TaskNotFoundError);
    await rejectsWith(handler.getTask({ id: task.id }, callAs('alice', 'other-tenant')), TaskNotFoundError);
    await rejectsWith(handler.cancelTask({ id: task.id }, bob), TaskNotFoundError);
    await rejectsWith(handler.subscribeToTask({ id: task.id }, bob), TaskNotFoundError);
    assert.equal((await handler.listTasks({}, bob)).totalSize, 0);
    assert.equal(await snapshot(store), before);
  });

  test('SRV-SEND-5: a message to a completed task is UnsupportedOperation, store unchanged', async (t) => {
    const { handler, store } = createTestHandler(scriptedAgent);
    t.after(() => handler.close());
    const task = (await handler.sendMessage({ message: userMessage('x') }, alice)).task!;
    const before = await snapshot(store);
    await rejectsWith(
      handler.sendMessage({ message: userMessage('more', { taskId: task.id }) }, alice),
      UnsupportedOperationError,
    );
    assert.equal(await snapshot(store), before);
  });

  test('G2: a push config without push support fails before any task is created', async (t) => {
    const { handler, store } = createTestHandler(scriptedAgent);
    t.after(() => handler.close());
    await rejectsWith(
      handler.sendMessage(
        {
          message: userMessage('x'),
          configuration: { taskPushNotificationConfig: { url: 'https://hook.example' } },
        },
        alice,
      ),
      PushNotificationNotSupportedError,
    );
    assert.equal(store.size, 0);
  });

  test('SRV-SEND-10: a repeated messageId returns the original result without running the agent again', async (t) => {
    let runs = 0;
    const { handler, store } = createTestHandler(async (_ctx, events) => {
      runs++;
      await events.complete('once');
    });
    t.after(() => handler.close());
    const message = userMessage('x');
    const first = await handler.sendMessage({ message }, alice);
    const again = await handler.sendMessage({ message }, alice);
    assert.equal(again.task?.id, first.task?.id);
    assert.equal(runs, 1);
    assert.equal(store.size, 1);
    // Another principal with the same messageId is a different request.
    const other = await handler.sendMessage({ message }, bob);
    assert.notEqual(other.task?.id, first.task?.id);
    assert.equal(runs, 2);
  });

  test('SRV-SEND-10: a duplicate while the first is still running waits for the same result', async (t) => {
    let runs = 0;
    const release = deferred();
    const { handler } = createTestHandler(async (_ctx, events) => {
      runs++;
      await events.working();
      await release.promise;
      await events.complete('done');
    });
    t.after(() => handler.close());
    const message = userMessage('x');
    const first = handler.sendMessage({ message }, alice);
    const second = handler.sendMessage({ message }, alice);
    const third = handler.sendStreamingMessage({ message }, alice);
    release.resolve();
    const [a, b] = await Promise.all([first, second]);
    assert.equal(a.task?.id, b.task?.id);
    assert.equal(b.task?.status.state, TaskState.COMPLETED);
    const events = await collect(await third);
    assert.equal(events[0]?.task?.id, a.task?.id);
    assert.equal(
      events.at(-1)?.task?.status.state ?? events.at(-1)?.statusUpdate?.status.state,
      TaskState.COMPLETED,
    );
    assert.equal(runs, 1);
  });

  test('a repeated messageId of a direct reply returns the same Message', async (t) => {
    let runs = 0;
    const { handler } = createTestHandler(async (_ctx, events) => {
      runs++;
      await events.reply('hi');
    });
    t.after(() => handler.close());
    const message = userMessage('x');
    const a = await handler.sendMessage({ message }, alice);
    const b = await handler.sendMessage({ message }, alice);
    assert.equal(a.message?.messageId, b.message?.messageId);
    assert.equal(runs, 1);
  });

  test('an A2AError thrown before any event is the request error; no task is created', async (t) => {
    const { handler, store } = createTestHandler(async () => {
      throw new UnsupportedOperationError('images are not supported');
    });
    t.after(() => handler.close());
    await rejectsWith(handler.sendMessage({ message: userMessage('x') }, alice), UnsupportedOperationError);
    assert.equal(store.size, 0);
  });
});

describe('SendStreamingMessage and SubscribeToTask', () => {
  test('SRV-STREAM-2: Task first, then updates in order, closed at the terminal state', async (t) => {
    const { handler } = createTestHandler(scriptedAgent);
    t.after(() => handler.close());
    const events = await collect(await handler.sendStreamingMessage({ message: userMessage('x') }, alice));
    assert.deepEqual(events.map(describeEvent), ['task:WORKING', 'artifact:out', 'status:COMPLETED']);
    assert.ok(events[1]?.artifactUpdate?.contextId);
  });

  test('SRV-STREAM-1: a direct reply streams exactly one Message', async (t) => {
    const { handler } = createTestHandler(scriptedAgent);
    t.after(() => handler.close());
    const events = await collect(
      await handler.sendStreamingMessage({ message: userMessage('reply') }, alice),
    );
    assert.deepEqual(events.map(describeEvent), ['message']);
  });

  test('D3: a stream closes at INPUT_REQUIRED; at AUTH_REQUIRED once the agent returned', async (t) => {
    const { handler } = createTestHandler(scriptedAgent);
    t.after(() => handler.close());
    const ask = await collect(await handler.sendStreamingMessage({ message: userMessage('ask') }, alice));
    assert.deepEqual(ask.map(describeEvent), ['task:INPUT_REQUIRED']);
    const auth = await collect(await handler.sendStreamingMessage({ message: userMessage('auth') }, alice));
    assert.deepEqual(auth.map(describeEvent), ['task:AUTH_REQUIRED']);
  });

  test('SRV-SEND-12 / SRV-SUB-3: streaming off is UnsupportedOperation', async (t) => {
    const { handler, store } = createTestHandler(scriptedAgent, { capabilities: { streaming: false } });
    t.after(() => handler.close());
    await rejectsWith(
      handler.sendStreamingMessage({ message: userMessage('x') }, alice),
      UnsupportedOperationError,
    );
    await rejectsWith(handler.subscribeToTask({ id: 'x' }, alice), UnsupportedOperationError);
    assert.equal(store.size, 0);
  });

  test('SRV-SUB: first event is the Task; terminal task refused; unknown task not found', async (t) => {
    const { handler } = createTestHandler(scriptedAgent);
    t.after(() => handler.close());
    const done = (await handler.sendMessage({ message: userMessage('x') }, alice)).task!;
    await rejectsWith(handler.subscribeToTask({ id: done.id }, alice), UnsupportedOperationError);
    await rejectsWith(handler.subscribeToTask({ id: 'nope' }, alice), TaskNotFoundError);
  });

  test('SRV-SUB-5: the initial snapshot of an INPUT_REQUIRED task does not close the subscription', async (t) => {
    const { handler } = createTestHandler(async (ctx, events) => {
      if (!ctx.task) return events.requireInput('more?');
      await events.working('resumed');
      await events.complete('ok');
    });
    t.after(() => handler.close());
    const task = (await handler.sendMessage({ message: userMessage('x') }, alice)).task!;
    const stream = await handler.subscribeToTask({ id: task.id }, alice);
    const reading = collect(stream);
    await handler.sendMessage({ message: userMessage('answer', { taskId: task.id }) }, alice);
    const events = await reading;
    assert.deepEqual(events.map(describeEvent), [
      'task:INPUT_REQUIRED',
      'status:WORKING',
      'status:WORKING',
      'artifact:' + events[3]!.artifactUpdate!.artifact.artifactId,
      'status:COMPLETED',
    ]);
  });

  test('SRV-STREAM-6: two subscribers see the same events in the same order; GetTask sees each state', async (t) => {
    const steps = Array.from({ length: 10 }, () => deferred());
    const { handler } = createTestHandler(async (_ctx, events) => {
      await events.working('started');
      for (let i = 0; i < steps.length; i++) {
        await steps[i]!.promise;
        await events.working(`step ${i}`);
        await events.artifact({ artifactId: `a${i}`, text: String(i) });
      }
      await events.complete();
    });
    t.after(() => handler.close());
    const started = await handler.sendMessage(
      { message: userMessage('x'), configuration: { returnImmediately: true } },
      alice,
    );
    const id = started.task!.id;
    const observed: string[] = [];
    const readWithGet = async (stream: AsyncIterable<StreamResponse>): Promise<string[]> => {
      const kinds: string[] = [];
      for await (const event of stream) {
        kinds.push(describeEvent(event));
        const state = event.statusUpdate?.status.state;
        if (state) {
          const now = await handler.getTask({ id }, alice);
          observed.push(`${state}->${now.status.state}`);
        }
      }
      return kinds;
    };
    const a = readWithGet(await handler.subscribeToTask({ id }, alice));
    const b = readWithGet(await handler.subscribeToTask({ id }, alice));
    for (const step of steps) step.resolve();
    const [ka, kb] = await Promise.all([a, b]);
    assert.deepEqual(ka, kb);
    assert.equal(ka.at(-1), 'status:COMPLETED');
    assert.equal(ka.filter((k) => k.startsWith('artifact:')).length, 10);
    for (const pair of observed) {
      const [seen, now] = pair.split('->');
      if (seen === TaskState.COMPLETED) assert.equal(now, TaskState.COMPLETED);
    }
  });

  test('SRV-STREAM-7: a consumer that stops early does not cancel the task', async (t) => {
    const release = deferred();
    const { handler } = createTestHandler(async (_ctx, events) => {
      await events.working();
      await release.promise;
      await events.complete('fine');
    });
    t.after(() => handler.close());
    const stream = await handler.sendStreamingMessage({ message: userMessage('x') }, alice);
    let id = '';
    for await (const event of stream) {
      id = event.task!.id;
      break;
    }
    release.resolve();
    const final = await handler
      .sendMessage({ message: userMessage('y', { taskId: id }) }, alice)
      .catch(() => undefined);
    void final;
    const task = await handler.getTask({ id }, alice);
    assert.notEqual(task.status.state, TaskState.CANCELED);
  });

  test('an aborted client signal ends the stream, not the task', async (t) => {
    const release = deferred();
    const { handler } = createTestHandler(async (_ctx, events) => {
      await events.working();
      await release.promise;
      await events.complete('fine');
    });
    t.after(() => handler.close());
    const controller = new AbortController();
    const stream = await handler.sendStreamingMessage(
      { message: userMessage('x') },
      callAs('alice', '', controller.signal),
    );
    const iterator = stream[Symbol.asyncIterator]();
    const first = await iterator.next();
    const id = (first.value as StreamResponse).task!.id;
    controller.abort();
    assert.equal((await iterator.next()).done, true);
    const watch = collect(await handler.subscribeToTask({ id }, alice));
    release.resolve();
    const events = await watch;
    assert.equal(events.at(-1)?.statusUpdate?.status.state, TaskState.COMPLETED);
  });
});

describe('CancelTask', () => {
  test('SRV-TASK-5: cancel during a slow task broadcasts CANCELED, closes streams and aborts the agent', async (t) => {
    let aborted = false;
    const { handler } = createTestHandler(async (ctx, events) => {
      await events.working('slow');
      await new Promise<void>((resolve) =>
        ctx.signal.addEventListener('abort', () => resolve(), { once: true }),
      );
      aborted = true;
    });
    t.after(() => handler.close());
    const stream = await handler.sendStreamingMessage({ message: userMessage('x') }, alice);
    const iterator = stream[Symbol.asyncIterator]();
    const first = (await iterator.next()).value as StreamResponse;
    const id = first.task!.id;
    const other = collect(await handler.subscribeToTask({ id }, alice));
    const canceled = await handler.cancelTask({ id }, alice);
    assert.equal(canceled.status.state, TaskState.CANCELED);
    const rest: string[] = [];
    for (let r = await iterator.next(); !r.done; r = await iterator.next()) rest.push(describeEvent(r.value));
    assert.deepEqual(rest, ['status:CANCELED']);
    assert.deepEqual((await other).map(describeEvent), ['task:WORKING', 'status:CANCELED']);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(aborted, true);
    const again = await handler.cancelTask({ id }, alice);
    assert.equal(again.status.state, TaskState.CANCELED);
    assert.equal((await handler.getTask({ id }, alice)).status.state, TaskState.CANCELED);
  });

  test('an agent that first reads its signal after the cancel finds it aborted, also from a copy of its context', async (t) => {
    const cancelled = deferred();
    const seen = deferred<{ aborted: boolean; reason: unknown; copyAborted: boolean }>();
    const { handler } = createTestHandler(async (ctx, events) => {
      await events.working('waiting');
      await cancelled.promise;
      const copy = { ...ctx };
      seen.resolve({
        aborted: ctx.signal.aborted,
        reason: ctx.signal.reason,
        copyAborted: copy.signal.aborted,
      });
    });
    t.after(() => handler.close());
    const task = (
      await handler.sendMessage(
        { message: userMessage('x'), configuration: { returnImmediately: true } },
        alice,
      )
    ).task!;
    assert.equal((await handler.cancelTask({ id: task.id }, alice)).status.state, TaskState.CANCELED);
    cancelled.resolve();
    const { aborted, reason, copyAborted } = await seen.promise;
    assert.equal(aborted, true);
    assert.equal(copyAborted, true);
    assert.equal((reason as Error).name, 'AbortError');
  });

  test('N7: cancel of a completed task is TaskNotCancelable and changes nothing; unknown is TaskNotFound', async (t) => {
    const { handler, store } = createTestHandler(scriptedAgent);
    t.after(() => handler.close());
    const task = (await handler.sendMessage({ message: userMessage('x') }, alice)).task!;
    const before = await snapshot(store);
    await rejectsWith(handler.cancelTask({ id: task.id }, alice), TaskNotCancelableError);
    await rejectsWith(handler.cancelTask({ id: 'missing' }, alice), TaskNotFoundError);
    assert.equal(await snapshot(store), before);
  });

  test('an interrupted task can be canceled; the cancel hook can refuse', async (t) => {
    const { handler } = createTestHandler({
      execute: scriptedAgent,
      async cancel(ctx, events) {
        if (ctx.task?.status.state === TaskState.AUTH_REQUIRED) throw new TaskNotCancelableError('not now');
        await events.cancel('stopped by request');
      },
    });
    t.after(() => handler.close());
    const ask = (await handler.sendMessage({ message: userMessage('ask') }, alice)).task!;
    const canceled = await handler.cancelTask({ id: ask.id }, alice);
    assert.equal(canceled.status.state, TaskState.CANCELED);
    assert.equal(canceled.status.message?.parts[0]?.text, 'stopped by request');
    const auth = (await handler.sendMessage({ message: userMessage('auth') }, alice)).task!;
    await rejectsWith(handler.cancelTask({ id: auth.id }, alice), TaskNotCancelableError);
    assert.equal((await handler.getTask({ id: auth.id }, alice)).status.state, TaskState.AUTH_REQUIRED);
  });
});

describe('ListTasks', () => {
  test('SRV-LIST: newest first, filters combine, paging with tokens, totalSize, artifacts omitted', async (t) => {
    const { handler } = createTestHandler(scriptedAgent);
    t.after(() => handler.close());
    const ids: string[] = [];
    let contextId = '';
    for (let i = 0; i < 7; i++) {
      const message = userMessage(i % 2 === 0 ? 'done' : 'ask', contextId && i < 4 ? { contextId } : {});
      const task = (await handler.sendMessage({ message }, alice)).task!;
      if (!contextId) contextId = task.contextId!;
      ids.push(task.id);
    }
    await handler.sendMessage({ message: userMessage('x') }, bob);
    const all = await handler.listTasks({}, alice);
    assert.equal(all.totalSize, 7);
    assert.equal(all.pageSize, 50);
    assert.equal(all.nextPageToken, '');
    assert.equal(all.tasks.length, 7);
    for (const task of all.tasks) assert.ok(!('artifacts' in task));
    for (let i = 1; i < all.tasks.length; i++) {
      const a = all.tasks[i - 1]!;
      const b = all.tasks[i]!;
      assert.ok(
        a.status.timestamp! > b.status.timestamp! ||
          (a.status.timestamp === b.status.timestamp && a.id > b.id),
      );
    }
    const pages: string[] = [];
    let token = '';
    for (let guard = 0; guard < 10; guard++) {
      const page = await handler.listTasks({ pageSize: 3, ...(token ? { pageToken: token } : {}) }, alice);
      assert.equal(page.totalSize, 7);
      pages.push(...page.tasks.map((task) => task.id));
      token = page.nextPageToken;
      if (!token) break;
    }
    assert.deepEqual(
      pages,
      all.tasks.map((task) => task.id),
    );
    const inContext = await handler.listTasks({ contextId, status: TaskState.INPUT_REQUIRED }, alice);
    assert.ok(
      inContext.tasks.every((x) => x.contextId === contextId && x.status.state === TaskState.INPUT_REQUIRED),
    );
    assert.equal(inContext.totalSize, 2);
    const withArtifacts = await handler.listTasks({ includeArtifacts: true, historyLength: 0 }, alice);
    assert.ok(withArtifacts.tasks.every((x) => Array.isArray(x.artifacts) && x.history === undefined));
    const future = await handler.listTasks({ statusTimestampAfter: '2999-01-01T00:00:00Z' }, alice);
    assert.equal(future.totalSize, 0);
    const past = await handler.listTasks({ statusTimestampAfter: '2000-01-01T00:00:00.123456+02:00' }, alice);
    assert.equal(past.totalSize, 7);
  });

  test('SRV-LIST-9: a tampered, foreign or re-filtered page token is InvalidParams', async (t) => {
    const { handler, store } = createTestHandler(scriptedAgent);
    t.after(() => handler.close());
    for (let i = 0; i < 3; i++) await handler.sendMessage({ message: userMessage('x') }, alice);
    const page = await handler.listTasks({ pageSize: 1 }, alice);
    const token = page.nextPageToken;
    assert.ok(token);
    const before = await snapshot(store);
    const tampered = token.slice(0, -2) + (token.endsWith('AA') ? 'BB' : 'AA');
    await rejectsWith(handler.listTasks({ pageSize: 1, pageToken: tampered }, alice), InvalidParamsError);
    await rejectsWith(handler.listTasks({ pageSize: 1, pageToken: token }, bob), InvalidParamsError);
    await rejectsWith(handler.listTasks({ pageSize: 1, pageToken: 'garbage' }, alice), InvalidParamsError);
    await rejectsWith(
      handler.listTasks({ pageSize: 1, pageToken: token, status: TaskState.COMPLETED }, alice),
      InvalidParamsError,
    );
    await rejectsWith(handler.listTasks({ pageSize: 101 }, alice), InvalidParamsError);
    await rejectsWith(handler.listTasks({ pageSize: 0 }, alice), InvalidParamsError);
    assert.equal(await snapshot(store), before);
  });
});

describe('push configs and the extended card', () => {
  test('SRV-PUSH-1: every push op is PushNotificationNotSupported when the capability is off', async (t) => {
    const { handler } = createTestHandler(scriptedAgent);
    t.after(() => handler.close());
    await rejectsWith(
      handler.createTaskPushNotificationConfig({ taskId: 'x', url: 'https://h' }, alice),
      PushNotificationNotSupportedError,
    );
    await rejectsWith(
      handler.getTaskPushNotificationConfig({ taskId: 'x', id: 'y' }, alice),
      PushNotificationNotSupportedError,
    );
    await rejectsWith(
      handler.listTaskPushNotificationConfigs({ taskId: 'x' }, alice),
      PushNotificationNotSupportedError,
    );
    await rejectsWith(
      handler.deleteTaskPushNotificationConfig({ taskId: 'x', id: 'y' }, alice),
      PushNotificationNotSupportedError,
    );
  });

  test('G6/G7: create, replace, get, list, delete (idempotent), scoped to the task owner', async (t) => {
    const { handler } = createTestHandler(scriptedAgent, {
      capabilities: { streaming: true, pushNotifications: true },
    });
    t.after(() => handler.close());
    const task = (
      await handler.sendMessage(
        {
          message: userMessage('ask'),
          configuration: { taskPushNotificationConfig: { url: 'https://a.example/hook' } },
        },
        alice,
      )
    ).task!;
    const fromSend = await handler.listTaskPushNotificationConfigs({ taskId: task.id }, alice);
    assert.equal(fromSend.configs?.length, 1);
    const created = await handler.createTaskPushNotificationConfig(
      { taskId: task.id, url: 'https://b.example' },
      alice,
    );
    assert.ok(created.id);
    assert.equal(created.taskId, task.id);
    const replaced = await handler.createTaskPushNotificationConfig(
      { taskId: task.id, id: created.id, url: 'https://c.example' },
      alice,
    );
    assert.equal(replaced.url, 'https://c.example');
    const got = await handler.getTaskPushNotificationConfig({ taskId: task.id, id: created.id! }, alice);
    assert.equal(got.url, 'https://c.example');
    const page1 = await handler.listTaskPushNotificationConfigs({ taskId: task.id, pageSize: 1 }, alice);
    assert.equal(page1.configs?.length, 1);
    assert.ok(page1.nextPageToken);
    const page2 = await handler.listTaskPushNotificationConfigs(
      { taskId: task.id, pageSize: 1, pageToken: page1.nextPageToken! },
      alice,
    );
    assert.equal(page2.configs?.length, 1);
    assert.equal(page2.nextPageToken, '');
    await rejectsWith(
      handler.getTaskPushNotificationConfig({ taskId: task.id, id: created.id! }, bob),
      TaskNotFoundError,
    );
    await rejectsWith(
      handler.createTaskPushNotificationConfig({ taskId: task.id, url: 'https://x' }, bob),
      TaskNotFoundError,
    );
    assert.deepEqual(
      await handler.deleteTaskPushNotificationConfig({ taskId: task.id, id: created.id! }, alice),
      {},
    );
    assert.deepEqual(
      await handler.deleteTaskPushNotificationConfig({ taskId: task.id, id: created.id! }, alice),
      {},
    );
    await rejectsWith(
      handler.getTaskPushNotificationConfig({ taskId: task.id, id: created.id! }, alice),
      TaskNotFoundError,
    );
    await rejectsWith(
      handler.deleteTaskPushNotificationConfig({ taskId: 'missing', id: 'x' }, alice),
      TaskNotFoundError,
    );
  });

  test('SRV-COMPAT-8: a config is stored with the version of the call that registered it, never shown', async (t) => {
    const { handler, pushStore } = createTestHandler(scriptedAgent, {
      capabilities: { streaming: true, pushNotifications: true },
    });
    t.after(() => handler.close());
    const v03 = createCallContext({ principal: { id: 'alice' }, protocolVersion: '0.3' });
    const task = (
      await handler.sendMessage(
        {
          message: userMessage('ask'),
          configuration: { taskPushNotificationConfig: { id: 'inline', url: 'https://a.example/hook' } },
        },
        v03,
      )
    ).task!;
    const created = await handler.createTaskPushNotificationConfig(
      // A client cannot choose the recorded version: only the wire fields are taken.
      { taskId: task.id, id: 'v10', url: 'https://b.example', protocolVersion: '0.3' } as never,
      alice,
    );
    assert.deepEqual(created, { id: 'v10', taskId: task.id, url: 'https://b.example' });
    const scope = { tenant: '', owner: 'alice' };
    assert.equal((await pushStore.get(scope, task.id, 'inline'))?.protocolVersion, '0.3');
    assert.equal((await pushStore.get(scope, task.id, 'v10'))?.protocolVersion, '1.0');
    assert.deepEqual(await handler.getTaskPushNotificationConfig({ taskId: task.id, id: 'inline' }, alice), {
      id: 'inline',
      taskId: task.id,
      url: 'https://a.example/hook',
    });
    const listed = await handler.listTaskPushNotificationConfigs({ taskId: task.id }, alice);
    assert.ok(listed.configs?.every((c) => !('protocolVersion' in c)));
  });

  test('SRV-XCARD-2/3: extended card gated by the capability and by configuration', async (t) => {
    const off = createTestHandler(scriptedAgent);
    const unconfigured = createTestHandler(scriptedAgent, { capabilities: { extendedAgentCard: true } });
    const extended = { ...testCard(), name: 'secret' };
    const on = createTestHandler(scriptedAgent, {
      capabilities: { extendedAgentCard: true },
      extendedCard: (ctx) => ({ ...extended, description: `for ${ctx.principal.id}` }),
    });
    t.after(() => Promise.all([off.handler.close(), unconfigured.handler.close(), on.handler.close()]));
    await rejectsWith(off.handler.getExtendedAgentCard({}, alice), UnsupportedOperationError);
    await rejectsWith(
      unconfigured.handler.getExtendedAgentCard({}, alice),
      ExtendedAgentCardNotConfiguredError,
    );
    const card = await on.handler.getExtendedAgentCard({}, alice);
    assert.equal(card.name, 'secret');
    assert.equal(card.description, 'for alice');
  });
});

describe('close()', () => {
  test('aborts running executors, ends open streams and releases blocked sends', async () => {
    const { handler, store } = createTestHandler(scriptedAgent);
    const blocked = handler.sendMessage({ message: userMessage('slow') }, alice);
    const stream = await handler.sendStreamingMessage({ message: userMessage('slow') }, alice);
    const reading = collect(stream);
    // Both agents are working (a stream starts before the agent's first event).
    assert.ok(await eventually(() => store.size === 2));
    await handler.close();
    await assert.rejects(blocked);
    const events = await reading;
    assert.equal(events[0]?.task?.status.state, TaskState.WORKING);
  });
});
