/**
 * The webhook client (SRV-PUSH-6) against raw TCP receivers on 127.0.0.1, so each answer is
 * exactly as written: the status with any framing (Content-Length, chunked, to the close, none),
 * interim 1xx answers skipped, no redirect followed, the body read up to the cap, connections
 * reused only when left clean, timeouts, the abort signal, header values that could split the
 * request refused, and the connection going to the checked address whatever the URL's host.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { WebhookClient, WebhookRequestError } from '../../../src/server/push/webhook-request.js';

const LOOPBACK = { address: '127.0.0.1', family: 4 as const };

interface RawReceiver {
  url: string;
  /** Requests seen (their head and body as text), in order. */
  requests: string[];
  /** Connections accepted. */
  connections: number;
  close(): Promise<void>;
}

/**
 * A TCP server that reads each request (head and Content-Length body) and writes `answer(n)`
 * as is (n counts requests); `'hang'` writes nothing.
 */
async function rawReceiver(answer: (n: number) => string | 'hang'): Promise<RawReceiver> {
  const sockets = new Set<Socket>();
  const receiver: RawReceiver = { url: '', requests: [], connections: 0, close: async () => {} };
  const server: Server = createServer((socket) => {
    receiver.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let buffer = '';
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('latin1');
      for (;;) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/content-length: (\d+)/i.exec(buffer.slice(0, end))?.[1] ?? 0);
        if (buffer.length < end + 4 + length) return;
        receiver.requests.push(buffer.slice(0, end + 4 + length));
        buffer = buffer.slice(end + 4 + length);
        const reply = answer(receiver.requests.length - 1);
        if (reply !== 'hang') socket.write(reply);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook?x=1`;
  receiver.close = () => {
    for (const s of sockets) s.destroy();
    return new Promise<void>((r) => server.close(() => r()));
  };
  return receiver;
}

const post = (client: WebhookClient, url: string, signal?: AbortSignal) =>
  client.post(new URL(url), LOOPBACK, { 'content-type': 'application/json' }, '{"a":1}', signal);

describe('webhook client', () => {
  test('answers with any framing give their status; clean ones leave the connection for the next POST', async (t) => {
    const replies = [
      'HTTP/1.1 204 No Content\r\n\r\n',
      'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\nTrailer: 1\r\n\r\n',
      'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n',
      'HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:1/elsewhere\r\nContent-Length: 0\r\n\r\n',
      'HTTP/1.1 500 Oops\r\nContent-Length: 2\r\n\r\nno',
    ];
    const receiver = await rawReceiver((n) => replies[n]!);
    t.after(() => receiver.close());
    const client = new WebhookClient();
    t.after(() => client.close());
    const results = [];
    for (let i = 0; i < replies.length; i++) results.push(await post(client, receiver.url));
    assert.deepEqual(
      results.map((r) => [r.status, r.excerpt]),
      [
        [204, ''],
        [200, 'hello'],
        [200, 'abcde'],
        [202, ''],
        [302, ''],
        [500, 'no'],
      ],
    );
    assert.equal(receiver.requests.length, replies.length, 'the redirect was not followed');
    assert.equal(receiver.connections, 1, 'one connection carried every POST');
    const first = receiver.requests[0]!;
    assert.match(first, /^POST \/hook\?x=1 HTTP\/1\.1\r\n/);
    assert.match(first, /\r\nhost: 127\.0\.0\.1:\d+\r\n/);
    assert.match(first, /\r\ncontent-length: 7\r\n/);
    assert.ok(first.endsWith('\r\n\r\n{"a":1}'));
  });

  test('a body over the cap is cut short (the status kept) and its connection is not reused', async (t) => {
    const receiver = await rawReceiver(
      () => `HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n${'x'.repeat(100)}`,
    );
    t.after(() => receiver.close());
    const client = new WebhookClient({ maxResponseBytes: 10 });
    t.after(() => client.close());
    const result = await post(client, receiver.url);
    assert.deepEqual([result.status, result.excerpt], [200, 'xxxxxxxxxx']);
    await post(client, receiver.url);
    assert.equal(receiver.connections, 2);
  });

  test('an answer that runs to the close, or says Connection: close, is read and the connection dropped', async (t) => {
    const receiver = await rawReceiver((n) =>
      n === 0
        ? 'HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n'
        : 'HTTP/1.0 200 OK\r\n\r\nbye',
    );
    t.after(() => receiver.close());
    const client = new WebhookClient();
    t.after(() => client.close());
    assert.equal((await post(client, receiver.url)).status, 200);
    // The second answer has no length: it ends when the receiver closes.
    const second = post(client, receiver.url);
    await new Promise((r) => setTimeout(r, 20));
    await receiver.close();
    const result = await second;
    assert.deepEqual([result.status, result.excerpt], [200, 'bye']);
    assert.equal(receiver.connections, 2);
  });

  test('no answer in time, a refused connection, a stop signal and a garbled answer are failures with a code', async (t) => {
    const hanging = await rawReceiver(() => 'hang');
    t.after(() => hanging.close());
    const garbled = await rawReceiver(() => 'SMTP ready\r\n\r\n');
    t.after(() => garbled.close());
    const client = new WebhookClient({ timeoutMs: 100 });
    t.after(() => client.close());
    const codeOf = (p: Promise<unknown>) =>
      p.then(
        () => 'answered',
        (e: unknown) => (e instanceof WebhookRequestError ? e.code : String(e)),
      );
    assert.equal(await codeOf(post(client, hanging.url)), 'ETIMEDOUT');
    const stop = new AbortController();
    const stopped = codeOf(new WebhookClient().post(new URL(hanging.url), LOOPBACK, {}, '', stop.signal));
    stop.abort();
    assert.equal(await stopped, 'ABORTED');
    assert.equal(await codeOf(post(client, garbled.url)), 'HPE_INVALID_CONSTANT');
    const closed = await rawReceiver(() => 'hang');
    const url = closed.url;
    await closed.close();
    assert.equal(await codeOf(post(client, url)), 'ECONNREFUSED');
  });

  test('a header value with CR or LF is refused before anything is sent', async (t) => {
    const receiver = await rawReceiver(() => 'HTTP/1.1 204 No Content\r\n\r\n');
    t.after(() => receiver.close());
    const client = new WebhookClient();
    t.after(() => client.close());
    await assert.rejects(
      client.post(new URL(receiver.url), LOOPBACK, { 'x-token': 'a\r\nx-evil: 1' }, ''),
      (e: unknown) => e instanceof WebhookRequestError && e.code === 'ERR_INVALID_CHAR',
    );
    assert.equal(receiver.connections, 0);
  });

  test('the connection goes to the checked address; the Host header names the URL host', async (t) => {
    const receiver = await rawReceiver(() => 'HTTP/1.1 204 No Content\r\n\r\n');
    t.after(() => receiver.close());
    const client = new WebhookClient();
    t.after(() => client.close());
    const port = new URL(receiver.url).port;
    // hooks.invalid never resolves: only the checked address can have been used.
    const result = await client.post(new URL(`http://hooks.invalid:${port}/in`), LOOPBACK, {}, '');
    assert.equal(result.status, 204);
    assert.match(receiver.requests[0]!, /^POST \/in HTTP\/1\.1\r\nhost: hooks\.invalid:\d+\r\n/);
  });
});
