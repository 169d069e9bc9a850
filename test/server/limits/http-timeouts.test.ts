/** Slow clients (slowloris) on a real node:http server with the hardened timeouts. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import {
  ConnectionLimiter,
  httpConnectionLimits,
  httpServerTimeouts,
} from '../../../src/server/limits/index.js';

async function startServer() {
  const server = createServer(
    httpServerTimeouts({ headersTimeoutMs: 200, requestTimeoutMs: 400 }),
    (req, res) => {
      req.resume();
      req.on('end', () => res.end('ok'));
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Writes `chunks` and then nothing more; resolves with everything the server sent before it closed. */
function sendAndWait(port: number, chunks: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      for (const c of chunks) socket.write(c);
    });
    let received = '';
    socket.on('data', (d: Buffer) => (received += d.toString()));
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
  });
}

describe('timeouts against slow clients', { timeout: 20_000 }, () => {
  test('headers that never finish get 408 and the connection is closed', async (t) => {
    const { port, close } = await startServer();
    t.after(close);
    const reply = await sendAndWait(port, ['POST /a2a/jsonrpc HTTP/1.1\r\nHost: x\r\nX-Slow: a']);
    assert.match(reply, /^HTTP\/1\.1 408/);
  });

  test('a body that never finishes gets 408; a complete request is served', async (t) => {
    const { port, close } = await startServer();
    t.after(close);
    const slow = await sendAndWait(port, ['POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"a"']);
    assert.match(slow, /^HTTP\/1\.1 408/);
    const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: 'hello' });
    assert.equal(await res.text(), 'ok');
  });

  test('an oversized header block gets 431', async (t) => {
    const { port, close } = await startServer();
    t.after(close);
    const reply = await sendAndWait(port, [
      `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    ]);
    assert.match(reply, /^HTTP\/1\.1 431/);
  });

  test('refuses nonsense settings', () => {
    assert.throws(() => httpServerTimeouts({ headersTimeoutMs: 0 }), RangeError);
    assert.throws(() => httpServerTimeouts({ headersTimeoutMs: 5000, requestTimeoutMs: 1000 }), RangeError);
    assert.deepEqual(httpServerTimeouts(), {
      headersTimeout: 10_000,
      requestTimeout: 30_000,
      keepAliveTimeout: 5_000,
      connectionsCheckingInterval: 1000,
      maxHeaderSize: 16_384,
    });
  });

  test('connection caps: defaults, and nonsense refused', () => {
    assert.deepEqual(httpConnectionLimits(), { maxConnections: 10_000, maxConnectionsPerAddress: 1_000 });
    assert.deepEqual(
      httpConnectionLimits({ maxConnectionsPerAddress: Infinity }).maxConnectionsPerAddress,
      Infinity,
    );
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      assert.throws(
        () => new ConnectionLimiter({ maxConnections: bad, maxConnectionsPerAddress: 1 }),
        RangeError,
      );
      assert.throws(
        () => new ConnectionLimiter({ maxConnections: 1, maxConnectionsPerAddress: bad }),
        RangeError,
      );
    }
  });
});
