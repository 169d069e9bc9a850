/**
 * The v0.3 JSON-RPC binding on raw HTTP: routing by version, the v0.3 traps (blocking,
 * numbers as strings, old push-config names, data parts), and every bad input answered in the
 * v0.3 error shape (`{code, message, data?}` with free-form data, never the v1.0 details array).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { benchCard, benchExecutor, echoExecutor } from '../../../src/agents/index.js';
import type { AgentExecutor } from '../../../src/core/executor.js';
import { createA2AServer, type A2AServer, type A2AServerOptions } from '../../../src/server/http.js';

const agent: AgentExecutor = {
  async execute(ctx, events) {
    const first = ctx.message.parts[0];
    if (first?.text === undefined || first.text === 'parts') return echoExecutor.execute(ctx, events);
    return benchExecutor.execute(ctx, events);
  },
};

async function start(options: Partial<A2AServerOptions> = {}): Promise<{ server: A2AServer; url: string }> {
  const server = createA2AServer({
    agent,
    card: { ...benchCard, defaultInputModes: ['text/plain', 'application/json'] },
    ...options,
  });
  const { url } = await server.listen(0, '127.0.0.1');
  return { server, url };
}

interface RpcReply {
  status: number;
  headers: Headers;
  json: { id?: unknown; result?: unknown; error?: { code: number; message: string; data?: unknown } };
}

async function rpc(url: string, body: unknown, headers: Record<string, string> = {}): Promise<RpcReply> {
  const res = await fetch(`${url}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, json: (await res.json()) as RpcReply['json'] };
}

function send(
  text: string,
  extra: Record<string, unknown> = {},
  configuration?: Record<string, unknown>,
): unknown {
  return {
    jsonrpc: '2.0',
    id: 7,
    method: 'message/send',
    params: {
      message: {
        kind: 'message',
        messageId: crypto.randomUUID(),
        role: 'user',
        parts: [{ kind: 'text', text }],
        ...extra,
      },
      ...(configuration ? { configuration } : {}),
    },
  };
}

function assertV03Error(reply: RpcReply, code: number, message?: RegExp): void {
  assert.equal(reply.status, 200);
  assert.equal(reply.json.result, undefined);
  const error = reply.json.error;
  assert.ok(error, `expected an error, got ${JSON.stringify(reply.json)}`);
  assert.equal(error.code, code, JSON.stringify(error));
  assert.equal(typeof error.message, 'string');
  assert.ok(!Array.isArray(error.data), 'v0.3 data is never the v1.0 details array');
  if (message) assert.match(error.message, message);
}

describe('v0.3 JSON-RPC: routing and traps', () => {
  let server: A2AServer;
  let url: string;

  before(async () => {
    ({ server, url } = await start({ pushNotifications: true }));
  });
  after(() => server.close());

  test('no version and a slash method, or A2A-Version: 0.3, is served as v0.3', async () => {
    const plain = await rpc(url, send('echo:a'));
    assert.equal((plain.json.result as { kind: string }).kind, 'message');
    const versioned = await rpc(url, send('echo:b'), { 'a2a-version': '0.3' });
    assert.equal((versioned.json.result as { kind: string }).kind, 'message');
    assert.equal(versioned.json.id, 7);
  });

  test('v1.0 requests still reach the v1.0 binding, with or without a version', async () => {
    const body = {
      jsonrpc: '2.0',
      id: 'x',
      method: 'SendMessage',
      params: {
        message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'echo:v1' }] },
      },
    };
    for (const headers of [{}, { 'a2a-version': '1.0' }] as Record<string, string>[]) {
      const reply = await rpc(url, body, headers);
      assert.deepEqual((reply.json.result as { message: { parts: unknown[] } }).message.parts, [
        { text: 'v1' },
      ]);
    }
  });

  test('A2A-Version: 0.3 with a v1.0 method name is -32601 in the v0.3 shape', async () => {
    const reply = await rpc(
      url,
      { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: {} },
      { 'a2a-version': '0.3' },
    );
    assertV03Error(reply, -32601);
  });

  test('blocking: absent and true wait; false (also the string "false") returns at once', async () => {
    for (const configuration of [undefined, { blocking: true }]) {
      const reply = await rpc(url, send('task:w', {}, configuration));
      assert.equal((reply.json.result as { status: { state: string } }).status.state, 'completed');
    }
    for (const blocking of [false, 'false']) {
      const reply = await rpc(url, send('slow:60000', {}, { blocking }));
      const task = reply.json.result as { id: string; status: { state: string } };
      assert.ok(['submitted', 'working'].includes(task.status.state), JSON.stringify(reply.json));
      const canceled = await rpc(url, {
        jsonrpc: '2.0',
        id: 2,
        method: 'tasks/cancel',
        params: { id: task.id },
      });
      assert.equal((canceled.json.result as { status: { state: string } }).status.state, 'canceled');
    }
  });

  test('numbers as strings: historyLength "1" is read as 1', async () => {
    const sent = await rpc(url, send('task:n'));
    const id = (sent.json.result as { id: string }).id;
    const got = await rpc(url, {
      jsonrpc: '2.0',
      id: 3,
      method: 'tasks/get',
      params: { id, historyLength: '1' },
    });
    assert.equal((got.json.result as { history: unknown[] }).history.length, 1);
  });

  test('configuration.pushNotificationConfig (the old name) registers a config with schemes[]', async () => {
    const sent = await rpc(
      url,
      send(
        'task:p',
        {},
        {
          pushNotificationConfig: { url: 'https://hooks.example/x', authentication: { schemes: ['Bearer'] } },
        },
      ),
    );
    const id = (sent.json.result as { id: string }).id;
    const list = await rpc(url, {
      jsonrpc: '2.0',
      id: 4,
      method: 'tasks/pushNotificationConfig/list',
      params: { id },
    });
    const configs = list.json.result as { taskId: string; pushNotificationConfig: Record<string, unknown> }[];
    assert.equal(configs.length, 1);
    assert.equal(configs[0]?.taskId, id);
    assert.equal(configs[0]?.pushNotificationConfig.url, 'https://hooks.example/x');
    assert.deepEqual(configs[0]?.pushNotificationConfig.authentication, { schemes: ['Bearer'] });
  });

  test('a non-object data value goes out wrapped with data_part_compat and comes back unwrapped', async () => {
    const parts = [
      { kind: 'text', text: 'parts' },
      { kind: 'data', data: { value: [1, 2] }, metadata: { data_part_compat: true } },
    ];
    const reply = await rpc(url, send('', { parts }));
    assert.deepEqual((reply.json.result as { parts: unknown[] }).parts, parts);
  });

  test('X-A2A-Extensions is read (required extensions are checked on v0.3 too)', async () => {
    const ext = 'https://ext.example/required';
    const { server: s, url: u } = await start({
      card: { ...benchCard, extensions: [{ uri: ext, required: true }] },
    });
    try {
      assertV03Error(await rpc(u, send('echo:x')), -32008);
      const ok = await rpc(u, send('echo:x'), { 'x-a2a-extensions': ext });
      assert.equal((ok.json.result as { kind: string }).kind, 'message');
      assert.equal(ok.headers.get('x-a2a-extensions'), ext);
    } finally {
      await s.close();
    }
  });
});

describe('v0.3 JSON-RPC: every bad input gets the v0.3 error shape', () => {
  let server: A2AServer;
  let url: string;

  before(async () => {
    ({ server, url } = await start());
  });
  after(() => server.close());

  const v03 = { 'a2a-version': '0.3' };

  test('invalid JSON is -32700; a batch or a wrong envelope is -32600', async () => {
    assertV03Error(await rpc(url, '{nope', v03), -32700);
    assertV03Error(await rpc(url, [send('echo:x')], v03), -32600);
    assertV03Error(await rpc(url, { jsonrpc: '1.0', id: 1, method: 'message/send' }, v03), -32600);
  });

  test('an unknown v0.3 method is -32601', async () => {
    assertV03Error(await rpc(url, { jsonrpc: '2.0', id: 1, method: 'tasks/list', params: {} }), -32601);
  });

  test('invalid params are -32602 naming the field, with violations in data', async () => {
    const noParts = {
      jsonrpc: '2.0',
      id: 1,
      method: 'message/send',
      params: { message: { kind: 'message', messageId: 'm', role: 'user', parts: [] } },
    };
    const reply = await rpc(url, noParts);
    assertV03Error(reply, -32602, /message\.parts/);
    assert.ok(Array.isArray((reply.json.error?.data as { violations?: unknown[] }).violations));
    const cases: [string, unknown][] = [
      ['unknown kind', { kind: 'image', url: 'x' }],
      ['file with uri and bytes', { kind: 'file', file: { uri: 'https://x', bytes: 'aGk=' } }],
      ['file without content', { kind: 'file', file: { name: 'x' } }],
      ['data without data', { kind: 'data' }],
    ];
    for (const [what, part] of cases) {
      const r = await rpc(url, send('', { parts: [part] }));
      assertV03Error(r, -32602, /message\.parts\[0\]/);
      assert.ok(r.json.error, what);
    }
    assertV03Error(await rpc(url, send('echo:x', {}, { blocking: 'maybe' })), -32602, /blocking/);
    assertV03Error(await rpc(url, send('echo:x', { role: 'robot' })), -32602, /role/);
    assertV03Error(await rpc(url, send('echo:x', { kind: 'task' })), -32602, /kind/);
    assertV03Error(await rpc(url, { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: {} }), -32602, /id/);
    assertV03Error(await rpc(url, { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: [] }), -32602);
  });

  test('A2A errors keep their v0.3 codes: -32001, -32002, -32003, -32007', async () => {
    assertV03Error(
      await rpc(url, { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'nope' } }),
      -32001,
    );
    const done = await rpc(url, send('task:d'));
    const id = (done.json.result as { id: string }).id;
    assertV03Error(await rpc(url, { jsonrpc: '2.0', id: 1, method: 'tasks/cancel', params: { id } }), -32002);
    const set = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tasks/pushNotificationConfig/set',
      params: { taskId: id, pushNotificationConfig: { url: 'https://h.example' } },
    };
    assertV03Error(await rpc(url, set), -32003);
    assertV03Error(
      await rpc(url, { jsonrpc: '2.0', id: 1, method: 'agent/getAuthenticatedExtendedCard' }),
      -32007,
    );
  });

  test('a body over the limit is 413 with -32600', async () => {
    const { server: s, url: u } = await start({ bodyLimit: 256 });
    try {
      const reply = await rpc(u, send('x'.repeat(1000)), v03);
      assert.equal(reply.status, 413);
      assert.equal(reply.json.error?.code, -32600);
    } finally {
      await s.close();
    }
  });

  test('compatV03: false answers v0.3 requests with VersionNotSupportedError and lists no v0.3 interface', async () => {
    const { server: s, url: u } = await start({ compatV03: false });
    try {
      const reply = await rpc(u, send('echo:x'));
      assert.equal(reply.json.error?.code, -32009);
      const card = (await (await fetch(`${u}/.well-known/agent-card.json`)).json()) as Record<
        string,
        unknown
      >;
      assert.equal(card.url, undefined);
      assert.ok(
        (card.supportedInterfaces as { protocolVersion: string }[]).every((i) => i.protocolVersion === '1.0'),
      );
    } finally {
      await s.close();
    }
  });
});
