/**
 * Interrupted tasks (INPUT_REQUIRED, AUTH_REQUIRED) wait a bounded time (DESIGN.md): after
 * `interruptedTimeoutMs` without a client message they are failed, through the real handler.
 * Assertions are about outcomes; every wait polls with a deadline.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { UnsupportedOperationError } from '../../src/errors/a2a-error.js';
import { Role, TaskState } from '../../src/model/enums.js';
import type { Task } from '../../src/model/schema.js';
import type { RequestContext, TaskEventSink } from '../../src/core/executor.js';
import { createA2AServer } from '../../src/server/http.js';
import { InterruptedWaitExpiredReason } from '../../src/core/handler/abort-reasons.js';
import { DefaultRequestHandler } from '../../src/core/handler/default-handler.js';
import { MemoryTaskStore } from '../../src/core/stores/memory/task-store.js';
import {
  callAs,
  collect,
  createTestHandler,
  deferred,
  describeEvent,
  testCard,
  userMessage,
} from '../support/handler.js';

const alice = callAs('alice');
const TIMEOUT_MS = 50;

/** Polls `check` until it returns a value (not undefined), or fails after `deadlineMs`. */
async function eventually<T>(
  check: () => Promise<T | undefined>,
  what: string,
  deadlineMs = 5000,
): Promise<T> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) assert.fail(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

/**
 * The expiry timer is unref'd (it must not keep a server process alive), so a test that only
 * awaits a stream would let the event loop run dry: hold it open for the test's duration.
 */
function holdEventLoop(t: { after: (fn: () => void) => void }): void {
  const handle = setInterval(() => {}, 1000);
  t.after(() => clearInterval(handle));
}

/** Waits until the task is in `state` and returns it. */
function stateOf(handler: DefaultRequestHandler, id: string, state: TaskState): Promise<Task> {
  return eventually(async () => {
    const task = await handler.getTask({ id }, alice);
    return task.status.state === state ? task : undefined;
  }, `task ${id} to be ${state}`);
}

/** `ask` asks for input; an answer `go` completes once the test releases `gate` (if any). */
function askingAgent(gate?: Promise<void>) {
  return async (ctx: RequestContext, events: TaskEventSink): Promise<void> => {
    if (ctx.text === 'ask') return events.requireInput('which file?');
    if (ctx.text === 'ask again') return events.requireInput('and which line?');
    await events.working('on it');
    if (gate) await gate;
    await events.complete('done');
  };
}

async function ask(handler: DefaultRequestHandler, text = 'ask'): Promise<Task> {
  const response = await handler.sendMessage({ message: userMessage(text) }, alice);
  assert.ok(response.task);
  assert.equal(response.task.status.state, TaskState.INPUT_REQUIRED);
  return response.task;
}

function statusText(task: Task): string {
  const part = task.status.message?.parts[0];
  return part && 'text' in part ? (part.text ?? '') : '';
}

describe('interrupted tasks wait a bounded time', () => {
  test('an INPUT_REQUIRED task left unanswered becomes FAILED with an explaining agent message', async (t) => {
    const { handler } = createTestHandler(askingAgent(), { interruptedTimeoutMs: TIMEOUT_MS });
    t.after(() => handler.close());
    const asked = await ask(handler);

    const failed = await stateOf(handler, asked.id, TaskState.FAILED);
    assert.equal(failed.status.message?.role, Role.AGENT);
    assert.equal(failed.status.message?.taskId, asked.id);
    assert.match(statusText(failed), /waited for input \(TASK_STATE_INPUT_REQUIRED\) longer than/);
    assert.match(statusText(failed), /50 ms/);
    // The explanation is part of the history too, after the question.
    const history = failed.history ?? [];
    assert.equal(history.at(-1)?.messageId, failed.status.message?.messageId);
    assert.ok(Date.parse(failed.status.timestamp!) >= Date.parse(asked.status.timestamp!) + TIMEOUT_MS);
  });

  test('a subscriber gets the FAILED update and its stream ends', async (t) => {
    holdEventLoop(t);
    const { handler } = createTestHandler(askingAgent(), { interruptedTimeoutMs: TIMEOUT_MS });
    t.after(() => handler.close());
    const asked = await ask(handler);
    const events = await collect(await handler.subscribeToTask({ id: asked.id }, alice), 10);
    assert.deepEqual(events.map(describeEvent), ['task:INPUT_REQUIRED', 'status:FAILED']);
    assert.match(statusText({ ...asked, status: events[1]!.statusUpdate!.status }), /longer than/);
  });

  test('SRV-SEND-5: a message to the expired task is refused like for any terminal task', async (t) => {
    const { handler, store } = createTestHandler(askingAgent(), { interruptedTimeoutMs: TIMEOUT_MS });
    t.after(() => handler.close());
    const asked = await ask(handler);
    await stateOf(handler, asked.id, TaskState.FAILED);
    const before = await store.get({ tenant: '', owner: 'alice' }, asked.id);
    await assert.rejects(
      handler.sendMessage({ message: userMessage('go', { taskId: asked.id }) }, alice),
      UnsupportedOperationError,
    );
    const after = await store.get({ tenant: '', owner: 'alice' }, asked.id);
    assert.equal(after?.version, before?.version);
    assert.equal(after?.task.status.state, TaskState.FAILED);
  });

  test('AUTH_REQUIRED with execute() still running: the stream ends FAILED and the agent is aborted', async (t) => {
    holdEventLoop(t);
    const aborted = deferred<unknown>();
    const { handler } = createTestHandler(
      async (ctx, events) => {
        await events.requireAuth('sign in at https://example.com/auth');
        // Waits for an out-of-band credential that never comes.
        await new Promise<void>((resolve) => {
          ctx.signal.addEventListener('abort', () => resolve(), { once: true });
        });
        aborted.resolve(ctx.signal.reason);
      },
      { interruptedTimeoutMs: TIMEOUT_MS },
    );
    t.after(() => handler.close());
    const stream = await handler.sendStreamingMessage({ message: userMessage('hi') }, alice);
    const events = await collect(stream, 10);
    assert.deepEqual(events.map(describeEvent), ['task:AUTH_REQUIRED', 'status:FAILED']);
    assert.match(
      statusText({ ...events[0]!.task!, status: events[1]!.statusUpdate!.status }),
      /waited for authorization \(TASK_STATE_AUTH_REQUIRED\)/,
    );
    const reason = await aborted.promise;
    assert.ok(reason instanceof InterruptedWaitExpiredReason);
    assert.equal(reason.taskId, events[0]!.task!.id);
    // The agent's return after the abort does not change the failed task.
    const task = await stateOf(handler, events[0]!.task!.id, TaskState.FAILED);
    assert.match(statusText(task), /longer than/);
  });

  test('a resumed task does not expire mid-work; asking again re-arms the wait', async (t) => {
    const gate = deferred();
    const { handler } = createTestHandler(askingAgent(gate.promise), { interruptedTimeoutMs: TIMEOUT_MS });
    t.after(() => handler.close());
    const asked = await ask(handler);
    const resumed = await handler.sendMessage(
      { message: userMessage('go', { taskId: asked.id }), configuration: { returnImmediately: true } },
      alice,
    );
    assert.equal(resumed.task?.status.state, TaskState.WORKING);
    // Another task, interrupted after the resume, expires: the resumed one's old deadline
    // has passed by then too, and it must still be working.
    const control = await ask(handler);
    await stateOf(handler, control.id, TaskState.FAILED);
    assert.equal((await handler.getTask({ id: asked.id }, alice)).status.state, TaskState.WORKING);
    gate.resolve();
    await stateOf(handler, asked.id, TaskState.COMPLETED);

    // Re-entering INPUT_REQUIRED (a follow-up question) starts a new wait, which expires.
    const again = await ask(handler);
    const answered = await handler.sendMessage(
      { message: userMessage('ask again', { taskId: again.id }) },
      alice,
    );
    assert.equal(answered.task?.status.state, TaskState.INPUT_REQUIRED);
    const failed = await stateOf(handler, again.id, TaskState.FAILED);
    assert.match(statusText(failed), /longer than/);
  });

  test('0 and Infinity wait forever', async (t) => {
    const forever0 = createTestHandler(askingAgent(), { interruptedTimeoutMs: 0 }).handler;
    const foreverInf = createTestHandler(askingAgent(), { interruptedTimeoutMs: Infinity }).handler;
    const timed = createTestHandler(askingAgent(), { interruptedTimeoutMs: TIMEOUT_MS }).handler;
    t.after(() => Promise.all([forever0.close(), foreverInf.close(), timed.close()]));
    const a = await ask(forever0);
    const b = await ask(foreverInf);
    const control = await ask(timed);
    await stateOf(timed, control.id, TaskState.FAILED);
    assert.equal((await forever0.getTask({ id: a.id }, alice)).status.state, TaskState.INPUT_REQUIRED);
    assert.equal((await foreverInf.getTask({ id: b.id }, alice)).status.state, TaskState.INPUT_REQUIRED);
  });

  test('a bad interruptedTimeoutMs is refused at construction', () => {
    for (const bad of [-1, Number.NaN, '5' as unknown as number]) {
      assert.throws(
        () =>
          new DefaultRequestHandler({
            executor: { execute: async () => {} },
            card: () => testCard(),
            interruptedTimeoutMs: bad,
          }),
        RangeError,
      );
    }
  });

  test('close() clears the timer: nothing expires afterwards', async (t) => {
    const closed = createTestHandler(askingAgent(), { interruptedTimeoutMs: TIMEOUT_MS });
    const timed = createTestHandler(askingAgent(), { interruptedTimeoutMs: TIMEOUT_MS }).handler;
    t.after(() => timed.close());
    const asked = await ask(closed.handler);
    await closed.handler.close();
    const control = await ask(timed);
    await stateOf(timed, control.id, TaskState.FAILED);
    const record = await closed.store.get({ tenant: '', owner: 'alice' }, asked.id);
    assert.equal(record?.task.status.state, TaskState.INPUT_REQUIRED);
  });

  test('a handler started over a store with waiting tasks times them from their stored timestamp', async (t) => {
    const store = new MemoryTaskStore();
    // A first server (no limit) leaves two tasks waiting in the store, in two tenants.
    const first = createTestHandler(askingAgent(), { taskStore: store, interruptedTimeoutMs: 0 }).handler;
    const asked = await ask(first);
    const other = await first.sendMessage({ message: userMessage('ask') }, callAs('bob', 'acme'));
    await first.close();
    // The restarted one fails them, though they were never interrupted in this process.
    const second = createTestHandler(askingAgent(), { taskStore: store, interruptedTimeoutMs: TIMEOUT_MS });
    t.after(() => second.handler.close());
    const failed = await stateOf(second.handler, asked.id, TaskState.FAILED);
    assert.match(statusText(failed), /longer than/);
    const bobs = await eventually(async () => {
      const task = await second.handler.getTask({ id: other.task!.id }, callAs('bob', 'acme'));
      return task.status.state === TaskState.FAILED ? task : undefined;
    }, "bob's task to fail");
    assert.match(statusText(bobs), /longer than/);
  });

  test('many waiting tasks share one timer', async (t) => {
    const { handler } = createTestHandler(askingAgent(), { interruptedTimeoutMs: 60 * 60 * 1000 });
    t.after(() => handler.close());
    await ask(handler); // the first interrupted task sets the timer
    let timers = 0;
    const realSetTimeout = globalThis.setTimeout;
    t.mock.method(globalThis, 'setTimeout', (...args: Parameters<typeof setTimeout>) => {
      timers++;
      return realSetTimeout(...args);
    });
    for (let i = 0; i < 200; i++) await ask(handler);
    t.mock.restoreAll();
    assert.equal(timers, 0);
  });

  test('createA2AServer passes interruptedTimeoutMs through', async (t) => {
    const server = createA2AServer({
      agent: askingAgent(),
      card: {
        name: 'asker',
        description: 'asks',
        version: '1.0.0',
        skills: [{ id: 'ask', name: 'ask', description: 'asks', tags: ['test'] }],
      },
      interruptedTimeoutMs: TIMEOUT_MS,
    });
    t.after(() => server.close());
    const response = await server.handler.sendMessage({ message: userMessage('ask') }, alice);
    const id = response.task!.id;
    await eventually(async () => {
      const task = await server.handler.getTask({ id }, alice);
      return task.status.state === TaskState.FAILED ? task : undefined;
    }, 'the task to fail');
  });
});
