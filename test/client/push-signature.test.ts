/**
 * SRV-PUSH-7 / G15: our push receiver verifies the server's notification JWT against the JWKS
 * the card names, and rejects a body changed on the way, a replay to another webhook, and a
 * token signed with a key the agent does not publish.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync } from 'node:crypto';
import { A2AClient } from '../../src/client/client.js';
import { createPushReceiver } from '../../src/client/push-receiver.js';
import { pushJwksUrlOf } from '../../src/client/push-signature.js';
import { NotificationSigner } from '../../src/core/push/notification-signing.js';
import {
  kindOf,
  LOOPBACK_PUSH,
  pushAgent,
  startPushServer,
  startWebhook,
  until,
} from '../server/push/support.js';

async function listen(handler: Parameters<typeof createServer>[1]) {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    url,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

describe('signed push notifications', () => {
  test('SRV-PUSH-7: the receiver verifies every notification with the JWKS named on the card', async (t) => {
    const { agent } = pushAgent();
    const { server, url } = await startPushServer(agent, LOOPBACK_PUSH);
    t.after(() => server.close());
    const client = await A2AClient.connect(url);
    t.after(() => client.close());
    const jwks = pushJwksUrlOf(client.card!);
    assert.ok(jwks, 'the card names the push JWKS');
    const events: string[] = [];
    const errors: string[] = [];
    let hookUrl = '';
    const receiver = await listen((req, res) =>
      createPushReceiver({
        signature: { jwks: jwks!, audience: hookUrl },
        expectTask: () => true,
        onEvent: (event) => void events.push(event.kind),
        onError: (e) => void errors.push(String(e)),
      })(req, res),
    );
    hookUrl = receiver.url;
    t.after(() => receiver.close());
    await client.send({ text: 'steps:2', pushNotificationConfig: { url: hookUrl } });
    await until(() => events.length >= 4, 'four verified notifications');
    assert.deepEqual(events, ['task', 'artifactUpdate', 'artifactUpdate', 'statusUpdate']);
    assert.deepEqual(errors, []);
  });

  test('SRV-PUSH-7: a changed body, another audience or a foreign key is rejected with 401', async (t) => {
    const { agent } = pushAgent();
    const recorder = await startWebhook();
    t.after(() => recorder.close());
    const { server, url } = await startPushServer(agent, LOOPBACK_PUSH);
    t.after(() => server.close());
    const client = await A2AClient.connect(url);
    t.after(() => client.close());
    await client.send({ text: 'steps:0', pushNotificationConfig: { url: recorder.url } });
    await until(() => recorder.received.length >= 2, 'two notifications');
    const original = recorder.received[1]!;
    assert.equal(kindOf(original.json), 'status:COMPLETED');

    const accepted: string[] = [];
    const make = (audience: string) =>
      listen(
        createPushReceiver({
          signature: { jwks: pushJwksUrlOf(client.card!)!, audience },
          expectTask: () => true,
          onEvent: (e) => void accepted.push(e.kind),
        }),
      );
    // The receiver believes it is the recorder's URL (the JWT's aud), so the original verifies.
    const receiver = await make(recorder.url);
    t.after(() => receiver.close());
    const post = async (body: string, headers: Record<string, string>) => {
      const res = await fetch(receiver.url, { method: 'POST', headers, body });
      return { status: res.status, text: await res.text() };
    };
    const headers: Record<string, string> = {
      'content-type': 'application/a2a+json',
      'x-a2a-notification-id': String(original.headers['x-a2a-notification-id']),
      'x-a2a-notification-signature': String(original.headers['x-a2a-notification-signature']),
    };
    assert.equal((await post(original.body, headers)).status, 200);
    const changed = original.body.replace('TASK_STATE_COMPLETED', 'TASK_STATE_FAILED');
    const tampered = await post(changed, headers);
    assert.equal(tampered.status, 401);
    assert.match(tampered.text, /the body was changed/);
    const noSignature = await post(original.body, { 'content-type': 'application/a2a+json' });
    assert.equal(noSignature.status, 401);
    assert.match(noSignature.text, /not signed/);
    const otherId = await post(original.body, { ...headers, 'x-a2a-notification-id': 'another' });
    assert.equal(otherId.status, 401);

    // A receiver at another URL refuses a notification meant for the recorder.
    const elsewhere = await make('http://127.0.0.1:1/other');
    t.after(() => elsewhere.close());
    const res = await fetch(elsewhere.url, { method: 'POST', headers, body: original.body });
    assert.equal(res.status, 401);
    assert.match(await res.text(), /aud/);

    // A token made with a key the agent does not publish.
    const forger = new NotificationSigner({
      privateKey: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey,
      kid: ((await (await fetch(pushJwksUrlOf(client.card!)!)).json()) as { keys: { kid: string }[] })
        .keys[0]!.kid,
    });
    const forged = forger.sign(changed, recorder.url, headers['x-a2a-notification-id']!);
    const forgedRes = await post(changed, { ...headers, 'x-a2a-notification-signature': forged });
    assert.equal(forgedRes.status, 401);
    assert.match(forgedRes.text, /signature/);
    assert.deepEqual(accepted, ['statusUpdate']);
  });
});
