/**
 * End to end over HTTP+JSON: createA2AServer with the real DefaultRequestHandler on a real
 * socket, every route (with and without a tenant), every body checked by the ProtoJSON oracle,
 * and the bad inputs with their exact §11.6 envelopes.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createA2AServer, type A2AServer } from '../../src/server/index.js';
import { assertProtoJson, assertStreamResponse } from '../support/oracle.js';
import { TEST_CARD, testExecutor } from '../support/handler.js';

let server: A2AServer;
let root: string;

before(async () => {
  server = createA2AServer({
    agent: testExecutor,
    card: TEST_CARD,
    extendedCard: () => ({ ...TEST_CARD, description: 'Per-caller extended card' }),
    pushNotifications: true,
    bodyLimit: 64 * 1024,
  });
  const { url } = await server.listen(0, '127.0.0.1');
  root = `${url}/a2a/rest`;
});
after(() => server.close());

const V1 = { 'content-type': 'application/a2a+json', 'a2a-version': '1.0' };
let seq = 0;

async function rest(method: string, path: string, body?: unknown, headers: Record<string, string> = V1) {
  const res = await fetch(root + path, {
    method,
    headers,
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    json: text ? (JSON.parse(text) as Record<string, unknown>) : undefined,
  };
}

async function sse(method: string, path: string, body?: unknown): Promise<unknown[]> {
  const res = await fetch(root + path, {
    method,
    headers: V1,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/event-stream');
  return (await res.text())
    .split('\n\n')
    .filter((b) => b.startsWith('data: '))
    .map((b) => JSON.parse(b.slice(6)) as unknown);
}

/** Opens an SSE request and waits for its first event; resolves to all events once it ends. */
async function openSse(method: string, path: string, body?: string): Promise<{ all: Promise<unknown[]> }> {
  const res = await fetch(root + path, { method, headers: V1, ...(body === undefined ? {} : { body }) });
  assert.equal(res.status, 200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!text.includes('\n\n')) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  const parse = (all: string) =>
    all
      .split('\n\n')
      .filter((b) => b.startsWith('data: '))
      .map((b) => JSON.parse(b.slice(6)) as unknown);
  const all = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return parse(text);
      text += decoder.decode(value, { stream: true });
    }
  })();
  return { all };
}

const userMessage = (text: string) => ({
  message: { messageId: `r-${++seq}-${Date.now()}`, role: 'ROLE_USER', parts: [{ text }] },
});

function envelope(json: unknown, code: number, status: string, reason?: string) {
  const error = (
    json as { error: { code: number; status: string; message: string; details?: { reason?: string }[] } }
  ).error;
  assert.equal(error.code, code);
  assert.equal(error.status, status);
  if (reason) assert.equal(error.details?.[0]?.reason, reason);
  return error;
}

for (const prefix of ['', '/acme']) {
  describe(`REST end to end${prefix ? ' with tenant' : ''}: every route`, () => {
    let taskId: string;

    test('POST /message:send', async () => {
      const r = await rest('POST', `${prefix}/message:send`, userMessage('hello'));
      assert.equal(r.status, 200);
      assert.equal(r.type, 'application/a2a+json');
      assertProtoJson('SendMessageResponse', r.json);
      taskId = (r.json as { task: { id: string } }).task.id;
    });

    test('GET /tasks/{id} and GET /tasks', async () => {
      assertProtoJson('Task', (await rest('GET', `${prefix}/tasks/${taskId}?historyLength=0`)).json);
      const list = await rest('GET', `${prefix}/tasks?pageSize=5&includeArtifacts=true`);
      assertProtoJson('ListTasksResponse', list.json);
      const ids = (list.json as { tasks: { id: string }[] }).tasks.map((t) => t.id);
      assert.ok(ids.includes(taskId));
    });

    test('POST /message:stream', async () => {
      const events = await sse('POST', `${prefix}/message:stream`, userMessage('streamed'));
      assert.ok(events.length >= 2);
      for (const e of events) assertStreamResponse(e);
    });

    test('GET and POST /tasks/{id}:subscribe, POST /tasks/{id}:cancel', async () => {
      const sent = await rest('POST', `${prefix}/message:send`, {
        ...userMessage('input'),
      });
      const id = (sent.json as { task: { id: string; status: { state: string } } }).task.id;
      assert.equal(
        (sent.json as { task: { status: { state: string } } }).task.status.state,
        'TASK_STATE_INPUT_REQUIRED',
      );
      // Interrupted task: the stream carries the snapshot and stays open; cancel ends it.
      const subscriptions = [
        await openSse('GET', `${prefix}/tasks/${id}:subscribe`),
        await openSse('POST', `${prefix}/tasks/${id}:subscribe`, '{}'),
      ];
      const canceled = await rest('POST', `${prefix}/tasks/${id}:cancel`);
      assertProtoJson('Task', canceled.json);
      for (const subscription of subscriptions) {
        const events = await subscription.all;
        assert.ok('task' in (events[0] as object));
        for (const e of events) assertStreamResponse(e);
      }
    });

    test('push configs: create, get, list, delete', async () => {
      const created = await rest('POST', `${prefix}/tasks/${taskId}/pushNotificationConfigs`, {
        url: 'https://hooks.example.com/x',
      });
      assert.equal(created.status, 200);
      assertProtoJson('TaskPushNotificationConfig', created.json);
      const id = (created.json as { id: string }).id;
      assertProtoJson(
        'TaskPushNotificationConfig',
        (await rest('GET', `${prefix}/tasks/${taskId}/pushNotificationConfigs/${id}`)).json,
      );
      assertProtoJson(
        'ListTaskPushNotificationConfigsResponse',
        (await rest('GET', `${prefix}/tasks/${taskId}/pushNotificationConfigs?pageSize=10`)).json,
      );
      const deleted = await rest('DELETE', `${prefix}/tasks/${taskId}/pushNotificationConfigs/${id}`);
      assert.equal(deleted.status, 200);
      assert.deepEqual(deleted.json, {});
    });

    test('GET /extendedAgentCard', async () => {
      const card = await rest('GET', `${prefix}/extendedAgentCard`);
      assertProtoJson('AgentCard', card.json);
      assert.equal((card.json as { description: string }).description, 'Per-caller extended card');
    });
  });
}

