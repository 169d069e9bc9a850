/**
 * The webhook client against real receivers on loopback (SRV-PUSH-6): the answer is read up to
 * the cap only, a body that drips is cut by the overall timeout, and the stop signal ends every
 * POST it was given, with the code saying so.
 */
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { WebhookClient, WebhookRequestError } from '../../../src/server/push/webhook-request.js';

const LOOPBACK = { address: '127.0.0.1', family: 4 } as const;

/** A receiver on loopback whose answers `answer` writes; stopped with the test. */
async function receiver(
  t: { after(fn: () => Promise<void>): void },
  answer: (res: ServerResponse) => void,
): Promise<{ url: URL; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => answer(res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`), server };
}

function client(t: { after(fn: () => void): void }, limits: ConstructorParameters<typeof WebhookClient>[0]) {
  const webhooks = new WebhookClient(limits);
  t.after(() => webhooks.close());
  return webhooks;
}

test('an answer far past the cap is not read: the status comes back and the connection is dropped', async (t) => {
  const big = Buffer.alloc(1024 * 1024, 'x');
  let closed = 0;
  const { url, server } = await receiver(t, (res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    // 64 MiB offered; the client stops after its cap and closes the connection.
    let left = 64;
    const more = (): void => {
      while (left > 0) {
        left--;
        if (!res.write(big)) return void res.once('drain', more);
      }
      res.end();
    };
    more();
  });
  server.on('connection', (socket) => socket.on('close', () => closed++));
  const result = await client(t, { maxResponseBytes: 4096 }).post(url, LOOPBACK, {}, '{}');
  assert.equal(result.status, 200);
  // The receiver sees its connection closed long before it wrote everything.
  for (let i = 0; i < 100 && closed === 0; i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(closed, 1);
});

test('a body that drips is cut by the overall timeout (ETIMEDOUT), though the status came', async (t) => {
  let cut = false;
  const { url } = await receiver(t, (res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    const drip = setInterval(() => res.write('.'), 50);
    res.on('close', () => {
      clearInterval(drip);
      cut = !res.writableEnded;
    });
  });
  await assert.rejects(
    client(t, { timeoutMs: 400 }).post(url, LOOPBACK, {}, '{}'),
    (error: unknown) => error instanceof WebhookRequestError && error.code === 'ETIMEDOUT',
  );
  // The client closed the connection in the middle of the answer (the receiver never ended it).
  for (let i = 0; i < 100 && !cut; i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(cut, true);
});

test('the stop signal ends every POST it was given (ABORTED), and not the others', async (t) => {
  const held: ServerResponse[] = [];
  const { url } = await receiver(t, (res) => {
    held.push(res);
    if (held.length === 3) setTimeout(() => held[2]!.writeHead(204).end(), 200);
  });
  const webhooks = client(t, { timeoutMs: 10_000 });
  const stop = new AbortController();
  const stopped = [0, 1].map(() => webhooks.post(url, LOOPBACK, {}, '{}', stop.signal));
  const other = webhooks.post(url, LOOPBACK, {}, '{}', new AbortController().signal);
  for (let i = 0; i < 100 && held.length < 3; i++) await new Promise((r) => setTimeout(r, 10));
  stop.abort();
  for (const post of stopped) {
    await assert.rejects(post, (e: unknown) => e instanceof WebhookRequestError && e.code === 'ABORTED');
  }
  assert.equal((await other).status, 204);
  // A POST given a signal that already stopped does not start.
  await assert.rejects(
    webhooks.post(url, LOOPBACK, {}, '{}', stop.signal),
    (e: unknown) => e instanceof WebhookRequestError && e.code === 'ABORTED',
  );
});
