/** The SSE writer: framing, keep-alive comments, backpressure-free ordering, early stop (G13). */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { IterableSseSource, SSE_HEADERS, sseFrame, writeSse } from '../../src/bindings/http/sse.js';

async function* events(n: number): AsyncGenerator<{ n: number }> {
  for (let i = 0; i < n; i++) yield { n: i };
}

describe('SSE', () => {
  test('one compact data line per event, then a blank line', () => {
    assert.equal(sseFrame('{"a":1}'), 'data: {"a":1}\n\n');
  });

  test('an error from the iterable becomes one last frame', async () => {
    async function* failing(): AsyncGenerator<number> {
      yield 1;
      throw new Error('x');
    }
    const source = new IterableSseSource(failing(), String, () => '"err"');
    assert.equal(await source.next(), 'data: 1\n\n');
    assert.equal(await source.next(), 'data: "err"\n\n');
    assert.equal(await source.next(), undefined);
  });

  test('stop() resolves a pending next() and calls return()', async () => {
    let returned = false;
    const never: AsyncIterable<number> = {
      [Symbol.asyncIterator]: () => ({
        next: () => new Promise<IteratorResult<number>>(() => undefined),
        return: async () => {
          returned = true;
          return { done: true, value: undefined };
        },
      }),
    };
    const source = new IterableSseSource(never, String, String);
    const pending = source.next();
    source.stop();
    assert.equal(await pending, undefined);
    assert.equal(returned, true);
  });

  test('writeSse streams many events in order with keep-alive comments', async (t) => {
    const server = createServer((_req, res) => {
      res.writeHead(200, SSE_HEADERS);
      const slow = (async function* () {
        yield* events(2000);
        await new Promise((r) => setTimeout(r, 30));
        yield { n: 2000 };
      })();
      void writeSse(res, new IterableSseSource(slow, (e) => JSON.stringify(e), String), { keepAliveMs: 5 });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    t.after(() => new Promise<void>((r) => server.close(() => r())));
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    assert.equal(res.headers.get('x-accel-buffering'), 'no');
    const text = await res.text();
    const data = text
      .split('\n\n')
      .filter((b) => b.startsWith('data: '))
      .map((b) => (JSON.parse(b.slice(6)) as { n: number }).n);
    assert.deepEqual(
      data,
      Array.from({ length: 2001 }, (_, i) => i),
    );
    assert.ok(text.includes(': keep-alive\n\n'));
  });
});
