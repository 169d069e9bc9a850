/** serveMcpOverHttp's bounds: sessions past maxSessions close the least recently used; unknown sessions and paths are refused. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { serveMcpOverHttp } from '../../src/bridges/mcp/index.js';
import { buildToolsServer } from './fixtures/mcp-tools.js';

test('at most maxSessions sessions: a new one closes the least recently used', async (t) => {
  const endpoint = await serveMcpOverHttp(() => buildToolsServer('shout').server, { maxSessions: 2 });
  t.after(() => endpoint.close());
  const connect = async () => {
    const c = new Client({ name: 'h', version: '1' });
    await c.connect(new StreamableHTTPClientTransport(new URL(endpoint.url)));
    t.after(() => c.close());
    return c;
  };
  const shout = (c: Client) => c.callTool({ name: 'shout', arguments: { text: 'x' } });
  const first = await connect();
  const second = await connect();
  await shout(first); // first is now the most recently used
  const third = await connect(); // closes second
  await shout(first);
  await shout(third);
  await assert.rejects(shout(second), /404|session/i);
});

test('unknown sessions, other paths and GET without a session are refused with a reason', async (t) => {
  const endpoint = await serveMcpOverHttp(() => buildToolsServer('shout').server);
  t.after(() => endpoint.close());
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const unknown = await fetch(endpoint.url, {
    method: 'POST',
    headers: { ...headers, 'mcp-session-id': 'nope' },
    body,
  });
  assert.equal(unknown.status, 404);
  assert.match(
    ((await unknown.json()) as { error: { message: string } }).error.message,
    /unknown or expired MCP session/,
  );
  const elsewhere = await fetch(endpoint.url.replace(/\/mcp$/, '/other'), { method: 'POST', headers, body });
  assert.equal(elsewhere.status, 404);
  await elsewhere.body?.cancel();
  const get = await fetch(endpoint.url, { headers: { accept: 'text/event-stream' } });
  assert.equal(get.status, 400);
  await get.body?.cancel();
});
