/**
 * Issue 27, finding 9: a signed notification replayed with `X-A2A-Notification-Id` stripped is
 * the same notification (its token's `jti`), caught by the replay cache even with `dedupe`
 * off; a token without `jti` is refused. Real POSTs to a receiver on 127.0.0.1, tokens made by
 * the server's own NotificationSigner.
 */
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import { SignJWT, exportJWK, importJWK, type JSONWebKeySet, type JWK } from 'jose';
import { createPushReceiver, type PushReceiverOptions } from '../../src/client/push-receiver.js';
import { NotificationSigner } from '../../src/core/push/notification-signing.js';

async function receiver(
  t: TestContext,
  signer: NotificationSigner,
  options: Partial<PushReceiverOptions> = {},
) {
  const delivered: string[] = [];
  const rejected: string[] = [];
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  // One receiver for the whole test: its replay cache is what is under test.
  server.on(
    'request',
    createPushReceiver({
      signature: { jwks: JSON.parse(signer.jwksJson) as JSONWebKeySet, audience: url },
      expectTask: () => true,
      onEvent: (e, id, info) => void delivered.push(`${id}:${e.kind}:${info.notificationId ?? ''}`),
      onReject: (r) => void rejected.push(`${r.status} ${r.reason}`),
      ...options,
    }),
  );
  t.after(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  const post = async (body: string, headers: Record<string, string>) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/a2a+json', ...headers },
      body,
    });
    return { status: res.status, text: await res.text() };
  };
  return { post, delivered, rejected, url: () => url };
}

const body = JSON.stringify({
  statusUpdate: { taskId: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' } },
});

describe('finding 9: the signed jti is the replay key', () => {
  for (const dedupe of [undefined, false] as const) {
    test(`a replay without X-A2A-Notification-Id is not handed on (dedupe ${String(dedupe ?? 'default')})`, async (t) => {
      const signer = new NotificationSigner();
      const r = await receiver(t, signer, dedupe === false ? { dedupe } : {});
      const signature = signer.sign(body, r.url(), 'n-1');
      const first = await r.post(body, {
        'x-a2a-notification-id': 'n-1',
        'x-a2a-notification-signature': signature,
      });
      assert.equal(first.status, 200, first.text);
      // The attacker saw the request and sends it again without the id header.
      const replay = await r.post(body, { 'x-a2a-notification-signature': signature });
      assert.equal(replay.status, 200, replay.text);
      const replayWithId = await r.post(body, {
        'x-a2a-notification-id': 'n-1',
        'x-a2a-notification-signature': signature,
      });
      assert.equal(replayWithId.status, 200);
      assert.deepEqual(r.delivered, ['t1:statusUpdate:n-1'], 'the replay reached the application');
      // A new notification with the same body (a new jti) is new.
      const next = await r.post(body, { 'x-a2a-notification-signature': signer.sign(body, r.url(), 'n-2') });
      assert.equal(next.status, 200);
      assert.deepEqual(r.delivered, ['t1:statusUpdate:n-1', 't1:statusUpdate:n-2']);
    });
  }

  test('a dedupe window shorter than the token life does not open a replay gap', async (t) => {
    const signer = new NotificationSigner();
    const r = await receiver(t, signer, { dedupe: { windowMs: 1 } });
    const signature = signer.sign(body, r.url(), 'n-9');
    assert.equal((await r.post(body, { 'x-a2a-notification-signature': signature })).status, 200);
    await new Promise((resolve) => setTimeout(resolve, 20)); // past the 1 ms dedupe window
    assert.equal((await r.post(body, { 'x-a2a-notification-signature': signature })).status, 200);
    assert.deepEqual(r.delivered, ['t1:statusUpdate:n-9']);
  });

  test('a notification token without jti is refused', async (t) => {
    const signer = new NotificationSigner();
    const r = await receiver(t, signer);
    const { privateKey, alg, kid } = signer.signingKey;
    const jwk = (await exportJWK(privateKey)) as JWK;
    const now = Math.floor(Date.now() / 1000);
    const noJti = await new SignJWT({
      request_body_sha256: createHash('sha256').update(body).digest('hex'),
    })
      .setProtectedHeader({ alg, kid, typ: 'JWT' })
      .setAudience(r.url())
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .sign(await importJWK(jwk, alg));
    const res = await r.post(body, { 'x-a2a-notification-signature': noJti });
    assert.equal(res.status, 401);
    assert.match(res.text, /jti/);
    assert.deepEqual(r.delivered, []);
  });
});
