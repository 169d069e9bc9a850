/**
 * A2AClient.connect: `headers` and `auth` reach the card fetch too; the card is always there
 * afterwards (typed non-optional); protocol error classes come from `a2a-kit/client`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { A2AClient, A2AError, TaskNotFoundError } from '../../src/client/index.js';
import { createA2AServer } from '../../src/server/http.js';

test('headers and auth are sent on the card fetch; card is set; TaskNotFoundError is exported', async (t) => {
  const a2a = createA2AServer({
    agent: async (_ctx, task) => task.complete('ok'),
    card: {
      name: 'card-headers',
      description: 'records headers',
      version: '1.0.0',
      skills: [{ id: 's', name: 's', description: 's', tags: ['t'] }],
    },
  });
  const cardRequests: IncomingHttpHeaders[] = [];
  const http = createServer((req, res) => {
    if (req.url?.startsWith('/.well-known/')) cardRequests.push(req.headers);
    a2a.nodeHandler(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  t.after(async () => {
    await a2a.close();
    await new Promise((resolve) => http.close(resolve));
  });
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const client = await A2AClient.connect(url, {
    headers: { 'x-team': 'payments' },
    auth: { bearer: 'tok-1' },
  });
  t.after(() => client.close());
  assert.equal(cardRequests.length, 1);
  assert.equal(cardRequests[0]?.['x-team'], 'payments');
  assert.equal(cardRequests[0]?.authorization, 'Bearer tok-1');
  // Typed non-optional after connect: no `!` or `?.` needed.
  const name: string = client.card.name;
  assert.equal(name, 'card-headers');
  await assert.rejects(client.getTask('missing'), (error: unknown) => {
    assert.ok(error instanceof TaskNotFoundError);
    assert.ok(error instanceof A2AError);
    return true;
  });
});
