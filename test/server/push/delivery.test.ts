/**
 * Push delivery end to end (issue 12, SRV-PUSH-2..8): a real webhook on 127.0.0.1, our server,
 * our client. Loopback is refused by default, so these tests allow-list 127.0.0.1 explicitly.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { A2AClient } from '../../../src/client/client.js';
import { InvalidParamsError } from '../../../src/errors/a2a-error.js';
import { MemoryPushOutbox } from '../../../src/core/push/memory-outbox.js';
import { MemoryPushConfigStore } from '../../../src/core/stores/memory/push-config-store.js';
import { PUSH_JWKS_PATH, PUSH_SIGNING_EXTENSION } from '../../../src/core/push/notification-signing.js';
import {
  CARD,
  freePort,
  kindOf,
  LOOPBACK_PUSH,
  pushAgent,
  startPushServer,
  startWebhook,
  until,
} from './support.js';
import { createA2AServer } from '../../../src/server/http.js';

const steps = (n: number) => [
  'task:WORKING',
  ...Array.from({ length: n }, (_, i) => `artifact:a${i}`),
  'status:COMPLETED',
];

describe('push delivery', () => {
  test('SRV-PUSH-2: every event arrives, in order, with the id, auth, token and signature headers', async (t) => {
    const hook = await startWebhook();
    t.after(() => hook.close());
    const { agent } = pushAgent();
    const { server, url } = await startPushServer(agent, LOOPBACK_PUSH);
    t.after(() => server.close());
    const client = await A2AClient.connect(url);
    t.after(() => client.close());
    const reply = await client.send({
      text: 'steps:5',
      pushNotificationConfig: {
        url: hook.url,
        token: 'tok-1',
        authentication: { scheme: 'Bearer', credentials: 'cred-1' },
      },
    });
    assert.equal(reply.kind, 'task');
    await until(() => hook.received.length >= 7, 'seven notifications');
    assert.deepEqual(
      hook.received.map((r) => kindOf(r.json)),
      steps(5),
    );
    const ids = new Set<string>();
    for (const r of hook.received) {
      assert.equal(r.headers['content-type'], 'application/a2a+json');
      assert.equal(r.headers.authorization, 'Bearer cred-1');
      assert.equal(r.headers['x-a2a-notification-token'], 'tok-1');
      assert.match(String(r.headers['x-a2a-notification-signature']), /^[\w-]+\.[\w-]+\.[\w-]+$/);
      ids.add(String(r.headers['x-a2a-notification-id']));
    }
    assert.equal(ids.size, 7, 'each notification has its own id');
  });

  test('SRV-PUSH-4: a receiver refusing connections, then answering 500, then back: nothing lost, order kept', async (t) => {
    const port = await freePort();
    const { agent } = pushAgent();
    const { server, url } = await startPushServer(agent, { ...LOOPBACK_PUSH, maxAttempts: 1000 });
    t.after(() => server.close());
    const client = await A2AClient.connect(url);
    t.after(() => client.close());
    const webhookUrl = `http://127.0.0.1:${port}/hook`;
    const a = await client.send({
      text: 'steps:3',
      pushNotificationConfig: { url: webhookUrl, id: 'first' },
    });
    const b = await client.send({
      text: 'steps:2',
      pushNotificationConfig: { url: webhookUrl, id: 'second' },
    });
    assert.equal(a.kind, 'task');
    assert.equal(b.kind, 'task');
    // Nothing listens yet: connections are refused. Then the receiver answers 500 six times.
    await new Promise((r) => setTimeout(r, 100));
    const hook = await startWebhook((n) => (n < 6 ? 500 : 200), port);
    t.after(() => hook.close());
    await until(() => hook.received.length >= 9, 'all nine notifications');
    const taskIdOf = (json: Record<string, unknown>) =>
      ((json.task as { id?: string })?.id ??
        (json.statusUpdate as { taskId?: string })?.taskId ??
        (json.artifactUpdate as { taskId?: string })?.taskId) as string;
    const taskA = a.kind === 'task' ? a.task.id : '';
    const ofA = hook.received.filter((r) => taskIdOf(r.json) === taskA).map((r) => kindOf(r.json));
    const ofB = hook.received.filter((r) => taskIdOf(r.json) !== taskA).map((r) => kindOf(r.json));
    assert.deepEqual(ofA, steps(3));
    assert.deepEqual(ofB, steps(2));
  });

  test('SRV-PUSH-6: a receiver that hangs is timed out; another config of the same task still gets everything', async (t) => {
    const good = await startWebhook();
    t.after(() => good.close());
    const stuck = await startWebhook(() => 'hang');
    t.after(() => stuck.close());
    const configs = new MemoryPushConfigStore();
    const outbox = new MemoryPushOutbox(configs);
    const { agent, release } = pushAgent();
    const { server, url } = await startPushServer(agent, {
      ...LOOPBACK_PUSH,
      configStore: configs,
      outbox,
      timeoutMs: 200,
      maxAttempts: 2,
      closeGraceMs: 50,
    });
    t.after(() => server.close());
    const client = await A2AClient.connect(url);
    t.after(() => client.close());
    const reply = await client.send({
      text: 'hold',
      returnImmediately: true,
      pushNotificationConfig: { url: stuck.url, id: 'stuck' },
    });
    assert.equal(reply.kind, 'task');
    const taskId = reply.kind === 'task' ? reply.task.id : '';
    await client.createTaskPushNotificationConfig({ taskId, id: 'good', url: good.url });
    release();
    await until(() => good.received.length >= 1, 'the good receiver');
    assert.deepEqual(
      good.received.map((r) => kindOf(r.json)),
      ['status:COMPLETED'],
    );
    await until(() => outbox.pendingCount === 0, 'the stuck deliveries to be dead-lettered');
    const dead = await outbox.list({ taskId, state: 'dead', limit: 10 });
    assert.ok(dead.length >= 1);
    assert.ok(dead.every((d) => d.configId === 'stuck'));
    const attempts = await outbox.attempts(dead[0]!.id);
    assert.equal(attempts.length, 2);
    assert.match(attempts[0]!.error ?? '', /no complete answer within 200 ms/);
    // Operator replay: the dead delivery becomes pending again.
    assert.equal(await outbox.replay(dead[0]!.id), true);
    assert.equal((await outbox.get(dead[0]!.id))?.state, 'pending');
  });

  test('G7/SRV-PUSH-2: a deleted config gets nothing more', async (t) => {
    const hook = await startWebhook();
    t.after(() => hook.close());
    const { agent, release } = pushAgent();
    const { server, url } = await startPushServer(agent, LOOPBACK_PUSH);
    t.after(() => server.close());
    const client = await A2AClient.connect(url);
    t.after(() => client.close());
    const reply = await client.send({
      text: 'hold',
      returnImmediately: true,
      pushNotificationConfig: { url: hook.url, id: 'c' },
    });
    const taskId = reply.kind === 'task' ? reply.task.id : '';
    await until(() => hook.received.length >= 1, 'the first notification');
    await client.deleteTaskPushNotificationConfig(taskId, 'c');
    release();
    await client.waitForTask(taskId, { deadline: 10_000 });
    // The completion is enqueued and then dropped at delivery time (config gone).
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(
      hook.received.map((r) => kindOf(r.json)),
      ['task:WORKING'],
    );
  });
});

describe('push config checks (spec 13.2)', () => {
  test('SRV-PUSH-6: without the allow-list, loopback, private, metadata and http webhooks are refused with a clear error', async (t) => {
    const { agent } = pushAgent();
    const { server, url } = await startPushServer(agent, {});
    t.after(() => server.close());
    const client = await A2AClient.connect(url);
    t.after(() => client.close());
    const reply = await client.send({ text: 'hold', returnImmediately: true });
    const taskId = reply.kind === 'task' ? reply.task.id : '';
    const refused: [string, RegExp][] = [
      ['https://127.0.0.1/hook', /config\.url is refused: .*127\.0\.0\.1 is a loopback, private/],
      ['https://10.1.2.3/hook', /10\.1\.2\.3/],
      ['https://100.64.0.1/hook', /100\.64\.0\.1/],
      ['https://169.254.169.254/latest/meta-data', /169\.254\.169\.254/],
      ['https://[fd00:ec2::254]/', /fd00:ec2::254/],
      ['https://[::ffff:192.168.0.1]/', /192\.168\.0\.1/],
      ['https://224.0.0.1/', /224\.0\.0\.1/],
      ['https://localhost/hook', /localhost is refused/],
      ['http://93.184.216.34/hook', /must use https/],
      ['ftp://example.com/x', /must use https/],
    ];
    for (const [webhook, message] of refused) {
      await assert.rejects(
        client.createTaskPushNotificationConfig({ taskId, url: webhook }),
        (error: unknown) => error instanceof InvalidParamsError && message.test(error.message),
        webhook,
      );
    }
    // Inline in SendMessage too.
    await assert.rejects(
      client.send({ text: 'x', pushNotificationConfig: { url: 'https://127.0.0.1/hook' } }),
      (error: unknown) =>
        error instanceof InvalidParamsError &&
        /configuration\.taskPushNotificationConfig\.url is refused/.test(error.message),
    );
  });

  test('SRV-PUSH-8: an oversized token or credentials, or a header-breaking value, is refused', async (t) => {
    const { agent } = pushAgent();
    const { server, url } = await startPushServer(agent, LOOPBACK_PUSH);
    t.after(() => server.close());
    const client = await A2AClient.connect(url);
    t.after(() => client.close());
    const reply = await client.send({ text: 'hold', returnImmediately: true });
    const taskId = reply.kind === 'task' ? reply.task.id : '';
    const hook = 'http://127.0.0.1:9/hook';
    await assert.rejects(
      client.createTaskPushNotificationConfig({ taskId, url: hook, token: 'x'.repeat(1025) }),
      (e: unknown) => e instanceof InvalidParamsError && /config\.token is longer than 1024/.test(e.message),
    );
    await assert.rejects(
      client.createTaskPushNotificationConfig({
        taskId,
        url: hook,
        authentication: { scheme: 'Bearer', credentials: 'y'.repeat(5000) },
      }),
      (e: unknown) => e instanceof InvalidParamsError && /credentials is longer than 4096/.test(e.message),
    );
    await assert.rejects(
      client.createTaskPushNotificationConfig({ taskId, url: hook, token: 'a\r\nX-Evil: 1' }),
      (e: unknown) => e instanceof InvalidParamsError && /printable ASCII/.test(e.message),
    );
    const ok = await client.createTaskPushNotificationConfig({ taskId, url: hook, token: 'x'.repeat(1024) });
    assert.equal(ok.url, hook);
  });

  test('SRV-PUSH-1: pushNotifications on: the card says so and names the push JWKS (G15)', async (t) => {
    const { agent } = pushAgent();
    const { server, url } = await startPushServer(agent, {});
    t.after(() => server.close());
    const card = server.card();
    assert.equal(card.capabilities.pushNotifications, true);
    const ext = card.capabilities.extensions?.find((e) => e.uri === PUSH_SIGNING_EXTENSION);
    assert.equal(ext?.params?.jwksUrl, `${url}${PUSH_JWKS_PATH}`);
    const res = await fetch(`${url}${PUSH_JWKS_PATH}`);
    assert.equal(res.status, 200);
    const jwks = (await res.json()) as { keys: { kty: string; crv: string; kid: string; d?: string }[] };
    assert.equal(jwks.keys.length, 1);
    assert.equal(jwks.keys[0]!.kty, 'EC');
    assert.equal(jwks.keys[0]!.crv, 'P-256');
    assert.equal(jwks.keys[0]!.d, undefined, 'no private part');
    // Without push, neither the extension nor the JWKS.
    const plain = createA2AServer({ agent, card: CARD });
    const { url: plainUrl } = await plain.listen(0, '127.0.0.1');
    t.after(() => plain.close());
    assert.equal(plain.card().capabilities.extensions, undefined);
    assert.equal((await fetch(`${plainUrl}${PUSH_JWKS_PATH}`)).status, 404);
  });
});
