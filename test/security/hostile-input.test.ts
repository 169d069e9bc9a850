/**
 * Issue 27, deliver 3: hostile input on every binding and version, each bounded. Oversized and
 * deeply nested bodies (anonymous: refused from the headers; authenticated: refused by size or
 * depth), huge headers, a slowloris client, many idle HTTP/2 connections to the gRPC port and
 * many idle SSE streams from one anonymous address. The assertions are outcomes (refused,
 * closed, capped counts); every wait is bounded so that a failed bound fails the test.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect as http2Connect } from 'node:http2';
import { request as httpRequest } from 'node:http';
import { connect as netConnect } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import { createApiKeyAuthenticator } from '../../src/server/auth/index.js';
import { A2A_SERVICE_NAME } from '../../src/bindings/grpc/service.js';
import { createA2AServer, type A2AServer } from '../../src/server/http.js';

const card = {
  name: 'hostile',
  description: 'Under hostile input',
  version: '1.0.0',
  skills: [{ id: 's', name: 'S', description: 'S', tags: ['t'] }],
};
const KEY = { 'x-api-key': 'k-1' };
const BODY_LIMIT = 64 * 1024;

/** The JSON paths of every binding and version, with the headers that select them. */
const JSON_PATHS: [string, string, Record<string, string>][] = [
  ['JSON-RPC, no version', '/a2a/jsonrpc', {}],
  ['JSON-RPC 1.0', '/a2a/jsonrpc', { 'a2a-version': '1.0' }],
  ['JSON-RPC 0.3', '/a2a/jsonrpc', { 'a2a-version': '0.3' }],
  ['REST 1.0', '/a2a/rest/message:send', { 'a2a-version': '1.0' }],
  ['REST 0.3', '/a2a/rest/v1/message:send', {}],
];

function post(
  port: number,
  path: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path,
        agent: false,
        headers: { 'content-type': 'application/json', ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error('no answer in 10 s')));
    // The server may answer and close before the whole body is written.
    req.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error),
    );
    req.end(body);
  });
}

/** Resolves when `socket` closes; rejects (the bound failed) after `ms`. */
function closedWithin(target: { once(event: 'close', f: () => void): unknown }, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`still open after ${ms} ms`)), ms);
    target.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

