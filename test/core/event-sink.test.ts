import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { InvalidAgentResponseError } from '../../src/errors/a2a-error.js';
import { TaskState } from '../../src/model/enums.js';
import type { TaskEventSink } from '../../src/core/executor.js';
import { callAs, collect, createTestHandler, describeEvent, userMessage } from '../support/handler.js';

/** Lets every pending callback run (the agent finishing after the response was sent). */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function expectInvalid(promise: Promise<unknown>, pattern: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(
      error instanceof InvalidAgentResponseError,
      `expected InvalidAgentResponseError, got ${String(error)}`,
    );
    assert.match(error.message, pattern);
    return true;
  });
}

describe('TaskEventSink', () => {
  test('an agent that throws fails its task with the error message, never a stack', async (t) => {
    const { handler } = createTestHandler(async (_ctx, events) => {
      await events.working('starting');
      throw new Error('disk is full\n    at secret (/srv/agent.js:1:1)');
    });
    t.after(() => handler.close());
    const response = await handler.sendMessage({ message: userMessage('go') }, callAs());
    assert.equal(response.task?.status.state, TaskState.FAILED);
    const text = response.task?.status.message?.parts[0]?.text;
    assert.equal(text, 'disk is full');
  });

  test('an agent that throws before any event gets a FAILED task', async (t) => {
    const { handler } = createTestHandler(async () => {
      throw new TypeError('bad input');
    });
    t.after(() => handler.close());
    const response = await handler.sendMessage({ message: userMessage('go') }, callAs());
    assert.equal(response.task?.status.state, TaskState.FAILED);
    assert.equal(response.task?.status.message?.parts[0]?.text, 'bad input');
  });

  test('events after a terminal state are refused and change nothing', async (t) => {
    let late: Promise<void> | undefined;
    const { handler, store } = createTestHandler(async (_ctx, events) => {
      await events.complete('result');
      late = events.working('again');
      await late.catch(() => {});
    });
    t.after(() => handler.close());
    const response = await handler.sendMessage({ message: userMessage('go') }, callAs());
    await settle();
    await expectInvalid(late!, /terminal/);
    const stored = await store.get({ tenant: '', owner: 'alice' }, response.task!.id);
    assert.equal(stored?.task.status.state, TaskState.COMPLETED);
    assert.equal(stored?.version, 1);
  });

  test('reply after the task started, duplicate artifactId, unknown state, append to unknown artifact', async (t) => {
    const failures: Promise<void>[] = [];
    const { handler, store } = createTestHandler(async (_ctx, events) => {
      await events.working();
      failures.push(events.reply('hello'));
      await events.artifact({ artifactId: 'a', text: 'one' });
      failures.push(events.artifact({ artifactId: 'a', text: 'two' }));
      failures.push(events.status('TASK_STATE_BOGUS' as TaskState));
      failures.push(events.status(TaskState.UNSPECIFIED));
      failures.push(events.status(TaskState.SUBMITTED));
      failures.push(events.artifact({ artifactId: 'b', text: 'x' }, { append: true }));
      failures.push(events.artifact({ artifactId: 'c', parts: [] }));
      failures.push(events.artifact({ artifactId: 'd', parts: [{ text: 'x', data: 1 } as never] }));
      await Promise.allSettled(failures);
      await events.complete();
    });
    t.after(() => handler.close());
    const response = await handler.sendMessage({ message: userMessage('go') }, callAs());
    const results = await Promise.allSettled(failures);
    assert.equal(results.length, 8);
    for (const r of results) {
      assert.equal(r.status, 'rejected');
      assert.ok(r.reason instanceof InvalidAgentResponseError, String(r.reason));
    }
    assert.equal(response.task?.status.state, TaskState.COMPLETED);
    const stored = await store.get({ tenant: '', owner: 'alice' }, response.task!.id);
    assert.deepEqual(
      stored?.task.artifacts?.map((a) => a.artifactId),
      ['a'],
    );
  });

  test('a direct reply answers with a Message and nothing else is accepted', async (t) => {
    let after: Promise<void> | undefined;
    const { handler, store } = createTestHandler(async (_ctx, events) => {
      await events.reply('pong');
      after = events.working();
      await after.catch(() => {});
    });
    t.after(() => handler.close());
    const response = await handler.sendMessage({ message: userMessage('ping') }, callAs());
    assert.equal(response.message?.parts[0]?.text, 'pong');
    assert.equal(response.message?.role, 'ROLE_AGENT');
    assert.ok(response.message?.contextId);
    assert.equal(response.message?.taskId, undefined);
    await settle();
    await expectInvalid(after!, /replied/);
    assert.equal(store.size, 0);
  });

  test('artifact chunks append; after lastChunk the artifact is closed', async (t) => {
    let closed: Promise<void> | undefined;
    const { handler } = createTestHandler(async (_ctx, events) => {
      await events.artifact({ artifactId: 'log', text: 'a' });
      await events.artifact({ artifactId: 'log', text: 'b' }, { append: true });
      await events.artifact({ artifactId: 'log', text: 'c' }, { append: true, lastChunk: true });
      closed = events.artifact({ artifactId: 'log', text: 'd' }, { append: true });
      await closed.catch(() => {});
      await events.complete();
    });
    t.after(() => handler.close());
    const stream = await handler.sendStreamingMessage({ message: userMessage('go') }, callAs());
    const events = await collect(stream);
    assert.deepEqual(events.map(describeEvent), [
      'task:WORKING',
      'artifact:log',
      'artifact:log',
      'status:COMPLETED',
    ]);
    assert.equal(events[1]?.artifactUpdate?.append, true);
    assert.equal(events[2]?.artifactUpdate?.lastChunk, true);
    await expectInvalid(closed!, /last chunk/);
    const task = await handler.getTask({ id: events[0]!.task!.id }, callAs());
    assert.deepEqual(
      task.artifacts?.[0]?.parts.map((p) => p.text),
      ['a', 'b', 'c'],
    );
  });

  test('events after execute() returned are refused', async (t) => {
    let sink: TaskEventSink | undefined;
    const { handler } = createTestHandler(async (_ctx, events) => {
      sink = events;
      await events.requireInput('which one?');
    });
    t.after(() => handler.close());
    const response = await handler.sendMessage({ message: userMessage('go') }, callAs());
    assert.equal(response.task?.status.state, TaskState.INPUT_REQUIRED);
    await settle();
    await expectInvalid(sink!.working(), /returned/);
  });

  test('returning while WORKING completes the task; returning without events completes an empty task', async (t) => {
    const { handler } = createTestHandler(async (ctx, events) => {
      if (ctx.text === 'work') await events.working('busy');
    });
    t.after(() => handler.close());
    const a = await handler.sendMessage({ message: userMessage('work') }, callAs());
    assert.equal(a.task?.status.state, TaskState.COMPLETED);
    const b = await handler.sendMessage({ message: userMessage('nothing') }, callAs());
    assert.equal(b.task?.status.state, TaskState.COMPLETED);
    assert.equal(b.task?.artifacts, undefined);
  });

  test('status timestamps are set on every change and never go back', async (t) => {
    const { handler } = createTestHandler(async (_ctx, events) => {
      for (let i = 0; i < 20; i++) await events.working(`step ${i}`);
      await events.complete();
    });
    t.after(() => handler.close());
    const stream = await handler.sendStreamingMessage({ message: userMessage('go') }, callAs());
    const events = await collect(stream);
    const stamps = events.map((e) => e.task?.status.timestamp ?? e.statusUpdate?.status.timestamp);
    let previous = '';
    for (const stamp of stamps) {
      assert.match(stamp ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.ok(stamp! >= previous);
      previous = stamp!;
    }
  });
});
