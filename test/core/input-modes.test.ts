import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ContentTypeNotSupportedError } from '../../src/errors/a2a-error.js';
import { checkInputModes } from '../../src/core/input-modes.js';
import { callAs, createTestHandler, testCard, userMessage } from '../support/handler.js';

test('SRV-SEND-7 a part whose media type the agent does not accept is refused before anything runs', async (t) => {
  let runs = 0;
  const { handler } = createTestHandler(async (_ctx, events) => {
    runs++;
    await events.complete('done');
  });
  t.after(() => handler.close());
  const message = userMessage('look', {
    parts: [{ text: 'look' }, { url: 'https://example.com/cat.png', mediaType: 'image/png' }],
  });
  await assert.rejects(handler.sendMessage({ message }, callAs()), (error: unknown) => {
    assert.ok(error instanceof ContentTypeNotSupportedError);
    assert.match(error.message, /message\.parts\[1\]: media type image\/png is not accepted/);
    assert.equal(error.metadata.mediaType, 'image/png');
    return true;
  });
  assert.equal(runs, 0);
  assert.equal((await handler.listTasks({}, callAs())).totalSize, 0);

  // A declared text part with parameters is accepted, and so is a part that declares nothing.
  const ok = await handler.sendMessage(
    {
      message: userMessage('x', {
        parts: [{ text: 'x', mediaType: 'Text/Plain; charset=utf-8' }, { data: 1 }],
      }),
    },
    callAs(),
  );
  assert.equal(ok.task?.status.state, 'TASK_STATE_COMPLETED');
});

test('input modes: skills widen the set; wildcards and families match', () => {
  const card = testCard();
  card.skills[0]!.inputModes = ['image/*'];
  checkInputModes(card, userMessage('x', { parts: [{ raw: 'AA==', mediaType: 'image/jpeg' }] }));
  assert.throws(
    () => checkInputModes(card, userMessage('x', { parts: [{ raw: 'AA==', mediaType: 'audio/ogg' }] })),
    ContentTypeNotSupportedError,
  );
  const open = { ...testCard(), defaultInputModes: ['*/*'] };
  checkInputModes(open, userMessage('x', { parts: [{ raw: 'AA==', mediaType: 'audio/ogg' }] }));
});
