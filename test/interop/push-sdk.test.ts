/**
 * Push interop (issue 12) with the official SDK (@a2a-js/sdk 1.3.0): its client registers push
 * configs on our server in its own shapes (inline in SendMessage and through the four config
 * operations) and our server delivers to them; our push receiver accepts what the SDK's server
 * sends.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  ListTaskPushNotificationConfigsRequest,
  SendMessageRequest,
  TaskPushNotificationConfig,
  type Message,
  type Task,
} from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from '@a2a-js/sdk/client';
import { A2AClient } from '../../src/client/client.js';
import { createPushReceiver } from '../../src/client/push-receiver.js';
import { statusOf } from '../../src/client/client.js';
import { startSdkServer } from '../support/sdk-server.js';
import {
  kindOf,
  LOOPBACK_PUSH,
  pushAgent,
  startPushServer,
  startWebhook,
  until,
} from '../server/push/support.js';

function isTask(result: Message | Task): result is Task {
  return 'status' in result;
}

for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
  describe(`SDK client as push client over ${binding}`, () => {
    test('SRV-PUSH-2: inline and created configs in the SDK shapes are delivered to', async (t) => {
      const hook = await startWebhook();
      t.after(() => hook.close());
      const { agent, release } = pushAgent();
      const { server, url } = await startPushServer(agent, LOOPBACK_PUSH);
      t.after(() => server.close());
      const factory = new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
          transports: [new JsonRpcTransportFactory(), new RestTransportFactory()],
          preferredTransports: [binding],
        }),
      );
      const client = await factory.createFromUrl(url);

      // Inline in SendMessage.
      const inline = await client.sendMessage(
        SendMessageRequest.fromJSON({
          message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'steps:1' }] },
          configuration: {
            taskPushNotificationConfig: {
              url: hook.url,
              token: 'sdk-inline',
              authentication: { scheme: 'Bearer', credentials: 'c1' },
            },
          },
        }),
      );
      assert.ok(isTask(inline));
      await until(() => hook.received.length >= 3, 'the inline config notifications');
      assert.deepEqual(
        hook.received.map((r) => kindOf(r.json)),
        ['task:WORKING', 'artifact:a0', 'status:COMPLETED'],
      );
      assert.equal(hook.received[0]!.headers['x-a2a-notification-token'], 'sdk-inline');
      assert.equal(hook.received[0]!.headers.authorization, 'Bearer c1');

      // Created, read, listed, then delivered to.
      const held = await client.sendMessage(
        SendMessageRequest.fromJSON({
          message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hold' }] },
          configuration: { returnImmediately: true },
        }),
      );
      assert.ok(isTask(held));
      const created = await client.createTaskPushNotificationConfig(
        TaskPushNotificationConfig.fromJSON({
          taskId: held.id,
          id: 'sdk-config',
          url: hook.url,
          token: 'sdk-created',
        }),
      );
      assert.equal(created.id, 'sdk-config');
      const got = await client.getTaskPushNotificationConfig(
        GetTaskPushNotificationConfigRequest.fromJSON({ taskId: held.id, id: 'sdk-config' }),
      );
      assert.equal(got.url, hook.url);
      const listed = await client.listTaskPushNotificationConfig(
        ListTaskPushNotificationConfigsRequest.fromJSON({ taskId: held.id }),
      );
      assert.deepEqual(
        listed.configs.map((c) => c.id),
        ['sdk-config'],
      );
      const before = hook.received.length;
      release();
      await until(() => hook.received.length >= before + 1, 'the completion');
      const last = hook.received.at(-1)!;
      assert.equal(kindOf(last.json), 'status:COMPLETED');
      assert.equal(last.headers['x-a2a-notification-token'], 'sdk-created');

      // A refused webhook is an error the SDK surfaces.
      await assert.rejects(
        client.createTaskPushNotificationConfig(
          TaskPushNotificationConfig.fromJSON({ taskId: held.id, url: 'https://169.254.169.254/latest' }),
        ),
        /169\.254\.169\.254/,
      );
      await client.deleteTaskPushNotificationConfig(
        DeleteTaskPushNotificationConfigRequest.fromJSON({ taskId: held.id, id: 'sdk-config' }),
      );
    });
  });
}

describe("our push receiver against the SDK server's notifications", () => {
  test('CLI-PUSH-1..3: every notification the SDK server sends is accepted and typed', async (t) => {
    const sdk = await startSdkServer({ stepMs: 5 });
    t.after(() => sdk.close());
    const states: string[] = [];
    const kinds: string[] = [];
    const receiver = createServer(
      createPushReceiver({
        token: 'from-sdk',
        expectTask: () => true,
        onEvent: (event) => {
          kinds.push(event.kind);
          const state = statusOf(event)?.state;
          if (state) states.push(state);
        },
      }),
    );
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    t.after(() => {
      receiver.closeAllConnections();
      return new Promise<void>((r) => receiver.close(() => r()));
    });
    const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const client = await A2AClient.connect(sdk.url);
    t.after(() => client.close());
    await client.send({ text: 'stream:3', pushNotificationConfig: { url: hookUrl, token: 'from-sdk' } });
    await until(() => states.includes('TASK_STATE_COMPLETED'), 'the SDK server to push the completion');
    assert.ok(kinds.length >= 2, `got ${kinds.join(',')}`);
  });
});
