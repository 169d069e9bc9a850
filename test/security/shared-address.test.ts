/**
 * Issue 27, SRV-TRUST-5: anonymous callers are limited by their remote address. Two anonymous
 * callers behind one address (two connections, so two per-connection principals that do not
 * see each other's tasks) share one rate bucket; an authenticated caller from the same address
 * has its own, and an anonymous caller from another address has its own too.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request as httpRequest } from 'node:http';
import { createApiKeyAuthenticator } from '../../src/server/auth/index.js';
import { createA2AServer, type A2AServer } from '../../src/server/http.js';

const card = {
  name: 'shared-address',
  description: 'Limits anonymous callers by address',
  version: '1.0.0',
  skills: [{ id: 's', name: 'S', description: 'S', tags: ['t'] }],
};

let server: A2AServer;
let port: number;
const agents: Agent[] = [];
before(async () => {
  server = createA2AServer({
    agent: async (_ctx, task) => task.complete('ok'),
    card,
    store: 'memory',
    limits: { ratePerSecond: 0.001, rateBurst: 3 },
    security: {
      authenticators: [createApiKeyAuthenticator({ keys: { 'k-1': 'alice' } })],
      anonymous: 'per-connection',
      failedAuth: false,
    },
  });
  port = (await server.listen(0, '127.0.0.1')).port;
});
after(async () => {
  for (const a of agents) a.destroy();
  await server.close();
});

/** A caller on one kept-alive connection from `localAddress`: one per-connection principal. */
function caller(localAddress: string, headers: Record<string, string> = {}) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  agents.push(agent);
  return (method: string, params: unknown): Promise<{ status: number; body: Record<string, unknown> }> =>
    new Promise((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          localAddress,
          agent,
          method: 'POST',
          path: '/a2a/jsonrpc',
          headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) }),
          );
        },
      );
      req.setTimeout(10_000, () => req.destroy(new Error('no answer in 10 s')));
      req.on('error', reject);
      req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }));
    });
}

test('SRV-TRUST-5: two anonymous callers from one address share a bucket; a keyed caller there has its own', async () => {
  const first = caller('127.0.0.1');
  const second = caller('127.0.0.1');
  const sent = await first('SendMessage', {
    message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }] },
  });
  assert.equal(sent.status, 200);
  const taskId = (sent.body.result as { task: { id: string } }).task.id;
  // Two callers, not one: the second does not see the first's task...
  const seen = await second('GetTask', { id: taskId });
  assert.equal((seen.body.error as { code: number }).code, -32001); // TaskNotFoundError
  // ...but the bucket is the address's: one more call, and both are refused.
  assert.equal((await first('ListTasks', {})).status, 200);
  assert.equal((await second('ListTasks', {})).status, 429);
  assert.equal((await first('ListTasks', {})).status, 429);

  // An authenticated caller on the same address is its own key.
  const keyed = caller('127.0.0.1', { 'x-api-key': 'k-1' });
  const statuses = [];
  for (let i = 0; i < 4; i++) statuses.push((await keyed('ListTasks', {})).status);
  assert.deepEqual(statuses, [200, 200, 200, 429]);
  // An anonymous caller from another address too.
  assert.equal((await caller('127.0.0.2')('ListTasks', {})).status, 200);
});
