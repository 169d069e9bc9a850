/**
 * CLI-PUSH-4 / CLI-PUSH-7: the push receiver processes each notification once and rejects
 * stale ones, through real HTTP POSTs.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { statusOf } from '../../src/client/client.js';
import { createPushReceiver, type PushReceiverOptions } from '../../src/client/push-receiver.js';

const servers: Server[] = [];
after(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
});

/** Starts a receiver; returns a poster and the list of delivered events. */
async function receiver(options: Partial<PushReceiverOptions> = {}) {
  const delivered: string[] = [];
  const server = createServer(
    createPushReceiver({
      token: 'secret',
      expectTask: (id) => id.startsWith('t'),
      onEvent: (e, id) => {
        delivered.push(`${id}:${e.kind}:${statusOf(e)?.state ?? ''}`);
      },
      ...options,
    }),
  );
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const post = async (body: unknown) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'x-a2a-notification-token': 'secret', 'content-type': 'application/a2a+json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    await res.text();
    return res.status;
  };
  return { post, delivered };
}

const status = (taskId: string, state: string, timestamp?: string) => ({
  statusUpdate: {
    taskId,
    contextId: 'c1',
    status: { state, ...(timestamp ? { timestamp } : {}) },
  },
});

describe('push receiver: duplicates and stale notifications', () => {
  test('CLI-PUSH-4/7: a repeated notification is answered 200 but processed once', async () => {
    const { post, delivered } = await receiver();
    const at = new Date().toISOString();
    const working = status('t1', 'TASK_STATE_WORKING', at);
    assert.equal(await post(working), 200);
    assert.equal(await post(working), 200);
    // Same content, keys in another order: still the same notification.
    const reordered = `{"statusUpdate":{"status":{"timestamp":"${at}","state":"TASK_STATE_WORKING"},"contextId":"c1","taskId":"t1"}}`;
    assert.equal(await post(reordered), 200);
    // A new state of the task, or the same event for another task, is new.
    assert.equal(await post(status('t1', 'TASK_STATE_COMPLETED', at)), 200);
    assert.equal(await post(status('t2', 'TASK_STATE_WORKING', at)), 200);
    assert.deepEqual(delivered, [
      't1:statusUpdate:TASK_STATE_WORKING',
      't1:statusUpdate:TASK_STATE_COMPLETED',
      't2:statusUpdate:TASK_STATE_WORKING',
    ]);
  });

  test('CLI-PUSH-7: memory is bounded: the oldest remembered events are forgotten first', async () => {
    const { post, delivered } = await receiver({ dedupe: { maxEntries: 2 } });
    for (const id of ['t1', 't2', 't3', 't1', 't3']) {
      assert.equal(await post(status(id, 'TASK_STATE_WORKING')), 200);
    }
    // t1 was evicted by t3, so its repeat is processed again; t3's repeat is not.
    assert.deepEqual(
      delivered.map((d) => d.split(':')[0]),
      ['t1', 't2', 't3', 't1'],
    );
  });

  test('dedupe: false processes every delivery', async () => {
    const { post, delivered } = await receiver({ dedupe: false });
    const e = status('t1', 'TASK_STATE_WORKING');
    assert.equal(await post(e), 200);
    assert.equal(await post(e), 200);
    assert.equal(delivered.length, 2);
  });

  test('CLI-PUSH-7: maxAgeMs rejects a notification whose status is too old', async () => {
    const { post, delivered } = await receiver({ maxAgeMs: 60_000 });
    const old = new Date(Date.now() - 3_600_000).toISOString();
    assert.equal(await post(status('t1', 'TASK_STATE_WORKING', old)), 400);
    assert.equal(
      await post({
        task: { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING', timestamp: old } },
      }),
      400,
    );
    assert.equal(await post(status('t1', 'TASK_STATE_WORKING', 'yesterday')), 400);
    assert.deepEqual(delivered, []);
    // Fresh, or without a timestamp to judge by: accepted.
    assert.equal(await post(status('t1', 'TASK_STATE_WORKING', new Date().toISOString())), 200);
    assert.equal(await post(status('t1', 'TASK_STATE_COMPLETED')), 200);
    assert.equal(
      await post({
        artifactUpdate: {
          taskId: 't1',
          contextId: 'c1',
          artifact: { artifactId: 'a', parts: [{ text: 'x' }] },
        },
      }),
      200,
    );
    assert.deepEqual(delivered, [
      't1:statusUpdate:TASK_STATE_WORKING',
      't1:statusUpdate:TASK_STATE_COMPLETED',
      't1:artifactUpdate:',
    ]);
  });
});
