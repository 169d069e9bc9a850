/**
 * Hosting: the card endpoint, startup validation, body limits, graceful close, Express
 * mounting, the fetch adapter and gRPC listing.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { A2AConfigError, createA2AServer, type A2AServerOptions } from '../../src/server/index.js';
import { DefaultRequestHandler } from '../../src/core/handler/default-handler.js';
import type { StreamResponse } from '../../src/model/schema.js';
import {
  CountingEventBus,
  TEST_CARD,
  deferred,
  describeEvent,
  eventually,
  testExecutor,
} from '../support/handler.js';
import { assertProtoJson } from '../support/oracle.js';

/** Starts a server around the real handler and `testExecutor` on 127.0.0.1:0; the caller closes it. */
async function startServer(options: Partial<A2AServerOptions> = {}) {
  const server = createA2AServer({
    agent: testExecutor,
    card: TEST_CARD,
    extendedCard: { ...TEST_CARD, name: 'test agent (extended)' },
    keepAliveMs: 60_000,
    onError: () => undefined,
    ...options,
  });
  const { url } = await server.listen(0, '127.0.0.1');
  return { server, url, close: () => server.close() };
}

describe('card endpoint (SRV-CARD)', () => {
  test('lists the real URLs, protocol 1.0 and true capabilities, with caching headers', async (t) => {
    // compatV03 off: the v0.3 entries and legacy fields are tested in test/bindings/compat-v03.
    const { url, close } = await startServer({ streaming: false, compatV03: false });
    t.after(close);
    const res = await fetch(`${url}/.well-known/agent-card.json`);
    assert.equal(res.status, 200);
    const card = (await res.json()) as Record<string, unknown>;
    assertProtoJson('AgentCard', card);
    assert.deepEqual(card.supportedInterfaces, [
      { url: `${url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${url}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ]);
    assert.deepEqual(card.capabilities, {
      streaming: false,
      pushNotifications: false,
      extendedAgentCard: true,
    });
    assert.deepEqual(card.defaultInputModes, ['text/plain']);
    assert.match(res.headers.get('cache-control') ?? '', /max-age=\d+/);
    const etag = res.headers.get('etag');
    assert.match(etag ?? '', /^"[A-Za-z0-9_-]+"$/);
    const again = await fetch(`${url}/.well-known/agent-card.json`, {
      headers: { 'if-none-match': etag as string },
    });
    assert.equal(again.status, 304);
    assert.equal(await again.text(), '');
    const changed = await fetch(`${url}/.well-known/agent-card.json`, {
      headers: { 'if-none-match': '"other"' },
    });
    assert.equal(changed.status, 200);
    await changed.text();
  });

  test('D25: no A2A-Version check on the card', async (t) => {
    const { url, close } = await startServer();
    t.after(close);
    const res = await fetch(`${url}/.well-known/agent-card.json`, { headers: { 'a2a-version': '9.9' } });
    assert.equal(res.status, 200);
    await res.text();
  });

  test('publicUrl is used for the interfaces', async (t) => {
    const { server, close } = await startServer({ publicUrl: 'https://agents.example.com/' });
    t.after(close);
    assert.equal(server.card().supportedInterfaces[0]?.url, 'https://agents.example.com/a2a/jsonrpc');
  });

  test('gRPC, when configured, is listed third as host:port', async (t) => {
    const server = createA2AServer({
      agent: testExecutor,
      card: TEST_CARD,
      grpc: { port: 0, host: '127.0.0.1' },
    });
    t.after(() => server.close());
    const info = await server.listen(0, '127.0.0.1');
    assert.ok(info.grpcPort && info.grpcPort > 0);
    const card = (await (await fetch(`${info.url}/.well-known/agent-card.json`)).json()) as {
      supportedInterfaces: { url: string; protocolBinding: string; protocolVersion: string }[];
    };
    assert.deepEqual(
      card.supportedInterfaces.filter((i) => i.protocolVersion === '1.0').map((i) => i.protocolBinding),
      ['JSONRPC', 'HTTP+JSON', 'GRPC'],
    );
    assert.equal(card.supportedInterfaces[2]?.url, `127.0.0.1:${info.grpcPort}`);
  });
});

describe('startup validation', () => {
  const bad: [string, Record<string, unknown>, RegExp][] = [
    ['no skills', { skills: [] }, /skills/],
    ['a skill without tags', { skills: [{ id: 'a', name: 'A', description: 'a', tags: [] }] }, /tags/],
    ['empty input modes', { defaultInputModes: [] }, /defaultInputModes/],
    ['a missing name', { name: undefined }, /name/],
    ['capabilities that would lie', { capabilities: { streaming: true } }, /capabilities/],
    ['hand-written interfaces', { supportedInterfaces: [] }, /supportedInterfaces/],
  ];
  for (const [what, change, message] of bad) {
    test(`a card with ${what} makes createA2AServer throw`, () => {
      assert.throws(
        () => createA2AServer({ agent: testExecutor, card: { ...TEST_CARD, ...change } as typeof TEST_CARD }),
        message,
      );
    });
  }

  test('an invalid publicUrl throws', () => {
    assert.throws(
      () => createA2AServer({ agent: testExecutor, card: TEST_CARD, publicUrl: 'not a url' }),
      /publicUrl/,
    );
  });

  test('configuration errors carry stable codes', () => {
    const codeOf = (make: () => unknown): string | undefined => {
      try {
        make();
      } catch (error) {
        assert.ok(error instanceof A2AConfigError, String(error));
        return error.code;
      }
      assert.fail('expected a configuration error');
    };
    assert.equal(
      codeOf(() => createA2AServer({ agent: testExecutor, card: TEST_CARD, publicUrl: 'ftp://x' })),
      'A2A_CONFIG_INVALID_OPTION',
    );
    assert.equal(
      codeOf(() => createA2AServer({ agent: testExecutor, card: TEST_CARD, store: 'sqlite' as 'memory' })),
      'A2A_CONFIG_INVALID_OPTION',
    );
    assert.equal(
      codeOf(() => createA2AServer({ agent: testExecutor, card: { ...TEST_CARD, skills: [] } })),
      'A2A_CONFIG_INVALID_CARD',
    );
  });
});

describe('body limit', () => {
  test('a chunked body is cut off as soon as it passes the limit (413)', async (t) => {
    const { url, close } = await startServer({ bodyLimit: 1024 });
    t.after(close);
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${url}/a2a/rest/message:send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.write('{"message":"' + 'x'.repeat(2048));
      // Never finished: the server must answer without waiting for the end.
    });
    assert.equal(status, 413);
  });

  test('a declared Content-Length over the limit is refused before reading', async (t) => {
    const { url, close } = await startServer({ bodyLimit: 1024 });
    t.after(close);
    const res = await fetch(`${url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: 'x'.repeat(4096),
    });
    assert.equal(res.status, 413);
    assert.equal(((await res.json()) as { error: { code: number } }).error.code, -32600);
  });
});

describe('graceful close', () => {
  test('close() ends open streams cleanly and stops their iteration', async () => {
    const bus = new CountingEventBus();
    const { url, close } = await startServer({
      handler: (card) => new DefaultRequestHandler({ executor: testExecutor, card, eventBus: bus }),
    });
    const res = await fetch(`${url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendStreamingMessage',
        params: { message: { messageId: 'h', role: 'ROLE_USER', parts: [{ text: 'hold' }] } },
      }),
    });
    const reader = res.body!.getReader();
    await reader.read();
    assert.equal(bus.total, 1);
    await close();
    let done = false;
    for (let i = 0; i < 100 && !done; i++) done = (await reader.read()).done;
    assert.ok(done, 'the stream ended');
    assert.equal(bus.total, 0, 'the stream was released');
  });

  test('close() waits for an in-flight response', async () => {
    const started = deferred();
    const release = deferred();
    const { url, close } = await startServer({
      agent: async (_ctx, task) => {
        started.resolve();
        await release.promise;
        await task.complete('done');
      },
    });
    const answered = fetch(`${url}/a2a/rest/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: { messageId: 'w', role: 'ROLE_USER', parts: [{ text: 'wait' }] } }),
    }).then((r) => r.status);
    await started.promise;
    const closed = close();
    release.resolve();
    assert.equal(await answered, 200);
    await closed;
  });
});

