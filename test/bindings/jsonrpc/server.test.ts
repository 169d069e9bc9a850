/**
 * JSON-RPC binding over real sockets, with the real DefaultRequestHandler behind
 * createA2AServer and a test agent (SRV-JRPC-*, G3, G4, G5, G12).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { UnsupportedOperationError } from '../../../src/errors/a2a-error.js';
import { errorRow } from '../../../src/errors/table.js';
import type { StreamResponse } from '../../../src/model/schema.js';
import type { ServerCallContext } from '../../../src/core/context.js';
import { createA2AServer, type A2AServerOptions } from '../../../src/server/http.js';
import { DefaultRequestHandler } from '../../../src/core/handler/default-handler.js';
import {
  AGENT_RAISABLE_ERRORS,
  StreamFailsAfter,
  CRASH_TASK_ID,
  CountingEventBus,
  CrashingTaskStore,
  TEST_CARD,
  bindingTestAgent,
  eventually,
  type BindingTestAgent,
} from '../../support/handler.js';
import { assertProtoJson, assertStreamResponse } from '../../support/oracle.js';

let base: string;
let endpoint: string;
let agent: BindingTestAgent;
/** The call context of every GetExtendedAgentCard (the extended card function is user code). */
const cardCalls: ServerCallContext[] = [];
let close: () => Promise<void>;

/** Starts a server on 127.0.0.1:0 around the real handler; the caller closes it. */
async function startServer(options: Partial<A2AServerOptions> = {}) {
  const testAgent = bindingTestAgent();
  const server = createA2AServer({
    agent: testAgent,
    card: TEST_CARD,
    store: new CrashingTaskStore(),
    keepAliveMs: 60_000,
    onError: () => undefined,
    // The v1.0 binding alone: v0.3 routing is tested in test/bindings/compat-v03.
    compatV03: false,
    ...options,
  });
  const { url } = await server.listen(0, '127.0.0.1');
  return { server, agent: testAgent, url, close: () => server.close() };
}

before(async () => {
  const started = await startServer({
    extendedCard: (ctx) => {
      cardCalls.push(ctx);
      return { ...TEST_CARD, name: 'test agent (extended)' };
    },
  });
  base = started.url;
  endpoint = `${base}/a2a/jsonrpc`;
  agent = started.agent;
  close = started.close;
});
after(() => close());

const V1 = { 'content-type': 'application/json', 'a2a-version': '1.0' };

async function post(body: string, headers: Record<string, string> = V1) {
  const res = await fetch(endpoint, { method: 'POST', headers, body });
  const text = await res.text();
  const isJson = text !== '' && !res.headers.get('content-type')?.startsWith('text/event-stream');
  return { res, text, json: isJson ? (JSON.parse(text) as Record<string, unknown>) : undefined };
}

function call(method: string, params: unknown, id: unknown = 1, headers?: Record<string, string>) {
  return post(JSON.stringify({ jsonrpc: '2.0', id, method, params }), headers);
}

function message(text: string, extra: Record<string, unknown> = {}) {
  return { message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }], ...extra } };
}

/**
 * Asserts the agent never saw a message with `text`: a real SendMessage is answered after
 * it (so anything started earlier has reached the agent), and no execution had that text.
 */
async function assertNeverExecuted(text: string): Promise<void> {
  const { json } = await call('SendMessage', message('after'));
  assert.ok(json?.result);
  assert.ok(agent.contexts.length > 0);
  assert.ok(!agent.contexts.some((ctx) => ctx.text === text));
}

function errorOf(json: Record<string, unknown> | undefined) {
  return (json as { error: { code: number; message: string; data?: Record<string, unknown>[] } }).error;
}

/** The one event of an SSE reply read by {@link post}, as `json`. */
async function streamedOnly(
  reply: Promise<{ res: Response; text: string }>,
): Promise<{ res: Response; json: Record<string, unknown> | undefined }> {
  const { res, text } = await reply;
  const events = text.split('\n\n').filter((block) => block.startsWith('data: '));
  assert.equal(events.length, 1, text);
  return { res, json: JSON.parse(events[0]!.slice(6)) as Record<string, unknown> };
}

async function sseEvents(res: Response): Promise<unknown[]> {
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => JSON.parse(block.slice(6)) as unknown);
}

