/**
 * SendMessage fingerprints: a plain text message is the digest of a flat plain form, any other
 * message the digest of its canonical form; the same message gets the same fingerprint whatever
 * its defaults; and a record written with the canonical digest alone (before plain forms) still
 * matches its true repeat, on a real server.
 */
import assert from 'node:assert/strict';
import { hash } from 'node:crypto';
import { test } from 'node:test';
import { requestFingerprint, sameRequest } from '../../src/core/idempotency.js';
import { MemoryTaskStore } from '../../src/core/stores/memory/task-store.js';
import type { SendMessageRequest } from '../../src/model/schema.js';
import { createA2AServer } from '../../src/server/index.js';
import { TEST_CARD } from '../support/handler.js';

function send(
  text: string | string[],
  extra: Partial<SendMessageRequest['message']> = {},
): SendMessageRequest {
  const texts = Array.isArray(text) ? text : [text];
  return {
    message: { messageId: 'm', role: 'ROLE_USER', parts: texts.map((t) => ({ text: t })), ...extra },
  };
}

/** SHA-256 in base64url: the canonical form's digest is every fingerprint before plain forms. */
function canonicalDigest(canonical: string): string {
  return hash('sha256', canonical, 'base64url');
}

test('a plain text message is fingerprinted by the digest of its plain form', () => {
  assert.equal(requestFingerprint(send('hi')), canonicalDigest('["ROLE_USER","","","hi"]'));
  const long = requestFingerprint(send('x'.repeat(200)));
  assert.match(long, /^[A-Za-z0-9_-]{43}$/);
  assert.notEqual(long, requestFingerprint(send('x'.repeat(201))));
});

test('the same message has the same fingerprint whatever its defaults; any difference changes it', () => {
  const base = requestFingerprint(send('hello'));
  assert.equal(requestFingerprint(send('hello', { taskId: '', contextId: '', referenceTaskIds: [] })), base);
  assert.equal(requestFingerprint({ ...send('hello'), metadata: undefined }), base);
  const others = [
    send('hello!'),
    send(['hel', 'lo']),
    send('hello', { taskId: 't-1' }),
    send('hello', { contextId: 'c-1' }),
    send('hello', { role: 'ROLE_AGENT' }),
    send('hello', { metadata: { a: 1 } }),
    send('hello', { extensions: ['https://example.com/ext'] }),
    { ...send('hello'), metadata: { b: 2 } },
    {
      message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hello', mediaType: 'text/markdown' }] },
    },
  ] as SendMessageRequest[];
  const prints = new Set(others.map(requestFingerprint));
  assert.equal(prints.size, others.length);
  assert.ok(!prints.has(base));
});

test('a message with more than text is fingerprinted by its canonical digest, as before', () => {
  const request = send('hello', { metadata: { b: [1, 2], a: 'x' } });
  const expected = canonicalDigest(
    '[{"metadata":{"a":"x","b":[1,2]},"parts":[{"text":"hello"}],"role":"ROLE_USER"},null]',
  );
  assert.equal(requestFingerprint(request), expected);
});

test('sameRequest: a canonical digest written before plain forms matches the same message only', () => {
  const request = send('hello', { taskId: 't-1' });
  const legacy = canonicalDigest('[{"parts":[{"text":"hello"}],"role":"ROLE_USER","taskId":"t-1"},null]');
  const now = requestFingerprint(request);
  assert.notEqual(now, legacy);
  assert.equal(sameRequest(legacy, now, request), true);
  assert.equal(sameRequest(now, now, request), true);
  const other = send('hello again', { taskId: 't-1' });
  assert.equal(sameRequest(legacy, requestFingerprint(other), other), false);
});

test('over JSON-RPC: a repeat of a message recorded with the canonical digest gets the recorded reply', async (t) => {
  const store = new MemoryTaskStore();
  let runs = 0;
  const server = createA2AServer({
    agent: async (_ctx, task) => {
      runs++;
      await task.reply('fresh reply');
    },
    card: TEST_CARD,
    store,
  });
  const { url } = await server.listen(0, '127.0.0.1');
  t.after(() => server.close());
  const legacy = canonicalDigest('[{"parts":[{"text":"hello"}],"role":"ROLE_USER"},null]');
  await store.claimIdempotencyKey(
    { tenant: '', principal: 'anonymous', messageId: 'm-old' },
    {
      status: 'message',
      message: { messageId: 'r-old', role: 'ROLE_AGENT', parts: [{ text: 'recorded reply' }] },
      fingerprint: legacy,
      createdAtMs: Date.now(),
    },
  );
  const call = async (text: string) => {
    const res = await fetch(`${url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: { messageId: 'm-old', role: 'ROLE_USER', parts: [{ text }] } },
      }),
    });
    return (await res.json()) as {
      result?: { message?: { parts: { text: string }[] } };
      error?: { code: number; message: string };
    };
  };
  const repeat = await call('hello');
  assert.equal(repeat.result?.message?.parts[0]?.text, 'recorded reply');
  const reused = await call('something else');
  assert.equal(reused.error?.code, -32602);
  assert.match(reused.error?.message ?? '', /already used for another message/);
  assert.equal(runs, 0);
});
