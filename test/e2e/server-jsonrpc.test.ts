/**
 * End to end over JSON-RPC: createA2AServer with the real DefaultRequestHandler on a real
 * socket, every operation, every body checked by the ProtoJSON oracle, and the bad inputs.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createA2AServer, type A2AServer } from '../../src/server/index.js';
import { assertProtoJson, assertStreamResponse } from '../support/oracle.js';
import { TEST_CARD, testExecutor } from '../support/handler.js';

let server: A2AServer;
let endpoint: string;

before(async () => {
  server = createA2AServer({
    agent: testExecutor,
    card: TEST_CARD,
    extendedCard: { ...TEST_CARD, description: 'The extended card' },
    store: 'memory',
    pushNotifications: true,
    bodyLimit: 64 * 1024,
  });
  const { url } = await server.listen(0, '127.0.0.1');
  endpoint = `${url}/a2a/jsonrpc`;
});
after(() => server.close());

const V1 = { 'content-type': 'application/json', 'a2a-version': '1.0' };
let seq = 0;

interface RpcReply {
  status: number;
  id: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: Record<string, unknown>[] };
}

async function call(
  method: string,
  params?: unknown,
  headers: Record<string, string> = V1,
): Promise<RpcReply> {
  const id = ++seq;
  const res = await fetch(endpoint, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }),
  });
  const json = (await res.json()) as Omit<RpcReply, 'status'>;
  if (json.error === undefined) assert.equal(json.id, id);
  return { status: res.status, ...json };
}

async function stream(
  method: string,
  params: unknown,
): Promise<{ id: unknown; result?: unknown; error?: unknown }[]> {
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: V1,
    body: JSON.stringify({ jsonrpc: '2.0', id: 'stream', method, params }),
  });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/event-stream');
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((b) => b.startsWith('data: '))
    .map((b) => JSON.parse(b.slice(6)) as { id: unknown; result?: unknown; error?: unknown });
}

const userMessage = (text: string, extra: Record<string, unknown> = {}) => ({
  message: { messageId: `m-${++seq}-${Date.now()}`, role: 'ROLE_USER', parts: [{ text }], ...extra },
});

function reasonOf(reply: RpcReply): unknown {
  return reply.error?.data?.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo')?.reason;
}

describe('JSON-RPC end to end: every operation', () => {
  let taskId: string;

  test('SendMessage (blocking) completes the task', async () => {
    const reply = await call('SendMessage', userMessage('hello'));
    assert.equal(reply.status, 200);
    assertProtoJson('SendMessageResponse', reply.result);
    const task = (reply.result as { task: { id: string; status: { state: string } } }).task;
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    taskId = task.id;
  });

  test('SendMessage answered with a Message', async () => {
    const reply = await call('SendMessage', userMessage('reply'));
    assertProtoJson('SendMessageResponse', reply.result);
    assert.ok((reply.result as { message?: unknown }).message);
  });

  test('GetTask with historyLength', async () => {
    const reply = await call('GetTask', { id: taskId, historyLength: 1 });
    assertProtoJson('Task', reply.result);
    assert.equal((reply.result as { id: string }).id, taskId);
  });

  test('ListTasks', async () => {
    const reply = await call('ListTasks', { pageSize: 10 });
    assertProtoJson('ListTasksResponse', reply.result);
    assert.ok((reply.result as { tasks: unknown[] }).tasks.length >= 1);
  });

  test('SendStreamingMessage streams Task, updates, and closes at completion', async () => {
    const events = await stream('SendStreamingMessage', userMessage('streamed'));
    assert.ok(events.length >= 2);
    for (const e of events) {
      assert.equal(e.id, 'stream');
      assertStreamResponse(e.result);
    }
    assert.ok('task' in (events[0]?.result as object));
    const last = events.at(-1)?.result as { statusUpdate?: { status: { state: string } } };
    assert.equal(last.statusUpdate?.status.state, 'TASK_STATE_COMPLETED');
  });

  test('SubscribeToTask then CancelTask: the stream ends CANCELED', async () => {
    const sent = await call('SendMessage', {
      ...userMessage('hold'),
      configuration: { returnImmediately: true },
    });
    const id = (sent.result as { task: { id: string } }).task.id;
    const subscription = stream('SubscribeToTask', { id });
    // Cancel once the subscription is open: poll GetTask until WORKING, bounded.
    for (let i = 0; i < 100; i++) {
      const t = await call('GetTask', { id });
      if ((t.result as { status: { state: string } }).status.state === 'TASK_STATE_WORKING') break;
      await new Promise((r) => setTimeout(r, 10));
    }
    const canceled = await call('CancelTask', { id });
    assertProtoJson('Task', canceled.result);
    assert.equal((canceled.result as { status: { state: string } }).status.state, 'TASK_STATE_CANCELED');
    const events = await subscription;
    for (const e of events) assertStreamResponse(e.result);
    assert.ok('task' in (events[0]?.result as object));
  });

  test('push config: create, get, list, delete', async () => {
    const created = await call('CreateTaskPushNotificationConfig', {
      taskId,
      url: 'https://hooks.example.com/a2a',
    });
    assertProtoJson('TaskPushNotificationConfig', created.result);
    const configId = (created.result as { id: string }).id;
    const got = await call('GetTaskPushNotificationConfig', { taskId, id: configId });
    assertProtoJson('TaskPushNotificationConfig', got.result);
    const listed = await call('ListTaskPushNotificationConfigs', { taskId });
    assertProtoJson('ListTaskPushNotificationConfigsResponse', listed.result);
    const deleted = await call('DeleteTaskPushNotificationConfig', { taskId, id: configId });
    assert.deepEqual(deleted.result, {});
    assertProtoJson('Empty', deleted.result);
  });

  test('GetExtendedAgentCard (params omitted)', async () => {
    const reply = await call('GetExtendedAgentCard');
    assertProtoJson('AgentCard', reply.result);
    assert.equal((reply.result as { description: string }).description, 'The extended card');
  });
});

describe('JSON-RPC end to end: bad inputs get their exact error', () => {
  test('malformed JSON: -32700, id null', async () => {
    const res = await fetch(endpoint, { method: 'POST', headers: V1, body: '{oops' });
    const json = (await res.json()) as RpcReply;
    assert.equal(res.status, 200);
    assert.equal(json.id, null);
    assert.equal(json.error?.code, -32700);
  });

  test('wrong method: -32601', async () => {
    assert.equal((await call('message/send', userMessage('x'))).error?.code, -32601);
    assert.equal((await call('GetAgentCard')).error?.code, -32601);
  });

  test('missing messageId: -32602 naming message.messageId', async () => {
    const reply = await call('SendMessage', { message: { role: 'ROLE_USER', parts: [{ text: 'x' }] } });
    assert.equal(reply.error?.code, -32602);
    assert.match(reply.error?.message ?? '', /message\.messageId/);
  });

  test('unknown task: -32001 TASK_NOT_FOUND', async () => {
    const reply = await call('GetTask', { id: 'no-such-task' });
    assert.equal(reply.error?.code, -32001);
    assert.equal(reasonOf(reply), 'TASK_NOT_FOUND');
  });

  test('oversized body: HTTP 413 with -32600', async () => {
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: userMessage('x'.repeat(70 * 1024)),
    });
    const res = await fetch(endpoint, { method: 'POST', headers: V1, body: big });
    assert.equal(res.status, 413);
    const json = (await res.json()) as RpcReply;
    assert.equal(json.error?.code, -32600);
  });

  test('bad page token: -32602', async () => {
    assert.equal((await call('ListTasks', { pageToken: 'not-a-real-token' })).error?.code, -32602);
  });

  test('negative historyLength: -32602', async () => {
    assert.equal((await call('GetTask', { id: 'x', historyLength: -1 })).error?.code, -32602);
  });

  test('missing A2A-Version with a v1.0 request is served as 1.0', async () => {
    const reply = await call('ListTasks', {}, { 'content-type': 'application/json' });
    assertProtoJson('ListTasksResponse', reply.result);
  });

  test('unsupported A2A-Version: -32009 VERSION_NOT_SUPPORTED', async () => {
    // (0.3 is the v0.3 compatibility binding: test/bindings/compat-v03)
    const reply = await call('ListTasks', {}, { 'content-type': 'application/json', 'a2a-version': '2.0' });
    assert.equal(reply.error?.code, -32009);
    assert.equal(reasonOf(reply), 'VERSION_NOT_SUPPORTED');
  });

  test('SRV-SUB-2: subscribing to a terminal task is -32004 before any stream', async () => {
    const sent = await call('SendMessage', userMessage('done'));
    const id = (sent.result as { task: { id: string } }).task.id;
    const reply = await call('SubscribeToTask', { id });
    assert.equal(reply.error?.code, -32004);
  });
});
