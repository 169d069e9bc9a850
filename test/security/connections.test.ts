/**
 * Issue 27: connections that never speak, or speak and then sit, are closed within a bound on
 * both listeners, and connections past the caps are refused, while an authenticated client
 * keeps working. gRPC: raw TCP sockets that send nothing, sockets that send the HTTP/2 preface
 * and nothing more, HTTP/2 sessions that open no stream, a session idle after its call, over
 * plaintext and TLS. HTTP: silent sockets, idle keep-alive, SSE streams of anonymous callers.
 * Attackers connect from other loopback addresses (127.0.0.2, ...), so that per-address caps
 * apply to them and not to the authenticated client on 127.0.0.1. Every wait is bounded.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest, type ClientRequest } from 'node:http';
import { connect as http2Connect, type ClientHttp2Session } from 'node:http2';
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { credentials as grpcCredentials } from '@grpc/grpc-js';
import { GrpcTransport } from '../../src/bindings/grpc/client.js';
import { createApiKeyAuthenticator } from '../../src/server/auth/index.js';
import { createA2AServer, type A2AServer } from '../../src/server/http.js';
import type { StreamResponse } from '../../src/model/schema.js';
import { hasOpenssl, makePki } from '../support/pki.js';

const card = {
  name: 'connections',
  description: 'Bounds its connections',
  version: '1.0.0',
  skills: [{ id: 's', name: 'S', description: 'S', tags: ['t'] }],
};
const KEY = 'k-1';
const PREFACE = Buffer.concat([
  Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'),
  Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]), // an empty SETTINGS frame
]);
const message = (text: string) => ({
  message: { messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text }] },
});

/** A raw TCP connection from `localAddress`: the bytes it received, and when it closed. */
interface Probe {
  socket: Socket;
  received: () => number;
  closed: Promise<void>;
  isClosed: () => boolean;
}

function probe(port: number, localAddress: string, send?: Buffer): Promise<Probe> {
  return new Promise((resolve, reject) => {
    let received = 0;
    let closed = false;
    const socket = netConnect({ port, host: '127.0.0.1', localAddress });
    socket.on('data', (chunk: Buffer) => (received += chunk.length));
    socket.on('error', () => undefined);
    const done = new Promise<void>((r) => socket.once('close', () => ((closed = true), r())));
    socket.once('connect', () => {
      if (send) socket.write(send);
      resolve({ socket, received: () => received, closed: done, isClosed: () => closed });
    });
    socket.once('error', reject);
  });
}

/** An HTTP/2 session to the gRPC port from `localAddress`. */
function h2From(port: number, localAddress: string): ClientHttp2Session {
  return http2Connect(`http://127.0.0.1:${port}`, {
    createConnection: () => netConnect({ port, host: '127.0.0.1', localAddress }),
  });
}

