/**
 * CLI-PUSH-4: when the sender names each notification (`X-A2A-Notification-Id`, the same on
 * retries), duplicates are those with the same id: two notifications with equal content but
 * different ids (the same text chunk appended twice) are both processed; a retry is not.
 * The app learns each notification's id and whether its signature was checked; refusals are
 * reported through `onReject`.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { textOf } from '../../src/client/artifacts.js';
import {
  createPushReceiver,
  type PushNotificationInfo,
  type PushReceiverOptions,
} from '../../src/client/push-receiver.js';

const servers: Server[] = [];
after(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
});

async function receiver(options: Partial<PushReceiverOptions> = {}) {
  const delivered: { text: string; info: PushNotificationInfo }[] = [];
  const rejected: { status: number; reason: string }[] = [];
  const server = createServer(
    createPushReceiver({
      token: 'secret',
      expectTask: () => true,
      onEvent: (e, _id, info) => {
        delivered.push({
          text: e.kind === 'artifactUpdate' ? textOf(e.artifactUpdate.artifact) : e.kind,
          info,
        });
      },
      onReject: (r) => rejected.push(r),
      ...options,
    }),
  );
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const post = async (body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'x-a2a-notification-token': 'secret', 'content-type': 'application/a2a+json', ...headers },
      body: JSON.stringify(body),
    });
    await res.text();
    return res.status;
  };
  return { post, delivered, rejected };
}

const dot = {
  artifactUpdate: {
    taskId: 't1',
    contextId: 'c1',
    append: true,
    artifact: { artifactId: 'progress', parts: [{ text: '.' }] },
  },
};

describe('push receiver: notification ids', () => {
  test('CLI-PUSH-4: equal content under two ids is two notifications; a retried id is one', async () => {
    const { post, delivered } = await receiver();
    assert.equal(await post(dot, { 'x-a2a-notification-id': 'n1' }), 200);
    assert.equal(await post(dot, { 'x-a2a-notification-id': 'n2' }), 200);
    assert.equal(await post(dot, { 'x-a2a-notification-id': 'n2' }), 200, 'a retry is acknowledged');
    assert.deepEqual(
      delivered.map((d) => [d.text, d.info.notificationId, d.info.signature]),
      [
        ['.', 'n1', 'unchecked'],
        ['.', 'n2', 'unchecked'],
      ],
    );
  });

  test('onReject hears why a notification was refused', async () => {
    const { post, delivered, rejected } = await receiver();
    assert.equal(await post(dot, { 'x-a2a-notification-token': 'wrong' }), 401);
    assert.equal(await post({ nothing: true }), 400);
    assert.deepEqual(delivered, []);
    assert.deepEqual(
      rejected.map((r) => r.status),
      [401, 400],
    );
    assert.match(rejected[0]!.reason, /credentials/);
  });
});
