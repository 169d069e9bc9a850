import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { interceptHandler, type OperationCall } from '../../../src/core/handler/interceptor.js';
import { UnauthenticatedError } from '../../../src/errors/a2a-error.js';
import { callAs, createTestHandler, userMessage } from '../../support/handler.js';

function handler() {
  return createTestHandler(async (ctx, task) => task.complete(`you said ${ctx.text}`)).handler;
}

describe('server interceptors', () => {
  test('run outermost first around every operation, and see method, request and context', async () => {
    const seen: string[] = [];
    const base = handler();
    const wrapped = interceptHandler(base, [
      (next) => async (call: OperationCall) => {
        seen.push(`outer ${call.method} ${call.streaming}`);
        return next(call);
      },
      (next) => async (call) => {
        seen.push(`inner ${call.method}`);
        return next(call);
      },
    ]);
    const ctx = callAs();
    const reply = await wrapped.sendMessage({ message: userMessage('hi') }, ctx);
    assert.ok(reply.task);
    await wrapped.getTask({ id: reply.task.id }, ctx);
    assert.deepEqual(seen, [
      'outer SendMessage false',
      'inner SendMessage',
      'outer GetTask false',
      'inner GetTask',
    ]);
    assert.equal(wrapped.agentCard(), base.agentCard());
    await base.close();
  });

  test('an interceptor that throws refuses the call before the handler runs', async () => {
    const base = handler();
    const wrapped = interceptHandler(base, [
      () => async () => {
        throw new UnauthenticatedError('no');
      },
    ]);
    await assert.rejects(wrapped.listTasks({}, callAs()), (e: unknown) => e instanceof UnauthenticatedError);
    const page = await base.listTasks({}, callAs());
    assert.equal(page.tasks.length, 0);
    await base.close();
  });

  test('no interceptors: the handler itself', () => {
    const base = handler();
    assert.equal(interceptHandler(base, []), base);
    void base.close();
  });
});
