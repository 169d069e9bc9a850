/**
 * `instanceof` across two copies of the error classes in one process (two installed versions
 * of a2a-kit): the second copy is the same module loaded under another URL.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as ours from '../../src/errors/a2a-error.js';

type ErrorsModule = typeof ours;

const otherCopy = async (): Promise<ErrorsModule> => {
  const url = new URL('../../src/errors/a2a-error.ts?second-copy', import.meta.url).href;
  return (await import(url)) as ErrorsModule;
};

describe('A2AError across copies', () => {
  test('the second copy really is another class', async () => {
    const theirs = await otherCopy();
    assert.notEqual(theirs.A2AError, ours.A2AError);
    assert.notEqual(theirs.TaskNotFoundError, ours.TaskNotFoundError);
  });

  test('an error from the other copy is an A2AError and an instance of its own code’s class', async () => {
    const theirs = await otherCopy();
    const error: unknown = new theirs.TaskNotFoundError('no such task');
    assert.ok(error instanceof ours.A2AError);
    assert.ok(error instanceof ours.TaskNotFoundError);
    assert.ok(!(error instanceof ours.InvalidParamsError));
    assert.ok(error instanceof Error);
    // And the other way round.
    assert.ok(new ours.InvalidParamsError() instanceof theirs.A2AError);
    assert.ok(new ours.InvalidParamsError() instanceof theirs.InvalidParamsError);
    assert.ok(!(new ours.InvalidParamsError() instanceof theirs.TaskNotFoundError));
  });

  test('toA2AError keeps the other copy’s error instead of wrapping it as InternalError', async () => {
    const theirs = await otherCopy();
    const error = new theirs.UnavailableError('later');
    assert.equal(ours.toA2AError(error), error);
  });

  test('look-alikes and subclasses of your own keep the plain checks', () => {
    const lookAlike = Object.assign(new Error('x'), { code: 'TaskNotFound' });
    assert.ok(!(lookAlike instanceof ours.A2AError));
    const nothing: unknown = null;
    assert.ok(!(nothing instanceof ours.A2AError));
    class MyError extends ours.A2AError {}
    assert.ok(new MyError('InternalError') instanceof MyError);
    assert.ok(!(new ours.TaskNotFoundError() instanceof MyError));
    // The brand is not an enumerable field: spreads and JSON do not carry it.
    assert.equal(Object.getOwnPropertySymbols({ ...new ours.TaskNotFoundError() }).length, 0);
  });
});