/** Resolves when `promise` does; rejects (the bound failed) after `ms`. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  return Promise.race([promise, bound]).finally(() => clearTimeout(timer));
}

/** Waits (bounded) until `check` holds. */
async function eventually(check: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A server-admitted probe gets the server's SETTINGS; a refused one is closed with nothing. */
async function admitted(p: Probe): Promise<boolean> {
  await eventually(() => p.received() > 0 || p.isClosed(), 5_000, 'an answer or a close');
  return p.received() > 0;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('gRPC listener: connections are bounded in time and number', () => {
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  let server: A2AServer;
  let grpcPort: number;
  let client: GrpcTransport;
  const FIRST_CALL_MS = 300;
  const IDLE_MS = 3_000;
  before(async () => {
    server = createA2AServer({
      agent: async (ctx, task) => {
        if (ctx.text === 'hold') {
          await task.working('holding');
          await held;
        }
        return task.complete('ok');
      },
      card,
      store: 'memory',
      grpc: {
        port: 0,
        host: '127.0.0.1',
        firstCallTimeoutMs: FIRST_CALL_MS,
        idleTimeoutMs: IDLE_MS,
        maxConnectionsPerAddress: 12,
      },
      security: { authenticators: [createApiKeyAuthenticator({ keys: { [KEY]: 'alice' } })] },
    });
    grpcPort = (await server.listen(0, '127.0.0.1')).grpcPort!;
    client = new GrpcTransport(`127.0.0.1:${grpcPort}`, { headers: { 'x-api-key': KEY } });
  });
  after(async () => {
    release();
    client.close();
    await server.close();
  });

  test('silent, preface-only and stream-less connections are closed; past the per-address cap refused; a keyed client works throughout', async (t) => {
    // The keyed client's stream opens first and stays open past every bound below.
    const stream = client.sendStreamingMessage(message('hold'))[Symbol.asyncIterator]();
    const first = await within(stream.next(), 10_000, 'the first event of the keyed stream');
    assert.ok(!first.done && 'task' in first.value);

    const silent = await Promise.all(Array.from({ length: 4 }, () => probe(grpcPort, '127.0.0.2')));
    const preface = await Promise.all(Array.from({ length: 4 }, () => probe(grpcPort, '127.0.0.2', PREFACE)));
    const sessions: ClientHttp2Session[] = [];
    t.after(() => sessions.forEach((s) => s.destroy()));
    for (let i = 0; i < 4; i++) {
      const session = h2From(grpcPort, '127.0.0.2');
      session.on('error', () => undefined);
      sessions.push(session);
      await within(new Promise((r) => session.once('remoteSettings', r)), 5_000, 'HTTP/2 settings');
    }
    const probes = [...silent, ...preface];
    t.after(() => probes.forEach((p) => p.socket.destroy()));
    for (const p of probes) assert.equal(await admitted(p), true, 'within the cap: admitted');

    // 12 connections from 127.0.0.2 are open: the next ones from there are refused at once.
    const extra = await Promise.all(Array.from({ length: 3 }, () => probe(grpcPort, '127.0.0.2')));
    t.after(() => extra.forEach((p) => p.socket.destroy()));
    for (const p of extra) assert.equal(await admitted(p), false, 'past the per-address cap: refused');
    // Another address has its own count.
    const other = await probe(grpcPort, '127.0.0.3');
    t.after(() => other.socket.destroy());
    assert.equal(await admitted(other), true);

    // The keyed client is served meanwhile.
    for (let i = 0; i < 3; i++) assert.ok(Array.isArray((await client.listTasks({})).tasks));

    // Every connection without a call is closed by the first-call bound (well before idle).
    await within(Promise.all([...probes, other].map((p) => p.closed)), 10_000, 'closing the probes');
    await within(
      Promise.all(sessions.map((s) => new Promise((r) => (s.closed ? r(null) : s.once('close', r))))),
      10_000,
      'closing the HTTP/2 sessions',
    );
    // Their counts are released: 127.0.0.2 is admitted again.
    const again = await probe(grpcPort, '127.0.0.2');
    t.after(() => again.socket.destroy());
    assert.equal(await admitted(again), true);

    // The keyed stream outlived all of it and ends when the agent does.
    release();
    const rest: StreamResponse[] = [];
    for (let next = await stream.next(); !next.done; next = await stream.next()) rest.push(next.value);
    assert.match(JSON.stringify(rest.at(-1)), /TASK_STATE_COMPLETED/);
    assert.ok(Array.isArray((await client.listTasks({})).tasks));
  });

  test('a session that made a call is closed by the idle timeout, not the first-call bound', async (t) => {
    const session = h2From(grpcPort, '127.0.0.4');
    session.on('error', () => undefined);
    t.after(() => session.destroy());
    const closed = new Promise((r) => session.once('close', r));
    // A call without a key: refused (UNAUTHENTICATED), but a call all the same.
    const status = await within(
      new Promise<string | undefined>((resolve) => {
        const req = session.request({
          ':method': 'POST',
          ':path': '/lf.a2a.v1.A2AService/ListTasks',
          'content-type': 'application/grpc',
          te: 'trailers',
        });
        let grpcStatus: string | undefined;
        req.on('response', (h) => (grpcStatus ??= h['grpc-status'] as string | undefined));
        req.on('trailers', (h) => (grpcStatus ??= h['grpc-status'] as string | undefined));
        req.on('error', () => undefined);
        req.on('close', () => resolve(grpcStatus));
        req.end(Buffer.from([0, 0, 0, 0, 0]));
      }),
      5_000,
      'the answer to the call',
    );
    assert.equal(status, '16'); // UNAUTHENTICATED
    await sleep(FIRST_CALL_MS * 3);
    assert.equal(session.closed || session.destroyed, false, 'closed at the first-call bound');
    await within(closed, IDLE_MS + 10_000, 'closing the idle session');
  });
});

describe('gRPC listener: the cap on all connections', () => {
  test('connections past maxConnections are refused, whatever their address', async (t) => {
    const server = createA2AServer({
      agent: async (_ctx, task) => task.complete('ok'),
      card,
      store: 'memory',
      grpc: { port: 0, host: '127.0.0.1', maxConnections: 4, maxConnectionsPerAddress: Infinity },
    });
    const { grpcPort } = await server.listen(0, '127.0.0.1');
    t.after(() => server.close());
    const open = await Promise.all(
      ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5'].map((a) => probe(grpcPort!, a)),
    );
    t.after(() => open.forEach((p) => p.socket.destroy()));
    for (const p of open) assert.equal(await admitted(p), true);
    const fifth = await probe(grpcPort!, '127.0.0.6');
    assert.equal(await admitted(fifth), false, 'the fifth connection is refused');
    open[0]!.socket.destroy();
    await open[0]!.closed;
    const client = new GrpcTransport(`127.0.0.1:${grpcPort}`);
    t.after(() => client.close());
    await within(
      (async () => {
        // The freed slot is seen once the server notices the close: a bounded retry.
        for (;;) {
          try {
            return await client.listTasks({});
          } catch {
            await sleep(50);
          }
        }
      })(),
      10_000,
      'a call in the freed slot',
    );
  });
});

describe('gRPC listener over TLS', () => {
  test('a stalled TLS handshake and a session that never calls are closed; a TLS client is served', async (t) => {
    assert.ok(hasOpenssl(), 'this test needs the openssl CLI');
    const dir = mkdtempSync(join(tmpdir(), 'a2a-conn-tls-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const pki = makePki(dir);
    const server = createA2AServer({
      agent: async (_ctx, task) => {
        await sleep(600); // outlives the first-call bound: the call must not be cut
        return task.complete('ok');
      },
      card,
      store: 'memory',
      grpc: { port: 0, host: '127.0.0.1', firstCallTimeoutMs: 300 },
      tls: { cert: pki.serverCert, key: pki.serverKey },
    });
    const { grpcPort } = await server.listen(0, '127.0.0.1');
    t.after(() => server.close());
    const client = new GrpcTransport(`127.0.0.1:${grpcPort}`, {
      credentials: grpcCredentials.createSsl(pki.ca),
    });
    t.after(() => client.close());
    const served = client.sendMessage(message('hi'));

    const stalled = await probe(grpcPort!, '127.0.0.2', Buffer.from([0x16, 0x03, 0x01])); // a TLS record, cut short
    t.after(() => stalled.socket.destroy());
    const quiet = tlsConnect({
      port: grpcPort!,
      host: '127.0.0.1',
      ca: pki.ca,
      ALPNProtocols: ['h2'],
    });
    quiet.on('error', () => undefined);
    quiet.resume(); // read, so that the server's close is seen
    t.after(() => quiet.destroy());
    await within(new Promise((r) => quiet.once('secureConnect', r)), 5_000, 'the TLS handshake');
    await within(stalled.closed, 10_000, 'closing the stalled handshake');
    await within(
      new Promise((r) => (quiet.closed ? r(null) : quiet.once('close', r))),
      10_000,
      'closing the quiet TLS session',
    );
    const reply = await within(served, 10_000, 'the TLS call');
    assert.ok('task' in reply && reply.task?.status.state === 'TASK_STATE_COMPLETED');
  });
});

describe('HTTP listener: connections are bounded in time and number', () => {
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  let server: A2AServer;
  let port: number;
  const streams: ClientRequest[] = [];
  before(async () => {
    server = createA2AServer({
      agent: async (ctx, task) => {
        if (ctx.text === 'hold') await held;
        return task.complete('ok');
      },
      card,
      store: 'memory',
      timeouts: {
        headersTimeoutMs: 500,
        requestTimeoutMs: 1_000,
        keepAliveTimeoutMs: 500,
        checkIntervalMs: 100,
        maxConnectionsPerAddress: 4,
      },
      // Anonymous callers are admitted, with no stream limit: the connection cap is what holds.
      security: {
        authenticators: [createApiKeyAuthenticator({ keys: { [KEY]: 'alice' } })],
        anonymous: 'per-connection',
      },
    });
    port = (await server.listen(0, '127.0.0.1')).port;
  });
  after(async () => {
    release();
    for (const s of streams) s.destroy();
    await server.close();
  });

  /** An SSE stream from `localAddress`, anonymous; resolves to its status (0 when refused). */
  const sse = (localAddress: string): Promise<number> =>
    new Promise((resolve) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          localAddress,
          method: 'POST',
          path: '/a2a/rest/message:stream',
          agent: false,
          headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        },
        (res) => resolve(res.statusCode ?? 0),
      );
      streams.push(req);
      req.on('error', () => resolve(0));
      req.end(JSON.stringify(message('hold')));
    });

  test('a silent connection and an idle keep-alive one are closed', async () => {
    const silent = await probe(port, '127.0.0.2');
    const keptAlive = await probe(
      port,
      '127.0.0.2',
      Buffer.from('GET /.well-known/agent-card.json HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n'),
    );
    await eventually(() => keptAlive.received() > 0, 5_000, 'the card');
    await within(silent.closed, 10_000, 'closing the silent connection');
    await within(keptAlive.closed, 10_000, 'closing the idle keep-alive connection');
  });

  test('anonymous SSE streams past the per-address cap are refused; a keyed caller from 127.0.0.1 is served', async () => {
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push(await sse('127.0.0.3'));
    assert.deepEqual(statuses, [200, 200, 200, 200]);
    const refused = await probe(port, '127.0.0.3');
    assert.equal(await admitted(refused), false, 'a fifth connection from 127.0.0.3');
    assert.equal(await sse('127.0.0.3'), 0);
    const keyed = await fetch(`http://127.0.0.1:${port}/a2a/rest/tasks`, {
      headers: { 'x-api-key': KEY, 'a2a-version': '1.0' },
    });
    assert.equal(keyed.status, 200);
    assert.equal(await sse('127.0.0.4'), 200, 'another address has its own count');
  });
});