describe('JSON-RPC envelope', () => {
  test('ids of every legal type are echoed (string, number, null)', async () => {
    for (const id of ['abc', 7, 0, -1.5, null]) {
      const { res, json } = await call('GetExtendedAgentCard', undefined, id);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/json');
      assert.deepEqual(json?.id, id);
      assert.equal(json?.jsonrpc, '2.0');
      assertProtoJson('AgentCard', json?.result);
    }
  });

  test('G12: a notification (no id) is not executed and not answered', async () => {
    const text = `notified-${Math.random()}`;
    const { res, text: body } = await post(
      JSON.stringify({ jsonrpc: '2.0', method: 'SendMessage', params: message(text) }),
    );
    assert.equal(res.status, 204);
    assert.equal(body, '');
    await assertNeverExecuted(text);
  });

  test('SRV-JRPC-8: malformed JSON is -32700 with id null', async () => {
    const { res, json } = await post('{"jsonrpc":"2.0",');
    assert.equal(res.status, 200);
    assert.equal(json?.id, null);
    assert.equal(errorOf(json).code, -32700);
  });

  test('an empty body is -32700', async () => {
    const { json } = await post('');
    assert.equal(errorOf(json).code, -32700);
  });

  test('G12: a batch is -32600 with id null', async () => {
    const { res, json } = await post(
      JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }]),
    );
    assert.equal(res.status, 200);
    assert.equal(json?.id, null);
    assert.equal(errorOf(json).code, -32600);
  });

  test('invalid envelopes are -32600', async () => {
    for (const body of [
      '"just a string"',
      'null',
      JSON.stringify({ jsonrpc: '1.0', id: 1, method: 'GetTask' }),
      JSON.stringify({ id: 1, method: 'GetTask' }),
      JSON.stringify({ jsonrpc: '2.0', id: 1 }),
      JSON.stringify({ jsonrpc: '2.0', id: { a: 1 }, method: 'GetTask' }),
      JSON.stringify({ jsonrpc: '2.0', id: true, method: 'GetTask' }),
    ]) {
      const { res, json } = await post(body);
      assert.equal(res.status, 200, body);
      assert.equal(errorOf(json).code, -32600, body);
    }
  });

  test('the id is echoed on an invalid jsonrpc version', async () => {
    const { json } = await post(JSON.stringify({ jsonrpc: '1.0', id: 'k', method: 'GetTask' }));
    assert.equal(json?.id, 'k');
  });

  test('N3: unknown, v0.3 slash and GetAgentCard methods are -32601 on version 1.0', async () => {
    for (const method of ['Nope', 'message/send', 'tasks/get', 'GetAgentCard', 'sendMessage']) {
      const { res, json } = await call(method, {}, 'x');
      assert.equal(res.status, 200);
      assert.equal(json?.id, 'x');
      assert.equal(errorOf(json).code, -32601, method);
    }
  });

  test('GET on the endpoint is 405', async () => {
    const res = await fetch(endpoint);
    assert.equal(res.status, 405);
    assert.equal(res.headers.get('allow'), 'POST');
    await res.text();
  });

  test('N14: application/a2a+json and any +json with charset are accepted', async () => {
    for (const type of [
      'application/a2a+json',
      'application/vnd.x+json; charset=utf-8',
      'application/json;charset=UTF-8',
    ]) {
      const { res, json } = await call('GetExtendedAgentCard', {}, 1, {
        'content-type': type,
        'a2a-version': '1.0',
      });
      assert.equal(res.status, 200, type);
      assert.ok(json?.result, type);
    }
  });

  test('a non-JSON content type is 415 with -32600', async () => {
    const { res, json } = await call('GetTask', { id: 'x' }, 1, {
      'content-type': 'text/plain',
      'a2a-version': '1.0',
    });
    assert.equal(res.status, 415);
    assert.equal(errorOf(json).code, -32600);
  });
});