describe('hostile input on every binding and version', () => {
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  let server: A2AServer;
  let port: number;
  let grpcPort: number;
  before(async () => {
    server = createA2AServer({
      agent: async (ctx, task) => {
        if (ctx.text === 'hold') await held;
        return task.complete('ok');
      },
      card,
      store: 'memory',
      bodyLimit: BODY_LIMIT,
      grpc: { port: 0, host: '127.0.0.1', idleTimeoutMs: 300 },
      timeouts: {
        headersTimeoutMs: 500,
        requestTimeoutMs: 1_000,
        checkIntervalMs: 100,
        maxHeaderBytes: 8_192,
      },
      limits: { maxStreamsPerPrincipal: 2 },
      security: {
        authenticators: [createApiKeyAuthenticator({ keys: { 'k-1': 'alice' } })],
        anonymous: 'per-connection',
        failedAuth: false,
      },
    });
    const info = await server.listen(0, '127.0.0.1');
    port = info.port;
    grpcPort = info.grpcPort!;
  });
  after(async () => {
    release();
    await server.close();
  });

  test('oversized bodies: 413 for a caller with a key, 401 (from the headers) for a bad key', async () => {
    const big = JSON.stringify({
      message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x'.repeat(2 * BODY_LIMIT) }] },
    });
    for (const [name, path, headers] of JSON_PATHS) {
      const keyed = await post(port, path, { ...headers, ...KEY }, big);
      assert.equal(keyed.status, 413, `${name}: ${keyed.text.slice(0, 200)}`);
      const bad = await post(port, path, { ...headers, 'x-api-key': 'wrong' }, big);
      assert.equal(bad.status, 401, `${name}: ${bad.text.slice(0, 200)}`);
    }
  });

  test('deeply nested bodies: refused before parsing, whoever sends them', async () => {
    const deep = '['.repeat(20_000) + ']'.repeat(20_000); // 40 KB: under the size limit
    for (const [name, path, headers] of JSON_PATHS) {
      const keyed = await post(port, path, { ...headers, ...KEY }, deep);
      if (path.includes('jsonrpc')) assert.match(keyed.text, /-32600/, name);
      else assert.equal(keyed.status, 400, name);
      assert.ok(keyed.text.length < 1000, `${name}: echoed ${keyed.text.length} chars`);
      assert.equal((await post(port, path, { ...headers, 'x-api-key': 'wrong' }, deep)).status, 401, name);
    }
  });

  test('gRPC: an oversized message is RESOURCE_EXHAUSTED; an undecodable one with a bad key UNAUTHENTICATED', async (t) => {
    const client = new grpc.Client(`127.0.0.1:${grpcPort}`, grpc.credentials.createInsecure(), {
      'grpc.max_send_message_length': 4 * BODY_LIMIT,
    });
    t.after(() => client.close());
    const call = (service: string, bytes: Buffer, md: grpc.Metadata) =>
      new Promise<number>((resolve) => {
        client.makeUnaryRequest(
          `/${service}/SendMessage`,
          (b: Buffer) => b,
          (b: Buffer) => b,
          bytes,
          md,
          (error) => resolve(error ? error.code : grpc.status.OK),
        );
      });
    const keyed = new grpc.Metadata();
    keyed.set('x-api-key', 'k-1');
    for (const service of [A2A_SERVICE_NAME, 'a2a.v1.A2AService']) {
      assert.equal(
        await call(service, Buffer.alloc(2 * BODY_LIMIT, 0x0a), keyed),
        grpc.status.RESOURCE_EXHAUSTED,
      );
      // Anonymous callers are admitted here; a wrong key is refused before decoding.
      const wrong = new grpc.Metadata();
      wrong.set('x-api-key', 'wrong');
      assert.equal(await call(service, Buffer.from([0xff, 0xff]), wrong), grpc.status.UNAUTHENTICATED);
    }
  });

  test('huge headers: 431, nothing served', async () => {
    for (const [name, path] of JSON_PATHS) {
      const reply = await post(port, path, { ...KEY, 'x-junk': 'j'.repeat(32 * 1024) }, '{}');
      assert.equal(reply.status, 431, name);
    }
  });

  test('slowloris: a client that sends its headers a byte at a time is cut off', async () => {
    const socket = netConnect(port, '127.0.0.1');
    const closed = closedWithin(socket, 10_000);
    socket.on('error', () => undefined);
    const head = `POST /a2a/jsonrpc HTTP/1.1\r\nhost: 127.0.0.1\r\nx-api-key: k-1\r\n${'x-slow: 1\r\n'.repeat(200)}`;
    let sent = 0;
    let open = true;
    void closed.then(() => (open = false));
    // Bounded: at most the whole head, one byte every 20 ms; the server gives up at 500 ms.
    while (open && sent < head.length) {
      socket.write(head[sent++] as string);
      await new Promise((r) => setTimeout(r, 20));
    }
    await closed;
    assert.ok(sent < head.length, 'the server waited for the whole slow head');
  });

  test('many idle HTTP/2 connections to the gRPC port are closed', async () => {
    const sessions = Array.from({ length: 20 }, () => http2Connect(`http://127.0.0.1:${grpcPort}`));
    for (const s of sessions) s.on('error', () => undefined);
    await Promise.all(sessions.map((s) => closedWithin(s, 10_000)));
    assert.ok(sessions.every((s) => s.closed || s.destroyed));
  });

  test('many idle SSE streams from one anonymous address: capped, whatever the connection', async () => {
    const open: { destroy(): void }[] = [];
    const statuses: number[] = [];
    try {
      for (let i = 0; i < 5; i++) {
        const status = await new Promise<number>((resolve, reject) => {
          const req = httpRequest(
            {
              host: '127.0.0.1',
              port,
              method: 'POST',
              path: '/a2a/rest/message:stream',
              agent: false, // a new connection, so a new per-connection principal, each time
              headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
            },
            (res) => {
              open.push(req);
              if (res.statusCode !== 200) res.resume();
              resolve(res.statusCode ?? 0);
            },
          );
          req.setTimeout(10_000, () => req.destroy(new Error('no answer in 10 s')));
          req.on('error', reject);
          req.end(
            JSON.stringify({
              message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hold' }] },
            }),
          );
        });
        statuses.push(status);
      }
    } finally {
      for (const r of open) r.destroy();
    }
    assert.deepEqual(statuses, [200, 200, 429, 429, 429]);
  });
});
