/**
 * The v0.3 REST binding on raw HTTP: routing (`/v1/...` without a version, `A2A-Version: 0.3`;
 * with `1.0` the same path is tenant `v1`), v0.3 ProtoJSON on the wire (`content`,
 * `TASK_STATE_CANCELLED`, resource names), the proto create-request shape, `GET /v1/tasks`, and
 * bad inputs answered with the bare v0.3 `{code, message}` body.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { benchCard, benchExecutor } from '../../../src/agents/index.js';
import { V03SseSource } from '../../../src/bindings/compat-v03/service.js';
import { InternalError } from '../../../src/errors/a2a-error.js';
import { createA2AServer, type A2AServer, type A2AServerOptions } from '../../../src/server/http.js';

async function start(options: Partial<A2AServerOptions> = {}): Promise<{ server: A2AServer; root: string }> {
  const server = createA2AServer({
    agent: benchExecutor,
    card: benchCard,
    pushNotifications: true,
    ...options,
  });
  const { url } = await server.listen(0, '127.0.0.1');
  return { server, root: `${url}/a2a/rest` };
}

interface Reply {
  status: number;
  headers: Headers;
  json: Record<string, unknown>;
}

async function call(
  root: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const res = await fetch(root + path, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    json: text ? (JSON.parse(text) as Record<string, unknown>) : {},
  };
}

function protoSend(text: string, configuration?: Record<string, unknown>): Record<string, unknown> {
  return {
    message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', content: [{ text }] },
    ...(configuration ? { configuration } : {}),
  };
}

function assertV03Error(reply: Reply, status: number, code: number): void {
  assert.equal(reply.status, status, JSON.stringify(reply.json));
  assert.equal(reply.json.code, code, JSON.stringify(reply.json));
  assert.equal(typeof reply.json.message, 'string');
  assert.equal(reply.json.error, undefined, 'not the v1.0 envelope');
}

describe('v0.3 REST: wire shapes and routing', () => {
  let server: A2AServer;
  let root: string;

  before(async () => {
    ({ server, root } = await start());
  });
  after(() => server.close());

  test('message:send answers v0.3 ProtoJSON with application/json', async () => {
    const reply = await call(root, 'POST', '/v1/message:send', protoSend('task:proto', { blocking: true }));
    assert.equal(reply.status, 200);
    assert.equal(reply.headers.get('content-type'), 'application/json');
    const task = reply.json.task as {
      status: { state: string };
      artifacts: { parts: unknown[] }[];
      history: { content: unknown[] }[];
    };
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    assert.deepEqual(task.artifacts[0]?.parts, [{ text: 'proto' }]);
    assert.deepEqual(task.history[0]?.content, [{ text: 'task:proto' }]);
    const echo = await call(root, 'POST', '/v1/message:send', protoSend('echo:m'));
    assert.deepEqual((echo.json.message as { content: unknown[]; role: string }).content, [{ text: 'm' }]);
  });

  test('blocking: no configuration blocks; a configuration without blocking (proto3 false) does not', async () => {
    const blocked = await call(root, 'POST', '/v1/message:send', protoSend('task:b'));
    assert.equal((blocked.json.task as { status: { state: string } }).status.state, 'TASK_STATE_COMPLETED');
    const early = await call(
      root,
      'POST',
      '/v1/message:send',
      protoSend('slow:60000', { acceptedOutputModes: ['text/plain'] }),
    );
    const task = early.json.task as { id: string; status: { state: string } };
    assert.notEqual(task.status.state, 'TASK_STATE_COMPLETED');
    const canceled = await call(root, 'POST', `/v1/tasks/${task.id}:cancel`);
    assert.equal((canceled.json.status as { state: string }).state, 'TASK_STATE_CANCELLED');
    const got = await call(root, 'GET', `/v1/tasks/${task.id}?history_length=0`);
    assert.equal((got.json.status as { state: string }).state, 'TASK_STATE_CANCELLED');
  });

  test('A2A-Version: 1.0 makes /v1/... the v1.0 binding with tenant v1', async () => {
    const body = {
      message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'echo:t' }] },
    };
    const reply = await call(root, 'POST', '/v1/message:send', body, { 'a2a-version': '1.0' });
    assert.equal(reply.status, 200);
    assert.deepEqual((reply.json.message as { parts: unknown[] }).parts, [{ text: 't' }]);
  });

  test('push configs: the proto create request {parent, configId, config}, resource names back', async () => {
    const sent = await call(root, 'POST', '/v1/message:send', protoSend('task:p'));
    const id = (sent.json.task as { id: string }).id;
    const created = await call(root, 'POST', `/v1/tasks/${id}/pushNotificationConfigs`, {
      parent: `tasks/${id}`,
      configId: 'c9',
      config: {
        pushNotificationConfig: { url: 'https://h.example/x', authentication: { schemes: ['Bearer'] } },
      },
    });
    assert.equal(created.status, 200, JSON.stringify(created.json));
    assert.deepEqual(created.json, {
      name: `tasks/${id}/pushNotificationConfigs/c9`,
      pushNotificationConfig: {
        id: 'c9',
        url: 'https://h.example/x',
        authentication: { schemes: ['Bearer'] },
      },
    });
    const list = await call(root, 'GET', `/v1/tasks/${id}/pushNotificationConfigs`);
    assert.deepEqual(list.json, { configs: [created.json] });
    const del = await call(root, 'DELETE', `/v1/tasks/${id}/pushNotificationConfigs/c9`);
    assert.equal(del.status, 200);
    assertV03Error(await call(root, 'GET', `/v1/tasks/${id}/pushNotificationConfigs/c9`), 404, -32001);
  });

  test('GET /v1/tasks lists tasks in the v0.3 shape', async () => {
    await call(root, 'POST', '/v1/message:send', protoSend('task:l'));
    const reply = await call(root, 'GET', '/v1/tasks?pageSize=1');
    const tasks = reply.json.tasks as { status: { state: string } }[];
    assert.equal(tasks.length, 1);
    assert.match(tasks[0]?.status.state ?? '', /^TASK_STATE_/);
    assert.equal(typeof reply.json.nextPageToken, 'string');
  });

  test('message:stream: ProtoJSON events, final on the last status update', async () => {
    const res = await fetch(`${root}/v1/message:stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(protoSend('stream:2')),
    });
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    const frames = (await res.text())
      .split('\n\n')
      .filter((f) => f.startsWith('data: '))
      .map((f) => JSON.parse(f.slice(6)) as Record<string, { final?: boolean; status?: { state: string } }>);
    assert.ok(frames[0]?.task);
    const last = frames.at(-1)?.statusUpdate;
    assert.equal(last?.status?.state, 'TASK_STATE_COMPLETED');
    assert.equal(last?.final, true);
  });
});

describe('v0.3 REST: bad inputs get {code, message}', () => {
  let server: A2AServer;
  let root: string;

  before(async () => {
    ({ server, root } = await start());
  });
  after(() => server.close());

  test('unknown route 404 / -32601, wrong verb 405 with Allow', async () => {
    assertV03Error(await call(root, 'GET', '/v1/nothing'), 404, -32601);
    const wrong = await call(root, 'GET', '/v1/message:send');
    assertV03Error(wrong, 405, -32601);
    assert.equal(wrong.headers.get('allow'), 'POST');
  });

  test('invalid JSON -32700, a non-object body and invalid params -32602', async () => {
    assertV03Error(await call(root, 'POST', '/v1/message:send', '{nope'), 400, -32700);
    assertV03Error(await call(root, 'POST', '/v1/message:send', '[1]'), 400, -32602);
    assertV03Error(
      await call(root, 'POST', '/v1/message:send', { message: { messageId: 'm', role: 'ROLE_USER' } }),
      400,
      -32602,
    );
    const both = {
      message: {
        messageId: 'm',
        role: 'ROLE_USER',
        content: [{ file: { fileWithUri: 'https://x', fileWithBytes: 'aGk=' } }],
      },
    };
    assertV03Error(await call(root, 'POST', '/v1/message:send', both), 400, -32602);
    assertV03Error(await call(root, 'GET', '/v1/tasks/x?historyLength=abc'), 400, -32602);
    assertV03Error(await call(root, 'POST', '/v1/tasks/x/pushNotificationConfigs', {}), 400, -32602);
  });

  test('unknown task -32001 (404); extended card not configured -32007', async () => {
    assertV03Error(await call(root, 'GET', '/v1/tasks/none'), 404, -32001);
    assertV03Error(await call(root, 'GET', '/v1/card'), 400, -32007);
  });

  test('a body over the limit is 413; a non-JSON content type 415', async () => {
    const { server: s, root: r } = await start({ bodyLimit: 128 });
    try {
      assertV03Error(await call(r, 'POST', '/v1/message:send', protoSend('x'.repeat(500))), 413, -32600);
      assertV03Error(
        await call(r, 'POST', '/v1/message:send', 'x', { 'content-type': 'text/plain' }),
        415,
        -32600,
      );
    } finally {
      await s.close();
    }
  });

  test('compatV03: false sends /v1/... to the v1.0 binding: VersionNotSupported', async () => {
    const { server: s, root: r } = await start({ compatV03: false });
    try {
      const reply = await call(r, 'POST', '/v1/message:send', protoSend('echo:x'));
      assert.equal(reply.status, 400);
      assert.equal((reply.json.error as { status: string }).status, 'FAILED_PRECONDITION');
    } finally {
      await s.close();
    }
  });

  test('a failure mid-stream is one `event: error` frame with {code, message}', async () => {
    async function* failing(): AsyncIterable<number> {
      yield 1;
      throw new InternalError('boom');
    }
    const source = new V03SseSource(
      failing(),
      (n) => JSON.stringify({ n }),
      () => JSON.stringify({ code: -32603, message: 'boom' }),
      'error',
    );
    const frames: string[] = [];
    for (let f = await source.next(); f !== undefined && frames.length < 10; f = await source.next())
      frames.push(f);
    assert.deepEqual(frames, [
      'data: {"n":1}\n\n',
      'event: error\ndata: {"code":-32603,"message":"boom"}\n\n',
    ]);
  });
});
