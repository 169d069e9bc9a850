/**
 * REST binding over real sockets, with the real DefaultRequestHandler behind createA2AServer
 * and a test agent (SRV-REST-*, D1, D13, G8, N14).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { UnsupportedOperationError } from '../../../src/errors/a2a-error.js';
import { errorRow } from '../../../src/errors/table.js';
import type { StreamResponse } from '../../../src/model/schema.js';
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

let root: string;
let agent: BindingTestAgent;
let close: () => Promise<void>;

/** Starts a server on 127.0.0.1:0 around the real handler; the caller closes it. */
async function startServer(options: Partial<A2AServerOptions> = {}) {
  const testAgent = bindingTestAgent();
  const server = createA2AServer({
    agent: testAgent,
    card: TEST_CARD,
    extendedCard: { ...TEST_CARD, name: 'test agent (extended)' },
    store: new CrashingTaskStore(),
    pushNotifications: true,
    keepAliveMs: 60_000,
    onError: () => undefined,
    // The v1.0 binding alone: v0.3 routing is tested in test/bindings/compat-v03.
    compatV03: false,
    ...options,
  });
  const { url } = await server.listen(0, '127.0.0.1');
  return { server, agent: testAgent, root: `${url}/a2a/rest`, close: () => server.close() };
}

before(async () => {
  const started = await startServer();
  root = started.root;
  agent = started.agent;
  close = started.close;
});
after(() => close());

const V1 = { 'content-type': 'application/a2a+json', 'a2a-version': '1.0' };

async function req(method: string, path: string, body?: unknown, headers: Record<string, string> = V1) {
  const res = await fetch(root + path, {
    method,
    headers,
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  const isJson = text !== '' && !res.headers.get('content-type')?.startsWith('text/event-stream');
  return { res, text, json: isJson ? (JSON.parse(text) as Record<string, unknown>) : undefined };
}

function message(text: string) {
  return { message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }] } };
}

interface Envelope {
  error: { code: number; status: string; message: string; details?: Record<string, unknown>[] };
}

function assertEnvelope(json: unknown, code: number, status: string, reason?: string): Envelope['error'] {
  const error = (json as Envelope).error;
  assert.ok(error, `an error envelope: ${JSON.stringify(json)}`);
  assert.equal(error.code, code);
  assert.equal(error.status, status);
  assert.equal(typeof error.message, 'string');
  if (reason) {
    const info = error.details?.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo');
    assert.equal(info?.reason, reason);
    assert.equal(info?.domain, 'a2a-protocol.org');
  }
  return error;
}

async function sseEvents(res: Response): Promise<unknown[]> {
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => JSON.parse(block.slice(6)) as unknown);
}

/** A task through `prefix` (a tenant path): completed, or in INPUT_REQUIRED for `input`. */
async function newTask(prefix = '', text = 'hi', contextId?: string): Promise<string> {
  const body = message(text);
  const { json } = await req('POST', `${prefix}/message:send`, {
    message: { ...body.message, ...(contextId ? { contextId } : {}) },
  });
  return (json as { task: { id: string } }).task.id;
}

/** Reads the first SSE event of a stream that stays open, then lets it go. */
async function firstEvent(res: Response): Promise<unknown> {
  const reader = res.body!.getReader();
  let text = '';
  for (let i = 0; i < 100 && !text.includes('\n\n'); i++) {
    const chunk = await reader.read();
    if (chunk.done) break;
    text += new TextDecoder().decode(chunk.value);
  }
  await reader.cancel();
  const block = text.split('\n\n').find((b) => b.startsWith('data: '));
  assert.ok(block, `an event in ${JSON.stringify(text)}`);
  return JSON.parse(block.slice(6)) as unknown;
}

