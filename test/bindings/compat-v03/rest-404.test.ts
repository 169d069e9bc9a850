/**
 * The v0.3 REST client names a 404 TaskNotFoundError only when the body is an A2A error: an
 * HTML "Cannot GET" page (Express's, at a wrong URL) is a transport error (issue 29).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { V03RestTransport } from '../../../src/bindings/compat-v03/rest-client.js';
import { A2ATransportError } from '../../../src/errors/client-errors.js';
import { TaskNotFoundError } from '../../../src/errors/index.js';

/** A server answering every request 404 with `body` as `type`. */
async function notFoundServer(
  t: { after(fn: () => Promise<void>): void },
  type: string,
  body: string,
): Promise<string> {
  const http = createServer((req, res) => {
    req.resume();
    res.writeHead(404, { 'content-type': type });
    res.end(body);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise((resolve) => http.close(() => resolve())));
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
}

test('an HTML 404 page is a transport error, not TaskNotFoundError', async (t) => {
  const url = await notFoundServer(
    t,
    'text/html; charset=utf-8',
    '<!DOCTYPE html><html><body><pre>Cannot GET /v1/tasks/t-1</pre></body></html>',
  );
  const transport = new V03RestTransport(url);
  await assert.rejects(transport.getTask({ id: 't-1' }), (error: unknown) => {
    assert.ok(!(error instanceof TaskNotFoundError), `got ${String(error)}`);
    assert.ok(error instanceof A2ATransportError);
    assert.equal(error.status, 404);
    assert.match(error.message, /Cannot GET/);
    return true;
  });
});

test('a 404 with the v0.3 error body is TaskNotFoundError', async (t) => {
  const url = await notFoundServer(
    t,
    'application/json',
    JSON.stringify({ code: -32001, message: 'Task not found' }),
  );
  const transport = new V03RestTransport(url);
  await assert.rejects(transport.getTask({ id: 't-1' }), TaskNotFoundError);
});
