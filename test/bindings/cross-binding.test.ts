/**
 * What must be the same on JSON-RPC, REST and gRPC, over real sockets: where a request's
 * `tenant` lands (spec 11.3, G8) and which extensions the agent activated (echoed in
 * A2A-Extensions, gRPC response metadata), on unary calls and streams.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { Client, credentials, Metadata } from '@grpc/grpc-js';
import { GrpcTransport } from '../../src/bindings/grpc/client.js';
import { GRPC_METHODS } from '../../src/bindings/grpc/service.js';
import { encodeMessage } from '../../src/bindings/grpc/encode.js';
import type { SendMessageRequest } from '../../src/model/schema.js';
import { createA2AServer, type A2AServer } from '../../src/server/index.js';
import type { AgentExecutor } from '../../src/core/executor.js';
import { TEST_CARD } from '../support/handler.js';

const EXT = 'https://example.test/ext/optional/v1';
const EXT_UNREQUESTED = 'https://example.test/ext/other/v1';
const EXT_UNDECLARED = 'https://unknown.test/ext';

/** What each execution's activateExtension calls returned: [requested+declared, undeclared, unrequested]. */
const activations: boolean[][] = [];

const agent: AgentExecutor = {
  async execute(ctx, task) {
    activations.push([
      ctx.activateExtension(EXT),
      ctx.activateExtension(EXT_UNDECLARED),
      ctx.activateExtension(EXT_UNREQUESTED),
    ]);
    await task.working();
    await task.complete(`tenant=${ctx.tenant}`);
  },
};

const V1 = { 'content-type': 'application/json', 'a2a-version': '1.0' };
const ASKED = `${EXT}, ${EXT_UNDECLARED}`;

function send(text: string, extra: Partial<SendMessageRequest> = {}): SendMessageRequest {
  return { message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }] }, ...extra };
}

let server: A2AServer;
let base: string;
let grpcTarget: string;

before(async () => {
  server = createA2AServer({
    agent,
    card: { ...TEST_CARD, extensions: [{ uri: EXT }, { uri: EXT_UNREQUESTED }] },
    grpc: { port: 0, host: '127.0.0.1' },
    keepAliveMs: 60_000,
    onError: () => undefined,
  });
  const info = await server.listen(0, '127.0.0.1');
  base = info.url;
  grpcTarget = `127.0.0.1:${info.grpcPort}`;
});
after(() => server.close());