describe('REST routes', () => {
  test('SRV-REST-5: every operation answers its proto message', async () => {
    const send = await req('POST', '/message:send', message('hello'));
    assert.equal(send.res.status, 200);
    assert.equal(send.res.headers.get('content-type'), 'application/a2a+json');
    assertProtoJson('SendMessageResponse', send.json);
    const id = await newTask('', 'input');

    assertProtoJson('Task', (await req('GET', `/tasks/${id}?historyLength=1`)).json);
    assertProtoJson(
      'ListTasksResponse',
      (await req('GET', '/tasks?pageSize=10&includeArtifacts=false')).json,
    );
    const created = await req('POST', `/tasks/${id}/pushNotificationConfigs`, {
      url: 'https://hook.example/x',
    });
    assertProtoJson('TaskPushNotificationConfig', created.json);
    const cfg = (created.json as { id: string }).id;
    assertProtoJson(
      'TaskPushNotificationConfig',
      (await req('GET', `/tasks/${id}/pushNotificationConfigs/${cfg}`)).json,
    );
    assertProtoJson(
      'ListTaskPushNotificationConfigsResponse',
      (await req('GET', `/tasks/${id}/pushNotificationConfigs?pageSize=5`)).json,
    );
    const del = await req('DELETE', `/tasks/${id}/pushNotificationConfigs/${cfg}`);
    assert.equal(del.res.status, 200);
    assert.deepEqual(del.json, {});
    assertProtoJson('AgentCard', (await req('GET', '/extendedAgentCard')).json);
    const cancel = await req('POST', `/tasks/${id}:cancel`);
    assertProtoJson('Task', cancel.json);
  });

  test('query parameters: camelCase, snake_case, ints and booleans reach the handler', async () => {
    const contextId = `c-${Math.random()}`;
    const waiting = await newTask('', 'input', contextId);
    await newTask('', 'hi', contextId);
    await newTask('', 'input');
    for (const query of [
      `context_id=${contextId}&page_size=7&include_artifacts=true&status=TASK_STATE_INPUT_REQUIRED`,
      `contextId=${contextId}&pageSize=7&includeArtifacts=true&status=TASK_STATE_INPUT_REQUIRED&A2A-Version=1.0`,
    ]) {
      const { res, json } = await req('GET', `/tasks?${query}`);
      assert.equal(res.status, 200, query);
      const page = json as { tasks: { id: string; artifacts?: unknown[] }[]; pageSize: number };
      assert.deepEqual(
        page.tasks.map((t) => t.id),
        [waiting],
        query,
      );
      assert.equal(page.pageSize, 7, query);
      assert.deepEqual(page.tasks[0]?.artifacts, [], query);
    }
    const withoutArtifacts = await req('GET', `/tasks?contextId=${contextId}&includeArtifacts=false`);
    const tasks = (withoutArtifacts.json as { tasks: { artifacts?: unknown[] }[] }).tasks;
    assert.equal(tasks.length, 2);
    assert.ok(tasks.every((t) => t.artifacts === undefined));
  });

  test('G9/SRV-HIST-5: bad query values are InvalidParams 400', async () => {
    for (const q of [
      'historyLength=-1',
      'pageSize=abc',
      'includeArtifacts=maybe',
      'pageSize=0',
      'status=NOPE',
    ]) {
      const { res, json } = await req('GET', `/tasks?${q}`);
      assert.equal(res.status, 400, q);
      assertEnvelope(json, 400, 'INVALID_ARGUMENT');
    }
  });

  test('a bad page token is InvalidParams 400 with a BadRequest', async () => {
    const { res, json } = await req('GET', '/tasks?pageToken=bad');
    assert.equal(res.status, 400);
    const error = assertEnvelope(json, 400, 'INVALID_ARGUMENT');
    assert.ok(error.details?.some((d) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest'));
  });

  test('G8: tenant prefixes route and reach the context; non-tenant routes win', async () => {
    const id = await newTask('/acme');
    assert.equal(agent.contexts.at(-1)?.tenant, 'acme');
    // GetTask under the tenant finds it; without the tenant it is another scope.
    const inTenant = await req('GET', `/acme/tasks/${id}`);
    assert.equal(inTenant.res.status, 200);
    assert.equal((inTenant.json as { id: string }).id, id);
    assert.equal((await req('GET', `/tasks/${id}`)).res.status, 404);
    // `/tasks/tasks` is GetTask of task "tasks", not ListTasks of tenant "tasks".
    const literal = await req('GET', '/tasks/tasks');
    assert.equal(literal.res.status, 404);
    assertEnvelope(literal.json, 404, 'NOT_FOUND', 'TASK_NOT_FOUND');
    const list = await req('GET', '/acme/tasks');
    assert.equal(list.res.status, 200);
    assertProtoJson('ListTasksResponse', list.json);
    assert.ok((list.json as { tasks: { id: string }[] }).tasks.some((t) => t.id === id));
  });

  test('G8: a body tenant that differs from the path is InvalidParams', async () => {
    const { res } = await req('POST', '/acme/message:send', { ...message('x'), tenant: 'other' });
    assert.equal(res.status, 400);
  });

  test('unknown routes are 404, wrong verbs 405 with Allow', async () => {
    const missing = await req('GET', '/nope/nope/nope/nope/nope/nope');
    assert.equal(missing.res.status, 404);
    assertEnvelope(missing.json, 404, 'UNIMPLEMENTED');
    const wrong = await req('DELETE', '/tasks/x');
    assert.equal(wrong.res.status, 405);
    assert.equal(wrong.res.headers.get('allow'), 'GET, HEAD');
    const wrongSend = await req('GET', '/message:send');
    assert.equal(wrongSend.res.status, 405);
  });

  test('D25: there is no GetAgentCard route', async () => {
    assert.equal((await req('GET', '/card')).res.status, 404);
  });

  test('D13: an unknown task is 404 NOT_FOUND with TASK_NOT_FOUND', async () => {
    const { res, json } = await req('GET', '/tasks/missing');
    assert.equal(res.status, 404);
    assertEnvelope(json, 404, 'NOT_FOUND', 'TASK_NOT_FOUND');
  });

  test('D13: ErrorInfo metadata of an A2A error reaches the details', async () => {
    const { res, json } = await req('POST', '/message:send', message('throw:TaskNotFound'));
    assert.equal(res.status, 404);
    const error = assertEnvelope(json, 404, 'NOT_FOUND', 'TASK_NOT_FOUND');
    assert.deepEqual((error.details?.[0] as { metadata: unknown }).metadata, { taskId: 't-1' });
  });

  test('every A2A error an agent raises before its first event gets its HTTP status (send and stream)', async () => {
    for (const code of AGENT_RAISABLE_ERRORS) {
      for (const path of ['/message:send', '/message:stream']) {
        const { res, json, text } = await req('POST', path, message(`throw:${code}`));
        const row = errorRow(code);
        if (path === '/message:stream') {
          // The stream started (headers sent) before the agent's first event: the error is its
          // one event, the §11.6 envelope (G5).
          assert.equal(res.status, 200, `${path} ${code}`);
          assert.equal(res.headers.get('content-type'), 'text/event-stream', `${path} ${code}`);
          const events = text.split('\n\n').filter((block) => block.startsWith('data: '));
          assert.equal(events.length, 1, text);
          const error = assertEnvelope(
            JSON.parse(events[0]!.slice(6)),
            row.httpStatus,
            row.grpcStatus,
            row.reason,
          );
          assert.equal(error.message, `agent refused: ${code}`);
          continue;
        }
        assert.equal(res.status, row.httpStatus, `${path} ${code}`);
        assert.equal(res.headers.get('content-type'), 'application/a2a+json', `${path} ${code}`);
        const error = assertEnvelope(json, row.httpStatus, row.grpcStatus, row.reason);
        assert.equal(error.message, `agent refused: ${code}`);
      }
    }
  });

  test('an unexpected failure is 500 INTERNAL without leaking its message', async () => {
    const { res, json } = await req('GET', `/tasks/${CRASH_TASK_ID}`);
    assert.equal(res.status, 500);
    assertEnvelope(json, 500, 'INTERNAL');
    assert.doesNotMatch(JSON.stringify(json), /secret/);
  });

  test('SRV-SEND-9: a missing messageId is 400 naming the field', async () => {
    const { res, json } = await req('POST', '/message:send', {
      message: { role: 'ROLE_USER', parts: [{ text: 'x' }] },
    });
    assert.equal(res.status, 400);
    assert.match(assertEnvelope(json, 400, 'INVALID_ARGUMENT').message, /messageId/);
  });

  test('malformed JSON is 400 INVALID_ARGUMENT', async () => {
    const { res, json } = await req('POST', '/message:send', '{"message":');
    assert.equal(res.status, 400);
    assertEnvelope(json, 400, 'INVALID_ARGUMENT');
  });

  test('N14/D13: application/json requests get application/json answers; a2a+json otherwise', async () => {
    const plain = await req('GET', '/tasks/missing', undefined, {
      'a2a-version': '1.0',
      accept: 'application/json',
    });
    assert.equal(plain.res.headers.get('content-type'), 'application/json');
    const json = await req('POST', '/message:send', message('x'), {
      'content-type': 'application/json',
      'a2a-version': '1.0',
    });
    assert.equal(json.res.status, 200);
    assert.equal(json.res.headers.get('content-type'), 'application/json');
    const other = await req('POST', '/message:send', message('x'), {
      'content-type': 'application/problem+json; charset=utf-8',
    });
    assert.equal(other.res.status, 200);
    assert.equal(other.res.headers.get('content-type'), 'application/a2a+json');
  });

  test('a non-JSON body type is 415', async () => {
    const { res, json } = await req('POST', '/message:send', message('x'), { 'content-type': 'text/plain' });
    assert.equal(res.status, 415);
    assertEnvelope(json, 415, 'INVALID_ARGUMENT');
  });

  test('A2A-Version: missing is 1.0, 0.3 and others are VersionNotSupported 400', async () => {
    assert.equal((await req('GET', '/extendedAgentCard', undefined, {})).res.status, 200);
    for (const v of ['0.3', '1.1']) {
      const { res, json } = await req('GET', '/extendedAgentCard', undefined, { 'a2a-version': v });
      assert.equal(res.status, 400);
      const error = assertEnvelope(json, 400, 'FAILED_PRECONDITION', 'VERSION_NOT_SUPPORTED');
      assert.deepEqual((error.details?.[0] as { metadata: unknown }).metadata, { supportedVersions: '1.0' });
    }
    const query = await req('GET', '/extendedAgentCard?a2a-version=0.3', undefined, {});
    assert.equal(query.res.status, 400);
  });
});

describe('REST cancel and subscribe bodies (D1, SRV-REST-11)', () => {
  test('cancel accepts an empty body, {} and null; a different id is InvalidParams', async () => {
    const id = await newTask('', 'input');
    for (const body of [undefined, '{}', 'null']) {
      assert.equal((await req('POST', `/tasks/${id}:cancel`, body)).res.status, 200, String(body));
    }
    assert.equal((await req('POST', `/tasks/${id}:cancel`, { id: 'other' })).res.status, 400);
  });

  test('subscribe works with GET and POST; POST body id must match', async () => {
    const id = await newTask('', 'input');
    for (const [method, body] of [
      ['GET', undefined],
      ['POST', undefined],
      ['POST', '{}'],
      ['POST', 'null'],
      ['POST', { id }],
    ] as const) {
      const res = await fetch(`${root}/tasks/${id}:subscribe`, {
        method,
        headers: V1,
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      });
      assert.equal(res.status, 200, `${method} ${String(body)}`);
      assert.equal(res.headers.get('content-type'), 'text/event-stream');
      // The task waits for input, so the stream stays open after its first event: the snapshot.
      const first = await firstEvent(res);
      assertStreamResponse(first);
      assert.equal((first as StreamResponse).task?.id, id);
    }
    const bad = await req('POST', `/tasks/${id}:subscribe`, { id: 'other' });
    assert.equal(bad.res.status, 400);
  });

  test('push config create: a different body taskId is InvalidParams', async () => {
    const id = await newTask();
    const { res } = await req('POST', `/tasks/${id}/pushNotificationConfigs`, {
      url: 'https://x.example',
      taskId: 'zzz',
    });
    assert.equal(res.status, 400);
  });
});

describe('REST streaming', () => {
  test('SRV-REST-8: message:stream sends bare StreamResponses, in order', async () => {
    const res = await fetch(`${root}/message:stream`, {
      method: 'POST',
      headers: V1,
      body: JSON.stringify(message('stream:2')),
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-accel-buffering'), 'no');
    const events = (await sseEvents(res)) as StreamResponse[];
    assert.equal(events.length, 4);
    for (const e of events) assertStreamResponse(e);
    assert.deepEqual(
      events.map((e) => Object.keys(e)[0]),
      ['task', 'artifactUpdate', 'artifactUpdate', 'statusUpdate'],
    );
    assert.deepEqual(
      events.slice(1, 3).map((e) => e.artifactUpdate?.artifact.parts[0]?.text),
      ['chunk 1', 'chunk 2'],
    );
  });

  test('G5: an error after the start is one envelope event', async (t) => {
    const started = await startServer({
      handler: (card) =>
        new StreamFailsAfter(
          { executor: bindingTestAgent(), card },
          1,
          () => new UnsupportedOperationError('boom'),
        ),
    });
    t.after(started.close);
    const res = await fetch(`${started.root}/message:stream`, {
      method: 'POST',
      headers: V1,
      body: JSON.stringify(message('stream:3')),
    });
    const events = await sseEvents(res);
    assert.equal(events.length, 2);
    assertEnvelope(events[1], 400, 'FAILED_PRECONDITION', 'UNSUPPORTED_OPERATION');
  });

  test('G5: an error before the start is a plain error response', async () => {
    const res = await fetch(`${root}/tasks/missing:subscribe`, { method: 'POST', headers: V1 });
    assert.equal(res.status, 404);
    assert.equal(res.headers.get('content-type'), 'application/a2a+json');
    assertEnvelope(await res.json(), 404, 'NOT_FOUND', 'TASK_NOT_FOUND');
  });

  test('SRV-STREAM-7: a client going away stops the iteration; the task lives on', async (t) => {
    const bus = new CountingEventBus();
    const started = await startServer({
      handler: (card) => new DefaultRequestHandler({ executor: bindingTestAgent(), card, eventBus: bus }),
    });
    t.after(started.close);
    const controller = new AbortController();
    const res = await fetch(`${started.root}/message:stream`, {
      method: 'POST',
      headers: V1,
      body: JSON.stringify(message('hold')),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const taskId = (JSON.parse(first.slice(6)) as StreamResponse).task?.id ?? '';
    assert.equal(bus.subscriptions(taskId), 1);
    controller.abort();
    assert.ok(await eventually(() => bus.subscriptions(taskId) === 0), 'the stream was released');
    const task = await fetch(`${started.root}/tasks/${taskId}`, { headers: V1 });
    assert.equal(((await task.json()) as { status: { state: string } }).status.state, 'TASK_STATE_WORKING');
  });
});

describe('REST robustness', () => {
  /** `{"a":{"a":...1...}}`, `depth` levels deep, as JSON text (JSON.stringify of it would overflow). */
  function nested(depth: number): string {
    return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
  }

  test('a deeply nested value compared with the path is 400 INVALID_ARGUMENT, quoted by type only', async () => {
    const id = await newTask('', 'input');
    const msg = JSON.stringify(message('x').message);
    const cases: [string, string][] = [
      [`/tasks/${id}:cancel`, '{"id":%}'],
      [`/tasks/${id}:subscribe`, '{"id":%}'],
      ['/acme/message:send', `{"tenant":%,"message":${msg}}`],
      [`/tasks/${id}/pushNotificationConfigs`, '{"taskId":%,"url":"https://example.test/hook"}'],
    ];
    for (const depth of [1500, 5000]) {
      for (const [path, template] of cases) {
        const { res, text, json } = await req('POST', path, template.replace('%', nested(depth)));
        assert.equal(res.status, 400, `${path} at depth ${depth}: ${text.slice(0, 200)}`);
        assertEnvelope(json, 400, 'INVALID_ARGUMENT');
        assert.ok(text.length < 1000, `${path} at depth ${depth} echoed ${text.length} chars`);
      }
    }
  });

  test('error messages quote at most a bounded part of a long value', async () => {
    const long = 'x'.repeat(5000);
    const { res, text } = await req('POST', '/tasks/abc:cancel', { id: long });
    assert.equal(res.status, 400);
    assert.ok(text.length < 1000, `echoed ${text.length} chars`);
    const query = await req('GET', `/tasks?pageSize=${'9'.repeat(3000)}x`);
    assert.equal(query.res.status, 400);
    assert.ok(query.text.length < 1000, `echoed ${query.text.length} chars`);
  });

  test('HEAD on a GET route answers as GET without a body', async () => {
    const id = await newTask();
    for (const path of [`/tasks/${id}`, '/tasks', '/extendedAgentCard', `/tasks/${id}:subscribe`]) {
      const get = await fetch(root + path, { headers: V1 });
      await get.arrayBuffer();
      const head = await fetch(root + path, { method: 'HEAD', headers: V1 });
      assert.equal(head.status, get.status, path);
      assert.equal(head.headers.get('content-type'), get.headers.get('content-type'), path);
      assert.equal(await head.text(), '', path);
    }
    const missing = await fetch(`${root}/tasks/missing`, { method: 'HEAD', headers: V1 });
    assert.equal(missing.status, 404);
    const post = await fetch(`${root}/message:send`, { method: 'HEAD', headers: V1 });
    assert.equal(post.status, 405);
  });

  test('one trailing slash is ignored on every route', async () => {
    const sent = await req('POST', '/message:send/', message('hi'));
    assert.equal(sent.res.status, 200, sent.text);
    const id = (sent.json as { task: { id: string } }).task.id;
    assert.equal((await req('GET', `/tasks/${id}/`)).res.status, 200);
    assert.equal((await req('GET', '/tasks/')).res.status, 200);
    assert.equal((await req('GET', '/acme/tasks/')).res.status, 200);
  });
});
