/**
 * The node:http adapter's request signal: aborted when the client goes away before the reply,
 * never after a reply was written (detach() drops node's request and response then).
 */
import assert from 'node:assert/strict';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { NodeHttpRequest } from '../../src/server/adapters/node.js';

async function withServer(
  t: { after(fn: () => Promise<void>): void },
  handle: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<number> {
  const server = createServer(handle);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  });
  return (server.address() as AddressInfo).port;
}

test('a signal read before the reply is not aborted when the finished response closes', async (t) => {
  let seen: NodeHttpRequest | undefined;
  const closed = new Promise<void>((resolve) => {
    void withServer(t, (req, res) => {
      const wrapped = new NodeHttpRequest(req, res, 'GET', '/', '');
      seen = wrapped;
      assert.equal(wrapped.signal.aborted, false);
      res.on('close', () => setImmediate(resolve));
      res.end('ok');
      wrapped.detach();
    }).then((port) => {
      const req = request({ host: '127.0.0.1', port, path: '/', agent: false }, (res) => res.resume());
      req.end();
    });
  });
  await closed;
  assert.equal(seen!.signal.aborted, false, 'the reply was written: nobody went away');
  // A request whose reply is written answers a signal of its own that never aborts.
  const late = new NodeHttpRequest({ headers: {} } as IncomingMessage, {} as ServerResponse, 'GET', '/', '');
  late.detach();
  assert.equal(late.signal.aborted, false);
});

test('a client that goes away before the reply aborts the signal', async (t) => {
  let aborted!: () => void;
  const wasAborted = new Promise<void>((resolve) => (aborted = resolve));
  const port = await withServer(t, (req, res) => {
    const wrapped = new NodeHttpRequest(req, res, 'GET', '/', '');
    wrapped.signal.addEventListener('abort', () => aborted(), { once: true });
    // No reply: the client gives up first.
  });
  const req = request({ host: '127.0.0.1', port, path: '/', agent: false });
  req.on('error', () => {});
  req.end();
  await new Promise((r) => setTimeout(r, 50));
  req.destroy();
  await wasAborted;
});