async function rpc(method: string, params: unknown, headers: Record<string, string> = V1) {
  const res = await fetch(`${base}/a2a/jsonrpc`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return { res, text: await res.text() };
}

async function rest(method: string, path: string, body?: unknown, headers: Record<string, string> = V1) {
  const res = await fetch(`${base}/a2a/rest${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { res, text: await res.text() };
}

const identity = (b: Buffer): Buffer => b;

/** A raw gRPC call; resolves with the response metadata once the call is over. */
function grpcCall(method: 'SendMessage' | 'SendStreamingMessage', request: unknown, metadata: Metadata) {
  const m = GRPC_METHODS[method];
  const bytes = Buffer.from(encodeMessage(m.input, request));
  const client = new Client(grpcTarget, credentials.createInsecure());
  const path = `/lf.a2a.v1.A2AService/${method}`;
  return new Promise<{ headers: Metadata | undefined; error: Error | null; messages: number }>((resolve) => {
    let headers: Metadata | undefined;
    if (method === 'SendMessage') {
      const call = client.makeUnaryRequest(path, identity, identity, bytes, metadata, (error) => {
        client.close();
        resolve({ headers, error, messages: 1 });
      });
      call.on('metadata', (md: Metadata) => (headers = md));
      return;
    }
    const call = client.makeServerStreamRequest(path, identity, identity, bytes, metadata);
    let messages = 0;
    call.on('metadata', (md: Metadata) => (headers = md));
    call.on('data', () => messages++);
    call.on('error', (error: Error) => {
      client.close();
      resolve({ headers, error, messages });
    });
    call.on('end', () => {
      client.close();
      resolve({ headers, error: null, messages });
    });
  });
}

describe('SRV-EXT: extensions the agent activates are echoed on every binding', () => {
  const asked = { ...V1, 'a2a-extensions': ASKED };

  test('JSON-RPC SendMessage and SendStreamingMessage', async () => {
    activations.length = 0;
    const unary = await rpc('SendMessage', send('hi'), asked);
    assert.equal(unary.res.status, 200, unary.text);
    assert.equal(unary.res.headers.get('a2a-extensions'), EXT);
    const stream = await rpc('SendStreamingMessage', send('hi'), asked);
    assert.equal(stream.res.headers.get('content-type'), 'text/event-stream');
    assert.equal(stream.res.headers.get('a2a-extensions'), EXT);
    assert.match(stream.text, /TASK_STATE_COMPLETED/);
    assert.deepEqual(activations, [
      [true, false, false],
      [true, false, false],
    ]);
  });

  test('REST message:send and message:stream', async () => {
    activations.length = 0;
    const unary = await rest('POST', '/message:send', send('hi'), asked);
    assert.equal(unary.res.status, 200, unary.text);
    assert.equal(unary.res.headers.get('a2a-extensions'), EXT);
    const stream = await rest('POST', '/message:stream', send('hi'), asked);
    assert.equal(stream.res.headers.get('a2a-extensions'), EXT);
    assert.match(stream.text, /TASK_STATE_COMPLETED/);
    assert.deepEqual(activations, [
      [true, false, false],
      [true, false, false],
    ]);
  });

  test('gRPC SendMessage and SendStreamingMessage (response metadata)', async () => {
    activations.length = 0;
    const md = new Metadata();
    md.set('a2a-extensions', ASKED);
    const unary = await grpcCall('SendMessage', send('hi'), md);
    assert.equal(unary.error, null);
    assert.deepEqual(unary.headers?.get('a2a-extensions'), [EXT]);
    const stream = await grpcCall('SendStreamingMessage', send('hi'), md);
    assert.equal(stream.error, null);
    assert.ok(stream.messages >= 2);
    assert.deepEqual(stream.headers?.get('a2a-extensions'), [EXT]);
    assert.deepEqual(activations, [
      [true, false, false],
      [true, false, false],
    ]);
  });

  test('nothing requested: nothing activated, no header', async () => {
    activations.length = 0;
    const unary = await rest('POST', '/message:send', send('hi'));
    assert.equal(unary.res.headers.get('a2a-extensions'), null);
    assert.deepEqual(activations, [[false, false, false]]);
  });
});

describe('G8, spec 11.3: a request lands in the same tenant on every binding', () => {
  async function taskIdOf(text: string): Promise<string> {
    return (JSON.parse(text) as { task: { id: string } }).task.id;
  }

  test('REST takes the body tenant when the path has none (as JSON-RPC params.tenant)', async () => {
    const sent = await rest('POST', '/message:send', { ...send('hi'), tenant: 'acme' });
    assert.equal(sent.res.status, 200, sent.text);
    assert.match(sent.text, /tenant=acme/);
    const id = await taskIdOf(sent.text);
    const viaPath = await rest('GET', `/acme/tasks/${id}`);
    assert.equal(viaPath.res.status, 200, viaPath.text);
    const viaQuery = await rest('GET', `/tasks/${id}?tenant=acme`);
    assert.equal(viaQuery.res.status, 200, viaQuery.text);
    const viaRpc = await rpc('GetTask', { id, tenant: 'acme' });
    assert.match(viaRpc.text, /"result"/);
    const elsewhere = await rest('GET', `/tasks/${id}`);
    assert.equal(elsewhere.res.status, 404);
    const canceled = await rest('POST', `/tasks/${id}:cancel`, { tenant: 'acme' });
    assert.match(canceled.text, /TaskNotCancelable|TASK_NOT_CANCELABLE/);
  });

  test('JSON-RPC and gRPC tasks are found under the same REST tenant path', async () => {
    const viaRpc = await rpc('SendMessage', { ...send('hi'), tenant: 'acme' });
    const rpcId = (JSON.parse(viaRpc.text) as { result: { task: { id: string } } }).result.task.id;
    assert.equal((await rest('GET', `/acme/tasks/${rpcId}`)).res.status, 200);
    const grpc = new GrpcTransport(`grpc://${grpcTarget}`);
    try {
      const res = await grpc.sendMessage({ ...send('hi'), tenant: 'acme' });
      assert.ok('task' in res && res.task);
      assert.equal((await rest('GET', `/acme/tasks/${res.task.id}`)).res.status, 200);
      assert.equal((await rest('GET', `/tasks/${res.task.id}`)).res.status, 404);
    } finally {
      await grpc.close();
    }
  });

  test('a body or query tenant that differs from the path is InvalidParams 400', async () => {
    const body = await rest('POST', '/other/message:send', { ...send('hi'), tenant: 'acme' });
    assert.equal(body.res.status, 400);
    const query = await rest('GET', '/other/tasks?tenant=acme');
    assert.equal(query.res.status, 400);
  });
});

describe('SRV-VER: repeated A2A-Version header lines', () => {
  /** A POST with the given A2A-Version header lines (node sends an array as repeated lines). */
  function post(path: string, body: unknown, versions: string[]): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        `${base}${path}`,
        { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': versions } },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });
  }

  test('identical repeats mean that version on every binding; different values are refused', async () => {
    const rpcBody = { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: send('hi') };
    const sameRpc = await post('/a2a/jsonrpc', rpcBody, ['1.0', '1.0']);
    assert.match(sameRpc.text, /"result"/);
    const sameRest = await post('/a2a/rest/message:send', send('hi'), ['1.0', '1.0']);
    assert.equal(sameRest.status, 200, sameRest.text);
    const md = new Metadata();
    md.add('a2a-version', '1.0');
    md.add('a2a-version', '1.0');
    const sameGrpc = await grpcCall('SendMessage', send('hi'), md);
    assert.equal(sameGrpc.error, null);

    const differentRpc = await post('/a2a/jsonrpc', rpcBody, ['1.0', '0.3']);
    assert.match(differentRpc.text, /VersionNotSupported|VERSION_NOT_SUPPORTED/);
    const differentRest = await post('/a2a/rest/message:send', send('hi'), ['1.0', '0.3']);
    assert.equal(differentRest.status, 400);
    const mixed = new Metadata();
    mixed.add('a2a-version', '1.0');
    mixed.add('a2a-version', '0.3');
    const differentGrpc = await grpcCall('SendMessage', send('hi'), mixed);
    assert.ok(differentGrpc.error);
  });
});
