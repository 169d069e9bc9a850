/**
 * Issue 27, suspected item: the inspector fetches the push JWKS a card names only from an
 * origin it already talks to for that agent. A card naming a JWKS elsewhere (another server
 * on the network, a metadata endpoint) gets no request from the inspector: a signed delivery
 * is shown unchecked, saying why. Real servers on 127.0.0.1, tokens from the server's signer.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PushInbox } from '../../src/inspector/push.js';
import type { PushDelivery } from '../../src/inspector/api-types.js';
import { NotificationSigner, PUSH_SIGNING_EXTENSION } from '../../src/core/push/notification-signing.js';
import type { AgentCard } from '../../src/model/schema.js';

async function listen(t: TestContext, handler: Parameters<typeof createServer>[1]) {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A server that serves the signer's JWKS at /jwks.json and counts the requests it gets. */
async function jwksServer(t: TestContext, signer: NotificationSigner) {
  const hits: string[] = [];
  const url = await listen(t, (req, res) => {
    hits.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'application/json' }).end(signer.jwksJson);
  });
  return { url, hits };
}

const cardNaming = (jwksUrl: string, agentUrl: string): AgentCard => ({
  name: 'push',
  description: 'd',
  version: '1',
  supportedInterfaces: [
    { url: `${agentUrl}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
  ],
  capabilities: {
    pushNotifications: true,
    extensions: [{ uri: PUSH_SIGNING_EXTENSION, params: { jwksUrl: jwksUrl } }],
  },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 's', name: 's', description: 'd', tags: ['t'] }],
});

async function deliverSigned(
  t: TestContext,
  card: AgentCard,
  agentOrigin: string,
  signer: NotificationSigner,
) {
  const inbox = new PushInbox();
  let receiverId = '';
  const base = await listen(t, (req, res) => void inbox.handle(receiverId, req, res));
  const receiver = inbox.create(base, 't1', card, [agentOrigin]);
  receiverId = receiver.id;
  const got: PushDelivery[] = [];
  inbox.subscribe((d) => void got.push(d));
  const body = JSON.stringify({
    statusUpdate: { taskId: 't1', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } },
  });
  const res = await fetch(receiver.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/a2a+json',
      'x-a2a-notification-token': receiver.token,
      'x-a2a-notification-id': 'n1',
      'x-a2a-notification-signature': signer.sign(body, receiver.url, 'n1'),
    },
    body,
  });
  await res.text();
  assert.equal(got.length, 1);
  return got[0]!;
}

test('a push JWKS on another origin than the agent is never fetched', async (t) => {
  const signer = new NotificationSigner();
  const elsewhere = await jwksServer(t, signer);
  const agentOrigin = 'http://127.0.0.1:1';
  const delivery = await deliverSigned(
    t,
    cardNaming(`${elsewhere.url}/jwks.json`, agentOrigin),
    agentOrigin,
    signer,
  );
  assert.deepEqual(elsewhere.hits, [], 'the inspector fetched a JWKS the card pointed elsewhere');
  assert.equal(delivery.signature.status, 'unchecked');
  assert.match(delivery.signature.message, /not on the agent's origin/);
});

test("a push JWKS on the agent's own origin is fetched and the signature checked", async (t) => {
  const signer = new NotificationSigner();
  const agent = await jwksServer(t, signer);
  const delivery = await deliverSigned(t, cardNaming(`${agent.url}/jwks.json`, agent.url), agent.url, signer);
  assert.deepEqual(agent.hits, ['/jwks.json']);
  assert.equal(delivery.signature.status, 'verified', delivery.signature.message);
});