describe('JSON-RPC versions and extensions', () => {
  test('N9: no A2A-Version with a v1.0 method is served as 1.0', async () => {
    const { json } = await call('GetExtendedAgentCard', {}, 1, { 'content-type': 'application/json' });
    assert.ok(json?.result);
    assert.equal(cardCalls.at(-1)?.protocolVersion, '1.0');
  });

  test('SRV-VER-4: 1.0.3 is 1.0', async () => {
    const { json } = await call('GetExtendedAgentCard', {}, 1, {
      'content-type': 'application/json',
      'a2a-version': '1.0.3',
    });
    assert.ok(json?.result);
  });

  test('SRV-VER-2: 0.3 and 2.0 are VersionNotSupportedError with supportedVersions', async () => {
    for (const v of ['0.3', '2.0', 'banana']) {
      const { res, json } = await call('GetTask', { id: 'x' }, 5, {
        'content-type': 'application/json',
        'a2a-version': v,
      });
      assert.equal(res.status, 200);
      const error = errorOf(json);
      assert.equal(error.code, -32009, v);
      assert.equal(json?.id, 5);
      assert.deepEqual(error.data?.[0], {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'VERSION_NOT_SUPPORTED',
        domain: 'a2a-protocol.org',
        metadata: { supportedVersions: '1.0' },
      });
    }
  });

  test('SRV-VER-3: no version with a v0.3 method means 0.3: VersionNotSupportedError', async () => {
    const { json } = await call('message/send', {}, 1, { 'content-type': 'application/json' });
    assert.equal(errorOf(json).code, -32009);
  });

  test('N8: the A2A-Version query parameter is read when the header is absent', async () => {
    const res = await fetch(`${endpoint}?a2a-version=2.0`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetExtendedAgentCard' }),
    });
    assert.equal(errorOf((await res.json()) as Record<string, unknown>).code, -32009);
  });

  test('SRV-EXT-2: extensions from comma lists and the X- alias reach the context; none activated, none echoed', async () => {
    const { res } = await call('GetExtendedAgentCard', {}, 1, {
      ...V1,
      'a2a-extensions': 'https://example.test/ext/echo, https://example.test/ext/other',
    });
    assert.deepEqual(cardCalls.at(-1)?.requestedExtensions, [
      'https://example.test/ext/echo',
      'https://example.test/ext/other',
    ]);
    assert.equal(res.headers.get('a2a-extensions'), null);
    const legacy = await call('GetExtendedAgentCard', {}, 1, {
      ...V1,
      'x-a2a-extensions': 'https://example.test/ext/echo',
    });
    assert.ok(legacy.json?.result);
    assert.deepEqual(cardCalls.at(-1)?.requestedExtensions, ['https://example.test/ext/echo']);
    // The agent sees them too.
    await call('SendMessage', message('hello'), 1, { ...V1, 'a2a-extensions': 'urn:a,urn:b' });
    assert.deepEqual(agent.contexts.at(-1)?.requestedExtensions, ['urn:a', 'urn:b']);
  });
});