describe('REST end to end: tenants are isolated', () => {
  test('a task made under one tenant is not found under another', async () => {
    const sent = await rest('POST', '/t1/message:send', userMessage('mine'));
    const id = (sent.json as { task: { id: string } }).task.id;
    assert.equal((await rest('GET', `/t1/tasks/${id}`)).status, 200);
    const other = await rest('GET', `/t2/tasks/${id}`);
    assert.equal(other.status, 404);
    envelope(other.json, 404, 'NOT_FOUND', 'TASK_NOT_FOUND');
  });
});

describe('REST end to end: bad inputs get their exact envelope', () => {
  test('malformed JSON: 400 INVALID_ARGUMENT', async () => {
    const r = await rest('POST', '/message:send', '{nope');
    assert.equal(r.status, 400);
    envelope(r.json, 400, 'INVALID_ARGUMENT');
  });

  test('unknown route: 404; wrong verb: 405', async () => {
    assert.equal((await rest('GET', '/messages:send')).status, 404);
    assert.equal((await rest('PUT', '/tasks/abc')).status, 405);
  });

  test('missing messageId: 400 naming message.messageId', async () => {
    const r = await rest('POST', '/message:send', { message: { role: 'ROLE_USER', parts: [{ text: 'x' }] } });
    assert.equal(r.status, 400);
    assert.match(envelope(r.json, 400, 'INVALID_ARGUMENT').message, /message\.messageId/);
  });

  test('unknown task: 404 TASK_NOT_FOUND', async () => {
    const r = await rest('GET', '/tasks/no-such-task');
    envelope(r.json, 404, 'NOT_FOUND', 'TASK_NOT_FOUND');
  });

  test('oversized body: 413 with the envelope', async () => {
    const r = await rest('POST', '/message:send', userMessage('y'.repeat(70 * 1024)));
    assert.equal(r.status, 413);
    envelope(r.json, 413, 'INVALID_ARGUMENT');
  });

  test('bad page token: 400 INVALID_ARGUMENT', async () => {
    const r = await rest('GET', '/tasks?pageToken=forged');
    assert.equal(r.status, 400);
    envelope(r.json, 400, 'INVALID_ARGUMENT');
  });

  test('negative historyLength: 400 INVALID_ARGUMENT', async () => {
    const r = await rest('GET', '/tasks/x?historyLength=-2');
    assert.equal(r.status, 400);
    envelope(r.json, 400, 'INVALID_ARGUMENT');
  });

  test('missing A2A-Version: served as 1.0', async () => {
    const r = await rest('GET', '/tasks', undefined, {});
    assert.equal(r.status, 200);
    assertProtoJson('ListTasksResponse', r.json);
  });

  test('unsupported A2A-Version: 400 FAILED_PRECONDITION VERSION_NOT_SUPPORTED', async () => {
    // (0.3 is the v0.3 compatibility binding: test/bindings/compat-v03)
    const r = await rest('GET', '/tasks', undefined, { 'a2a-version': '2.0' });
    assert.equal(r.status, 400);
    envelope(r.json, 400, 'FAILED_PRECONDITION', 'VERSION_NOT_SUPPORTED');
  });

  test('terminal task: cancel is 400 TASK_NOT_CANCELABLE', async () => {
    const sent = await rest('POST', '/message:send', userMessage('finish'));
    const id = (sent.json as { task: { id: string } }).task.id;
    const r = await rest('POST', `/tasks/${id}:cancel`, {});
    envelope(r.json, 400, 'FAILED_PRECONDITION', 'TASK_NOT_CANCELABLE');
  });
});