describe('adapters', () => {
  test('nodeHandler mounts in Express and passes other paths on', async (t) => {
    const a2a = createA2AServer({
      agent: testExecutor,
      card: TEST_CARD,
      extendedCard: { ...TEST_CARD, name: 'test agent (extended)' },
    });
    const app = express();
    app.use(a2a.nodeHandler);
    app.get('/health', (_req, res) => {
      res.send('ok');
    });
    const http = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => http.once('listening', () => resolve()));
    t.after(async () => {
      await a2a.close();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    });
    const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    assert.equal(await (await fetch(`${base}/health`)).text(), 'ok');
    const card = (await (await fetch(`${base}/.well-known/agent-card.json`)).json()) as {
      supportedInterfaces: { url: string }[];
    };
    assert.equal(card.supportedInterfaces[0]?.url, `${base}/a2a/jsonrpc`);
    const rpc = await fetch(`${base}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetExtendedAgentCard' }),
    });
    assertProtoJson('AgentCard', ((await rpc.json()) as { result: unknown }).result);
  });

  test('fetch() serves unary calls, SSE and the card', async (t) => {
    const a2a = createA2AServer({ agent: testExecutor, card: TEST_CARD });
    t.after(() => a2a.close());
    const card = await a2a.fetch(new Request('https://edge.example/.well-known/agent-card.json'));
    assert.equal(card.status, 200);
    const json = (await card.json()) as { supportedInterfaces: { url: string }[] };
    assert.equal(json.supportedInterfaces[1]?.url, 'https://edge.example/a2a/rest');
    const send = await a2a.fetch(
      new Request('https://edge.example/a2a/rest/message:send', {
        method: 'POST',
        headers: { 'content-type': 'application/a2a+json' },
        body: JSON.stringify({ message: { messageId: 'f', role: 'ROLE_USER', parts: [{ text: 'x' }] } }),
      }),
    );
    assert.equal(send.status, 200);
    assertProtoJson('SendMessageResponse', await send.json());
    const stream = await a2a.fetch(
      new Request('https://edge.example/a2a/rest/message:stream', {
        method: 'POST',
        headers: { 'content-type': 'application/a2a+json' },
        body: JSON.stringify({ message: { messageId: 'g', role: 'ROLE_USER', parts: [{ text: 'x' }] } }),
      }),
    );
    assert.equal(stream.headers.get('content-type'), 'text/event-stream');
    const frames = (await stream.text()).split('\n\n').filter((b) => b.startsWith('data: '));
    const events = frames.map((f) => describeEvent(JSON.parse(f.slice(6)) as StreamResponse));
    assert.equal(events.length, 3);
    assert.equal(events[0], 'task:WORKING');
    assert.match(events[1] ?? '', /^artifact:/);
    assert.equal(events[2], 'status:COMPLETED');
    const missing = await a2a.fetch(new Request('https://edge.example/elsewhere'));
    assert.equal(missing.status, 404);
    await missing.text();
  });
});

describe('hosting robustness', () => {
  test('SRV-CARD (spec 8.6.1): Last-Modified is stable and If-Modified-Since is honoured', async (t) => {
    const { url, close } = await startServer();
    t.after(close);
    const cardUrl = `${url}/.well-known/agent-card.json`;
    const first = await fetch(cardUrl);
    await first.arrayBuffer();
    const lastModified = first.headers.get('last-modified');
    assert.ok(lastModified, 'Last-Modified is sent');
    assert.ok(Date.parse(lastModified) <= Date.now());
    const second = await fetch(cardUrl, { method: 'HEAD' });
    assert.equal(second.headers.get('last-modified'), lastModified);
    const notModified = await fetch(cardUrl, { headers: { 'if-modified-since': lastModified } });
    assert.equal(notModified.status, 304);
    assert.equal(notModified.headers.get('last-modified'), lastModified);
    assert.equal(await notModified.text(), '');
    const older = new Date(Date.parse(lastModified) - 60_000).toUTCString();
    const modified = await fetch(cardUrl, { headers: { 'if-modified-since': older } });
    assert.equal(modified.status, 200);
    await modified.arrayBuffer();
    // If-None-Match wins over If-Modified-Since (RFC 9110 13.1.3).
    const etagWins = await fetch(cardUrl, {
      headers: { 'if-none-match': '"other"', 'if-modified-since': lastModified },
    });
    assert.equal(etagWins.status, 200);
    await etagWins.arrayBuffer();
  });

  test('a trailing slash is accepted on the JSON-RPC endpoint and the card', async (t) => {
    const { url, close } = await startServer();
    t.after(close);
    const res = await fetch(`${url}/a2a/jsonrpc/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetExtendedAgentCard', params: {} }),
    });
    assert.equal(res.status, 200);
    assert.match(await res.text(), /"result"/);
    const card = await fetch(`${url}/.well-known/agent-card.json/`);
    assert.equal(card.status, 200);
    await card.arrayBuffer();
  });

  test('a client that aborts mid-body is not reported as a server error', async (t) => {
    const errors: unknown[] = [];
    const a2a = createA2AServer({ agent: testExecutor, card: TEST_CARD, onError: (e) => errors.push(e) });
    let served = deferred();
    let received = deferred();
    const http = createServer((req, res) => {
      let closes = 0;
      const closed = (): void => {
        // Both ends closed: the binding's read has failed; let its promise chain run out.
        if (++closes === 2) setImmediate(() => setImmediate(() => served.resolve()));
      };
      req.on('close', closed);
      res.on('close', closed);
      a2a.nodeHandler(req, res);
      // The binding reads the body by now (its listeners attach synchronously).
      received.resolve();
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    t.after(async () => {
      await a2a.close();
      await new Promise((resolve) => http.close(resolve));
    });
    const port = (http.address() as AddressInfo).port;
    for (const path of ['/a2a/jsonrpc', '/a2a/rest/message:send']) {
      served = deferred();
      received = deferred();
      const socket = connect(port, '127.0.0.1');
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"jsonrpc":`,
      );
      await received.promise;
      socket.destroy();
      await served.promise;
      assert.deepEqual(errors, [], path);
    }
  });

  test('a blocking SendMessage stops waiting when the client goes away; the task completes', async (t) => {
    const bus = new CountingEventBus();
    const gates: ReturnType<typeof deferred<void>>[] = [];
    const started: string[] = [];
    const server = createA2AServer({
      agent: testExecutor,
      card: TEST_CARD,
      onError: () => undefined,
      handler: (card) =>
        new DefaultRequestHandler({
          card,
          eventBus: bus,
          executor: {
            async execute(ctx, task) {
              await task.working();
              const gate = deferred();
              gates.push(gate);
              started.push(ctx.taskId);
              await gate.promise;
              await task.complete('late');
            },
          },
        }),
    });
    const { url } = await server.listen(0, '127.0.0.1');
    t.after(() => {
      for (const gate of gates) gate.resolve();
      return server.close();
    });
    const headers = { 'content-type': 'application/json', 'a2a-version': '1.0' };
    const message = () => ({ messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text: 'slow' }] });
    const calls = [
      {
        path: '/a2a/jsonrpc',
        body: () => ({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: message() } }),
      },
      { path: '/a2a/rest/message:send', body: () => ({ message: message() }) },
    ];
    for (const [i, call] of calls.entries()) {
      const controller = new AbortController();
      const pending = fetch(url + call.path, {
        method: 'POST',
        headers,
        body: JSON.stringify(call.body()),
        signal: controller.signal,
      }).catch((error: unknown) => error);
      assert.ok(await eventually(() => started.length === i + 1 && bus.total === 1), `${call.path}: waiting`);
      controller.abort();
      assert.ok(await eventually(() => bus.total === 0), `${call.path}: the waiter let go`);
      const taskId = started[i] as string;
      gates[i]?.resolve();
      let state = '';
      for (let n = 0; n < 300 && state !== 'TASK_STATE_COMPLETED'; n++) {
        const res = await fetch(`${url}/a2a/rest/tasks/${taskId}`, { headers });
        state = ((await res.json()) as { status: { state: string } }).status.state;
        if (state !== 'TASK_STATE_COMPLETED') await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assert.equal(state, 'TASK_STATE_COMPLETED', `${call.path}: the task ran on`);
      await pending;
    }
  });
});
