/**
 * The inspector's backend without a browser: the token and Host guard, connecting to a real
 * agent through the API, the wire record (card, JSON-RPC envelope, SSE events), the spec
 * flags on a malformed answer, and clear errors for an unreachable or non-A2A URL.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { startInspector, type Inspector } from '../../src/inspector/server.js';
import { TOKEN_HEADER } from '../../src/inspector/guard.js';
import type { ConnectResult, WireExchange, WireSummary } from '../../src/inspector/api-types.js';
import { startBench, startMalformed, startNotA2A } from './agents.js';

async function api<T>(inspector: Inspector, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${inspector.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { [TOKEN_HEADER]: inspector.token, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  assert.equal(response.status, 200, await response.clone().text());
  return (await response.json()) as T;
}

/** A raw GET with a chosen Host header (fetch would set its own). */
function getWithHost(url: string, host: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { ...headers, host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

test('the token and the Host header guard the page and the API', async (t) => {
  const inspector = await startInspector({ port: 0 });
  t.after(() => inspector.close());
  assert.equal((await fetch(`${inspector.url}/`)).status, 403);
  assert.equal((await fetch(`${inspector.url}/?token=wrong`)).status, 403);
  assert.equal((await fetch(`${inspector.url}/api/wire`)).status, 403);
  assert.equal((await fetch(inspector.pageUrl())).status, 200);
  const host = `127.0.0.1:${inspector.port}`;
  assert.equal(
    await getWithHost(`${inspector.url}/api/wire`, host, { [TOKEN_HEADER]: inspector.token }),
    200,
  );
  // A DNS-rebinding page reaches the same socket under its own name: refused even with the token.
  assert.equal(
    await getWithHost(`${inspector.url}/api/wire`, `evil.example:${inspector.port}`, {
      [TOKEN_HEADER]: inspector.token,
    }),
    403,
  );
  assert.equal(await getWithHost(inspector.pageUrl(), 'evil.example'), 403);
  const crossOrigin = await fetch(`${inspector.url}/api/wire`, {
    headers: { [TOKEN_HEADER]: inspector.token, origin: 'http://evil.example' },
  });
  assert.equal(crossOrigin.status, 403);
});

test('connect, stream and see every exchange on the wire', async (t) => {
  const bench = await startBench();
  t.after(() => bench.close());
  const inspector = await startInspector({ port: 0 });
  t.after(() => inspector.close());
  const connected = await api<ConnectResult>(inspector, '/api/connect', {
    url: bench.url,
    binding: 'JSONRPC',
  });
  assert.equal(connected.error, undefined);
  assert.equal(connected.binding, 'JSONRPC');
  assert.equal(connected.card?.card?.name, 'bench');
  assert.deepEqual(connected.card?.problems, []);
  assert.equal(connected.card?.signature.status, 'unsigned');
  const response = await fetch(`${inspector.url}/api/stream`, {
    method: 'POST',
    headers: { [TOKEN_HEADER]: inspector.token, 'content-type': 'application/json' },
    body: JSON.stringify({
      session: connected.session,
      method: 'SendStreamingMessage',
      request: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'stream:3' }] } },
    }),
  });
  const text = await response.text();
  const items = [...text.matchAll(/event: item\ndata: (.*)\n/g)].map(
    (m) => JSON.parse(m[1] as string) as { kind: string; state?: string; index: number },
  );
  assert.equal(items[0]?.kind, 'task');
  assert.deepEqual(
    items.filter((i) => i.kind === 'artifactUpdate').map((i) => i.index),
    items
      .filter((i) => i.kind === 'artifactUpdate')
      .map((_, n) => items.findIndex((i) => i.kind === 'artifactUpdate') + n + 1),
  );
  assert.equal(items.filter((i) => i.kind === 'artifactUpdate').length, 3);
  assert.equal(items.at(-1)?.state, 'TASK_STATE_COMPLETED');
  assert.match(text, /event: end/);
  const wire = await api<WireSummary[]>(inspector, `/api/wire?session=${connected.session}`);
  assert.deepEqual(
    wire.map((w) => w.binding),
    ['CARD', 'JSONRPC'],
  );
  const exchange = await api<WireExchange>(inspector, `/api/wire/${wire[1]?.seq}`);
  assert.equal(exchange.method, 'SendStreamingMessage');
  assert.equal(exchange.request.headers['a2a-version'], '1.0');
  assert.match(exchange.request.body, /"jsonrpc":"2.0"/);
  assert.equal(exchange.events.length, items.length);
  assert.deepEqual(exchange.problems, []);
});

test('a malformed answer is flagged with the rule it breaks', async (t) => {
  const agent = await startMalformed();
  t.after(() => agent.close());
  const inspector = await startInspector({ port: 0 });
  t.after(() => inspector.close());
  const connected = await api<ConnectResult>(inspector, '/api/connect', { url: agent.url });
  assert.equal(connected.error, undefined);
  const reply = await api<{ error?: { message: string } }>(inspector, '/api/call', {
    session: connected.session,
    method: 'GetTask',
    request: { id: 't1' },
  });
  assert.ok(reply.error, 'the client refuses the answer');
  const wire = await api<WireSummary[]>(inspector, `/api/wire?session=${connected.session}`);
  const rpc = await api<WireExchange>(inspector, `/api/wire/${wire.at(-1)?.seq}`);
  const rules = rpc.problems.map((p) => p.rule);
  assert.ok(rules.includes('JSON-RPC 2.0 §5: jsonrpc must be "2.0"'), rules.join(', '));
  assert.ok(
    rules.some((r) => r.startsWith('a2a.proto Task')),
    rules.join(', '),
  );
});

test('an unreachable URL and a server that is not A2A give clear errors', async (t) => {
  const web = await startNotA2A();
  t.after(() => web.close());
  const inspector = await startInspector({ port: 0 });
  t.after(() => inspector.close());
  const notA2A = await api<ConnectResult>(inspector, '/api/connect', { url: web.url });
  assert.match(notA2A.error ?? '', /not an A2A agent: .* answered text\/html/);
  const closed = await startNotA2A();
  const closedUrl = closed.url;
  await closed.close();
  const unreachable = await api<ConnectResult>(inspector, '/api/connect', { url: closedUrl });
  assert.match(unreachable.error ?? '', /ECONNREFUSED/);
});
