/**
 * REST binding over real sockets, with a stub RequestHandler (SRV-REST-*, D1, D13, G8, N14).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertProtoJson, assertStreamResponse } from '../../support/oracle.js';
import { startStubServer, type StubHandler } from '../../support/stub-handler.js';

let root: string;
let stub: StubHandler;
let close: () => Promise<void>;

before(async () => {
  const started = await startStubServer();
  root = `${started.url}/a2a/rest`;
  stub = started.stub;
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
  return { res, text, json: text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>) };
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

async function newTask(prefix = ''): Promise<string> {
  const { json } = await req('POST', `${prefix}/message:send`, message('hi'));
  return (json as { task: { id: string } }).task.id;
}

describe('REST routes', () => {
  test('SRV-REST-5: every operation answers its proto message', async () => {
    const send = await req('POST', '/message:send', message('hello'));
    assert.equal(send.res.status, 200);
    assert.equal(send.res.headers.get('content-type'), 'application/a2a+json');
    assertProtoJson('SendMessageResponse', send.json);
    const id = (send.json as { task: { id: string } }).task.id;

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
    await req(
      'GET',
      '/tasks?context_id=c1&page_size=7&includeArtifacts=true&status=TASK_STATE_WORKING&A2A-Version=1.0',
    );
    assert.deepEqual(stub.calls.at(-1)?.request, {
      contextId: 'c1',
      pageSize: 7,
      includeArtifacts: true,
      status: 'TASK_STATE_WORKING',
    });
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
    const { json } = await req('GET', '/tasks?pageToken=bad');
    const error = assertEnvelope(json, 400, 'INVALID_ARGUMENT');
    assert.ok(error.details?.some((d) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest'));
  });

  test('G8: tenant prefixes route and reach the context; non-tenant routes win', async () => {
    const id = await newTask('/acme');
    assert.equal(stub.calls.at(-1)?.ctx.tenant, 'acme');
    assert.equal((stub.calls.at(-1)?.request as { tenant: string }).tenant, 'acme');
    await req('GET', `/acme/tasks/${id}`);
    assert.equal(stub.calls.at(-1)?.op, 'getTask');
    assert.equal(stub.calls.at(-1)?.ctx.tenant, 'acme');
    await req('GET', '/tasks/tasks');
    assert.equal(stub.calls.at(-1)?.op, 'getTask');
    assert.equal((stub.calls.at(-1)?.request as { id: string }).id, 'tasks');
    await req('GET', '/acme/tasks');
    assert.equal(stub.calls.at(-1)?.op, 'listTasks');
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
    assert.equal(wrong.res.headers.get('allow'), 'GET');
    const wrongSend = await req('GET', '/message:send');
    assert.equal(wrongSend.res.status, 405);
  });

  test('D25: there is no GetAgentCard route', async () => {
    assert.equal((await req('GET', '/card')).res.status, 404);
  });

  test('D13: an unknown task is 404 NOT_FOUND with TASK_NOT_FOUND', async () => {
    const { res, json } = await req('GET', '/tasks/missing');
    assert.equal(res.status, 404);
    const error = assertEnvelope(json, 404, 'NOT_FOUND', 'TASK_NOT_FOUND');
    assert.deepEqual((error.details?.[0] as { metadata: unknown }).metadata, { taskId: 'missing' });
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
    const id = await newTask();
    for (const body of [undefined, '{}', 'null']) {
      assert.equal((await req('POST', `/tasks/${id}:cancel`, body)).res.status, 200, String(body));
    }
    assert.equal((await req('POST', `/tasks/${id}:cancel`, { id: 'other' })).res.status, 400);
  });

  test('subscribe works with GET and POST; POST body id must match', async () => {
    const id = await newTask();
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
      const events = await sseEvents(res);
      assert.equal(events.length, 1);
      assertStreamResponse(events[0]);
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
      body: JSON.stringify(message('s')),
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-accel-buffering'), 'no');
    const events = (await sseEvents(res)) as Record<string, unknown>[];
    assert.equal(events.length, 4);
    for (const e of events) assertStreamResponse(e);
  });

  test('G5: an error after the start is one envelope event', async () => {
    const res = await fetch(`${root}/message:stream`, {
      method: 'POST',
      headers: V1,
      body: JSON.stringify(message('boom')),
    });
    const events = await sseEvents(res);
    assert.equal(events.length, 2);
    assertEnvelope(events[1], 400, 'FAILED_PRECONDITION', 'UNSUPPORTED_OPERATION');
  });

  test('G5: an error before the start is a plain error response', async () => {
    const res = await fetch(`${root}/tasks/missing:subscribe`, { method: 'POST', headers: V1 });
    assert.equal(res.status, 404);
    assertEnvelope(await res.json(), 404, 'NOT_FOUND', 'TASK_NOT_FOUND');
  });
});
