/**
 * The `routes` option: extra paths beside the A2A ones, here a push webhook made with
 * createPushHandler on the receiving agent's own server, fed by a real push-enabled agent.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { A2AClient, statusOf } from '../../src/client/client.js';
import { createPushHandler } from '../../src/client/push-receiver.js';
import { pushJwksUrlOf } from '../../src/client/push-signature.js';
import type { StreamEvent } from '../../src/client/stream-events.js';
import { A2AConfigError } from '../../src/errors/config-errors.js';
import { createA2AServer } from '../../src/server/http.js';
import { TEST_CARD } from '../support/handler.js';

test('a route on the server receives signed push notifications from another agent', async (t) => {
  const sender = createA2AServer({
    agent: async (_ctx, task) => {
      await task.working('half way');
      await task.complete('done');
    },
    card: TEST_CARD,
    store: 'memory',
    pushNotifications: true,
    push: { allowHttp: true, allowHosts: ['127.0.0.1'] },
  });
  t.after(() => sender.close());
  const { url: senderUrl } = await sender.listen(0, '127.0.0.1');
  const client = await A2AClient.connect(senderUrl);
  t.after(() => client.close());

  const events: StreamEvent[] = [];
  let delivered!: () => void;
  const done = new Promise<void>((resolve) => (delivered = resolve));
  let webhook = '';
  // Made on first use: the audience is the URL the receiver listens at.
  let handler: ReturnType<typeof createPushHandler> | undefined;
  const receiver = createA2AServer({
    agent: async (_ctx, task) => task.complete(),
    card: TEST_CARD,
    store: 'memory',
    routes: {
      '/hooks/push': (req) =>
        (handler ??= createPushHandler({
          token: 'secret-token',
          signature: { jwks: pushJwksUrlOf(client.card)!, audience: webhook },
          expectTask: () => true,
          onEvent: (event) => {
            events.push(event);
            if (event.kind === 'statusUpdate' && event.statusUpdate.status.state === 'TASK_STATE_COMPLETED') {
              delivered();
            }
          },
        }))(req),
    },
  });
  t.after(() => receiver.close());
  const { url } = await receiver.listen(0, '127.0.0.1');
  webhook = `${url}/hooks/push`;

  const reply = await client.send({
    text: 'go',
    returnImmediately: true,
    pushNotificationConfig: { url: webhook, token: 'secret-token' },
  });
  assert.equal(reply.kind, 'task');
  await done;
  assert.equal(statusOf(events[0]!)?.state, 'TASK_STATE_WORKING');

  // The route checks its callers itself: a wrong token is refused.
  const refused = await fetch(webhook, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-a2a-notification-token': 'wrong' },
    body: '{}',
  });
  assert.equal(refused.status, 401);
  // Served on every runtime: the fetch-style handler too, with one trailing slash.
  const viaFetch = await receiver.fetch(new Request('http://agent.test/hooks/push/', { method: 'GET' }));
  assert.equal(viaFetch.status, 405);
});

test('routes: a path the server serves itself, or a relative one, is refused at creation', () => {
  const route = () => ({ status: 200, headers: {}, body: '' });
  for (const path of ['/a2a/jsonrpc', '/a2a/rest/tasks', '/.well-known/agent-card.json', 'hooks']) {
    assert.throws(
      () =>
        createA2AServer({
          agent: async () => {},
          card: TEST_CARD,
          store: 'memory',
          routes: { [path]: route },
        }),
      (error: unknown) => error instanceof A2AConfigError && error.code === 'A2A_CONFIG_INVALID_OPTION',
      path,
    );
  }
});