describe('JSON-RPC operations', () => {
  test('SendMessage returns a SendMessageResponse; GetTask finds the task', async () => {
    const { json } = await call('SendMessage', message('hello'));
    assertProtoJson('SendMessageResponse', json?.result);
    const task = (json?.result as { task: { id: string } }).task;
    const got = await call('GetTask', { id: task.id, historyLength: 0 });
    assertProtoJson('Task', got.json?.result);
  });

  test('SRV-JRPC-7: an unknown task is -32001 with ErrorInfo in data', async () => {
    const { res, json } = await call('GetTask', { id: 'missing' }, 'q');
    assert.equal(res.status, 200);
    assert.equal(json?.id, 'q');
    const error = errorOf(json);
    assert.equal(error.code, -32001);
    assert.deepEqual(error.data, [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'TASK_NOT_FOUND',
        domain: 'a2a-protocol.org',
        metadata: { taskId: 'missing' },
      },
    ]);
  });

  test('SRV-JRPC-7: ErrorInfo metadata of an A2A error reaches data', async () => {
    const { json } = await call('SendMessage', message('throw:TaskNotFound'), 'q');
    assert.deepEqual(errorOf(json).data, [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'TASK_NOT_FOUND',
        domain: 'a2a-protocol.org',
        metadata: { taskId: 't-1' },
      },
    ]);
  });

  test('every A2A error an agent raises before its first event gets its JSON-RPC code (SendMessage and SendStreamingMessage)', async () => {
    for (const code of AGENT_RAISABLE_ERRORS) {
      for (const method of ['SendMessage', 'SendStreamingMessage']) {
        const streamed = method === 'SendStreamingMessage';
        const { res, json } = streamed
          ? await streamedOnly(call(method, message(`throw:${code}`), 'e'))
          : await call(method, message(`throw:${code}`), 'e');
        const row = errorRow(code);
        // A stream has started (headers sent) before the agent's first event: its error is
        // the stream's one error event (G5).
        assert.equal(
          res.status,
          !streamed && ['Unauthenticated', 'PermissionDenied', 'ResourceExhausted'].includes(code)
            ? row.httpStatus
            : 200,
        );
        assert.equal(
          res.headers.get('content-type'),
          streamed ? 'text/event-stream' : 'application/json',
          `${method} ${code}`,
        );
        assert.equal(json?.id, 'e');
        const error = errorOf(json);
        assert.equal(error.code, row.jsonRpcCode, `${method} ${code}`);
        assert.equal(error.message, `agent refused: ${code}`);
        const info = error.data?.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo');
        assert.equal(info?.reason, row.reason, `${method} ${code}`);
      }
    }
  });

  test('SRV-SEND-9: a missing messageId is -32602 naming the field, and nothing runs', async () => {
    const text = `no-id-${Math.random()}`;
    const { json } = await call('SendMessage', { message: { role: 'ROLE_USER', parts: [{ text }] } });
    const error = errorOf(json);
    assert.equal(error.code, -32602);
    assert.match(error.message, /messageId/);
    const bad = error.data?.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest') as
      { fieldViolations: { field: string }[] } | undefined;
    assert.ok(bad?.fieldViolations.some((v) => v.field === 'message.messageId'));
    await assertNeverExecuted(text);
  });

  test('SRV-HIST-5: a negative historyLength is -32602', async () => {
    const { json } = await call('GetTask', { id: 'x', historyLength: -1 });
    assert.equal(errorOf(json).code, -32602);
  });

  test('params that are not an object are -32602', async () => {
    const { json } = await call('GetTask', ['x']);
    assert.equal(errorOf(json).code, -32602);
  });

  test('a bad page token is -32602', async () => {
    const { json } = await call('ListTasks', { pageToken: 'bad' });
    const error = errorOf(json);
    assert.equal(error.code, -32602);
    assert.match(error.message, /pageToken/);
  });

  test('an unexpected failure is -32603 without leaking its message', async () => {
    const { res, json } = await call('GetTask', { id: CRASH_TASK_ID });
    assert.equal(res.status, 200);
    const error = errorOf(json);
    assert.equal(error.code, -32603);
    assert.doesNotMatch(JSON.stringify(json), /secret/);
  });

  test('tenant comes from params.tenant', async () => {
    const { json } = await call('SendMessage', { ...message('hello'), tenant: 'acme' });
    const id = (json?.result as { task: { id: string } }).task.id;
    assert.equal(agent.contexts.at(-1)?.tenant, 'acme');
    const inTenant = await call('ListTasks', { tenant: 'acme' });
    assert.ok((inTenant.json?.result as { tasks: { id: string }[] }).tasks.some((t) => t.id === id));
    const outside = await call('ListTasks', {});
    assert.ok(!(outside.json?.result as { tasks: { id: string }[] }).tasks.some((t) => t.id === id));
    assert.equal(errorOf((await call('GetTask', { id })).json).code, -32001);
    assert.ok((await call('GetTask', { id, tenant: 'acme' })).json?.result);
  });
});

