/**
 * SRV-PUSH-5: the outbox outlives a server that stops mid-backlog (as a durable store's does:
 * the memory outbox stands in for one, handed to the next server), and two servers sharing an
 * outbox (replicas) never deliver the same notification twice.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { A2AClient } from '../../../src/client/client.js';
import { MemoryPushOutbox } from '../../../src/core/push/memory-outbox.js';
import { MemoryPushConfigStore } from '../../../src/core/stores/memory/push-config-store.js';
import { MemoryTaskStore } from '../../../src/core/stores/memory/task-store.js';
import {
  freePort,
  kindOf,
  LOOPBACK_PUSH,
  pushAgent,
  startPushServer,
  startWebhook,
  until,
} from './support.js';

test('SRV-PUSH-5: a server stopped with a backlog; the next one on the same outbox delivers it, in order', async (t) => {
  const configs = new MemoryPushConfigStore();
  const outbox = new MemoryPushOutbox(configs);
  const store = new MemoryTaskStore();
  const port = await freePort();
  const { agent } = pushAgent();
  const push = { ...LOOPBACK_PUSH, configStore: configs, outbox, maxAttempts: 1000, closeGraceMs: 50 };
  const first = await startPushServer(agent, push, { store });
  const client = await A2AClient.connect(first.url);
  const reply = await client.send({
    text: 'steps:3',
    pushNotificationConfig: { url: `http://127.0.0.1:${port}/hook` },
  });
  assert.equal(reply.kind, 'task');
  await client.close();
  await first.server.close(); // nothing delivered: the receiver is down
  assert.equal(outbox.pendingCount, 5);

  const hook = await startWebhook(() => 200, port);
  t.after(() => hook.close());
  const second = await startPushServer(agent, push, { store });
  t.after(() => second.server.close());
  await until(() => hook.received.length >= 5, 'the backlog after the restart');
  assert.deepEqual(
    hook.received.map((r) => kindOf(r.json)),
    ['task:WORKING', 'artifact:a0', 'artifact:a1', 'artifact:a2', 'status:COMPLETED'],
  );
});

test('SRV-PUSH-5: two servers on one outbox: each notification is delivered once', async (t) => {
  const configs = new MemoryPushConfigStore();
  const outbox = new MemoryPushOutbox(configs);
  const store = new MemoryTaskStore();
  const hook = await startWebhook();
  t.after(() => hook.close());
  const { agent } = pushAgent();
  const push = { ...LOOPBACK_PUSH, configStore: configs, outbox, concurrency: 4 };
  const a = await startPushServer(agent, push, { store });
  t.after(() => a.server.close());
  const b = await startPushServer(agent, push, { store });
  t.after(() => b.server.close());
  const clientA = await A2AClient.connect(a.url);
  t.after(() => clientA.close());
  const clientB = await A2AClient.connect(b.url);
  t.after(() => clientB.close());
  const sends = [];
  for (let i = 0; i < 10; i++) {
    const client = i % 2 ? clientA : clientB;
    sends.push(client.send({ text: 'steps:2', pushNotificationConfig: { url: hook.url } }));
  }
  await Promise.all(sends);
  await until(() => hook.received.length >= 40 && outbox.pendingCount === 0, 'forty notifications');
  const ids = hook.received.map((r) => String(r.headers['x-a2a-notification-id']));
  assert.equal(ids.length, 40);
  assert.equal(new Set(ids).size, 40, 'no notification delivered twice');
});