describe('JSON-RPC streaming', () => {
  test('SRV-JRPC-6: SendStreamingMessage streams one JSON-RPC response per data line, in order', async () => {
    const res = await fetch(endpoint, {
      method: 'POST',
      headers: V1,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 's1',
        method: 'SendStreamingMessage',
        params: message('stream:3'),
      }),
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    assert.equal(res.headers.get('cache-control'), 'no-cache');
    const events = (await sseEvents(res)) as { id: string; result: StreamResponse }[];
    assert.equal(events.length, 5);
    for (const event of events) {
      assert.equal(event.id, 's1');
      assertStreamResponse(event.result);
    }
    assert.deepEqual(
      events.map((e) => Object.keys(e.result)[0]),
      ['task', 'artifactUpdate', 'artifactUpdate', 'artifactUpdate', 'statusUpdate'],
    );
    assert.deepEqual(
      events.slice(1, 4).map((e) => e.result.artifactUpdate?.artifact.parts[0]?.text),
      ['chunk 1', 'chunk 2', 'chunk 3'],
    );
    assert.equal(events[4]?.result.statusUpdate?.status.state, 'TASK_STATE_COMPLETED');
  });

  test('G5: an error before the first event is an ordinary error response', async () => {
    const { res, json } = await call('SubscribeToTask', { id: 'missing' });
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.equal(errorOf(json).code, -32001);
  });

  test('G5: an error after the stream started is one error event, then the stream closes', async (t) => {
    const started = await startServer({
      handler: (card) =>
        new StreamFailsAfter(
          { executor: bindingTestAgent(), card },
          1,
          () => new UnsupportedOperationError('boom'),
        ),
    });
    t.after(started.close);
    const res = await fetch(`${started.url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: V1,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 9,
        method: 'SendStreamingMessage',
        params: message('stream:3'),
      }),
    });
    const events = (await sseEvents(res)) as { id: number; result?: unknown; error?: { code: number } }[];
    assert.equal(events.length, 2);
    assert.ok(events[0]?.result);
    assert.equal(events[1]?.id, 9);
    assert.equal(events[1]?.error?.code, -32004);
  });

  test('SRV-STREAM-7: a client going away stops the iteration; the task lives on', async (t) => {
    const bus = new CountingEventBus();
    const started = await startServer({
      handler: (card) => new DefaultRequestHandler({ executor: bindingTestAgent(), card, eventBus: bus }),
    });
    t.after(started.close);
    const url = `${started.url}/a2a/jsonrpc`;
    const controller = new AbortController();
    const res = await fetch(url, {
      method: 'POST',
      headers: V1,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendStreamingMessage',
        params: message('hold'),
      }),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    assert.match(first, /^data: /);
    const taskId = (JSON.parse(first.slice(6)) as { result: StreamResponse }).result.task?.id ?? '';
    assert.equal(bus.subscriptions(taskId), 1);
    controller.abort();
    assert.ok(await eventually(() => bus.subscriptions(taskId) === 0), 'the stream was released');
    const got = await fetch(url, {
      method: 'POST',
      headers: V1,
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'GetTask', params: { id: taskId } }),
    });
    const task = ((await got.json()) as { result: { status: { state: string } } }).result;
    assert.equal(task.status.state, 'TASK_STATE_WORKING');
  });

  test('a streaming notification is not executed', async () => {
    const text = `notified-${Math.random()}`;
    const { res } = await post(
      JSON.stringify({ jsonrpc: '2.0', method: 'SendStreamingMessage', params: message(text) }),
    );
    assert.equal(res.status, 204);
    await assertNeverExecuted(text);
  });
});

describe('JSON-RPC required extensions (SRV-EXT-3)', () => {
  test('a required extension not requested is -32008; requested, it is activated and echoed', async (t) => {
    const started = await startServer({
      card: { ...TEST_CARD, extensions: [{ uri: 'urn:required', required: true }] },
    });
    t.after(started.close);
    const url = `${started.url}/a2a/jsonrpc`;
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} });
    const missing = await fetch(url, { method: 'POST', headers: V1, body });
    const error = errorOf((await missing.json()) as Record<string, unknown>);
    assert.equal(error.code, -32008);
    assert.deepEqual((error.data?.[0] as { metadata: unknown }).metadata, { extensions: 'urn:required' });
    const ok = await fetch(url, {
      method: 'POST',
      headers: { ...V1, 'a2a-extensions': 'urn:required' },
      body,
    });
    assert.ok(((await ok.json()) as { result?: unknown }).result);
    assert.equal(ok.headers.get('a2a-extensions'), 'urn:required');
    // SRV-EXT-2: from a comma list only the activated one is echoed, under the header the client used.
    const listed = await fetch(url, {
      method: 'POST',
      headers: { ...V1, 'x-a2a-extensions': 'urn:other, urn:required' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: message('hello') }),
    });
    assert.ok(((await listed.json()) as { result?: unknown }).result);
    assert.equal(listed.headers.get('x-a2a-extensions'), 'urn:required');
    assert.deepEqual(started.agent.contexts.at(-1)?.requestedExtensions, ['urn:other', 'urn:required']);
  });
});

describe('JSON-RPC error messages', () => {
  test('quote at most a bounded part of a long value; a deep one is -32600 (SRV-TRUST-2) without an echo', async () => {
    const long = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'x'.repeat(5000), params: {} }));
    assert.match(long.text, /-32601/);
    assert.ok(long.text.length < 1000, `echoed ${long.text.length} chars`);
    const deep = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
    const nested = await post(`{"jsonrpc":"2.0","id":1,"method":"CancelTask","params":{"id":${deep}}}`);
    assert.match(nested.text, /-32600/);
    assert.ok(nested.text.length < 1000, `echoed ${nested.text.length} chars`);
  });
});
