/**
 * Interop: the v0.3 SDK's gRPC client (@a2a-js/sdk 0.3.14 `GrpcTransport`, package `a2a.v1`)
 * drives an a2a-kit server whose gRPC port serves `lf.a2a.v1` (v1.0) and `a2a.v1` (v0.3)
 * side by side: send, stream, get, cancel, resubscribe, input-required, push configs, the card
 * and the error codes the SDK maps back.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Message as V03Message, Task as V03Task, TaskStatusUpdateEvent } from '@a2a-js/sdk-v03';
import {
  ClientFactory,
  ClientFactoryOptions,
  TaskNotCancelableError,
  TaskNotFoundError,
  type Client,
} from '@a2a-js/sdk-v03/client';
import { GrpcTransportFactory } from '@a2a-js/sdk-v03/client/grpc';
import { benchCard, benchExecutor } from '../../src/agents/index.js';
import { A2AClient } from '../../src/client/client.js';
import { createA2AServer, type A2AServer } from '../../src/server/http.js';
import { collect } from '../support/handler.js';

let server: A2AServer;
let baseUrl: string;
let grpcPort: number;
let client: Client;

before(async () => {
  server = createA2AServer({
    agent: benchExecutor,
    card: benchCard,
    extendedCard: { ...benchCard, description: 'extended' },
    pushNotifications: true,
    grpc: { port: 0, host: '127.0.0.1' },
  });
  const info = await server.listen(0, '127.0.0.1');
  baseUrl = info.url;
  grpcPort = info.grpcPort as number;
  client = await new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new GrpcTransportFactory()],
      preferredTransports: ['GRPC'],
    }),
  ).createFromUrl(baseUrl);
});

after(async () => {
  await server.close();
});

function message(text: string, extra: Partial<V03Message> = {}): V03Message {
  return {
    kind: 'message',
    messageId: crypto.randomUUID(),
    role: 'user',
    parts: [{ kind: 'text', text }],
    ...extra,
  };
}

function artifactText(task: V03Task): string {
  return (task.artifacts ?? [])
    .flatMap((a) => a.parts)
    .map((p) => (p.kind === 'text' ? p.text : ''))
    .join('');
}

describe('v0.3 SDK GrpcTransport against a2a-kit (a2a.v1 beside lf.a2a.v1)', () => {
  test('the card lists the gRPC port at 0.3 too, in additionalInterfaces', async () => {
    const card = (await (await fetch(`${baseUrl}/.well-known/agent-card.json`)).json()) as {
      additionalInterfaces: { url: string; transport: string }[];
    };
    assert.ok(
      card.additionalInterfaces.some((i) => i.transport === 'GRPC' && i.url === `127.0.0.1:${grpcPort}`),
    );
  });

  test('sendMessage: a Message, then a blocking Task; getTask', async () => {
    const echo = (await client.sendMessage({ message: message('echo:grpc') })) as V03Message;
    assert.equal(echo.kind, 'message');
    assert.deepEqual(echo.parts, [{ kind: 'text', text: 'grpc' }]);
    const task = (await client.sendMessage({ message: message('task:grpc') })) as V03Task;
    assert.equal(task.status.state, 'completed');
    assert.equal(artifactText(task), 'grpc');
    const got = await client.getTask({ id: task.id, historyLength: 1 });
    assert.equal(got.status.state, 'completed');
    assert.equal(got.history?.length, 1);
  });

  test('sendMessageStream: events with final on the last status update', async () => {
    const events = await collect(client.sendMessageStream({ message: message('stream:3') }));
    assert.equal(events[0]?.kind, 'task');
    assert.equal(events.filter((e) => e.kind === 'artifact-update').length, 3);
    const last = events.at(-1) as TaskStatusUpdateEvent;
    assert.equal(last.status.state, 'completed');
    assert.equal(last.final, true);
  });

  test('resubscribe and cancel (TASK_STATE_CANCELLED on the wire)', async () => {
    const polling = await new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new GrpcTransportFactory()],
        preferredTransports: ['GRPC'],
        clientConfig: { polling: true },
      }),
    ).createFromUrl(baseUrl);
    const task = (await polling.sendMessage({ message: message('slow:60000') })) as V03Task;
    assert.notEqual(task.status.state, 'completed');
    const stream = client.resubscribeTask({ id: task.id });
    const first = await stream.next();
    assert.equal(first.done, false);
    const canceled = await client.cancelTask({ id: task.id });
    assert.equal(canceled.status.state, 'canceled');
    const rest = await collect({ [Symbol.asyncIterator]: () => stream });
    assert.equal((rest.at(-1) as TaskStatusUpdateEvent).status.state, 'canceled');
  });

  test('input-required round trip', async () => {
    const asked = (await client.sendMessage({ message: message('input:Which tag?') })) as V03Task;
    assert.equal(asked.status.state, 'input-required');
    const done = (await client.sendMessage({
      message: message('v1.2.3', { taskId: asked.id, contextId: asked.contextId }),
    })) as V03Task;
    assert.equal(done.status.state, 'completed');
    assert.equal(artifactText(done), 'v1.2.3');
  });

  test('error codes the SDK maps: NOT_FOUND, FAILED_PRECONDITION on cancel', async () => {
    await assert.rejects(client.getTask({ id: 'no-such-task' }), TaskNotFoundError);
    const task = (await client.sendMessage({ message: message('task:x') })) as V03Task;
    await assert.rejects(client.cancelTask({ id: task.id }), TaskNotCancelableError);
  });

  test('push configs: create, get, list, delete', async () => {
    const task = (await client.sendMessage({ message: message('task:push') })) as V03Task;
    const config = {
      id: 'g1',
      url: 'https://hooks.example/g',
      token: 'tok',
      authentication: { schemes: ['Bearer'] },
    };
    const set = await client.setTaskPushNotificationConfig({
      taskId: task.id,
      pushNotificationConfig: config,
    });
    assert.equal(set.taskId, task.id);
    assert.equal(set.pushNotificationConfig.url, config.url);
    const got = await client.getTaskPushNotificationConfig({
      id: task.id,
      pushNotificationConfigId: 'g1',
    } as {
      id: string;
    });
    assert.deepEqual(got, set);
    assert.deepEqual(await client.listTaskPushNotificationConfig({ id: task.id }), [set]);
    await client.deleteTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: 'g1' });
    assert.deepEqual(await client.listTaskPushNotificationConfig({ id: task.id }), []);
  });

  test('GetAgentCard: the extended card in the v0.3 shape', async () => {
    const card = await client.getAgentCard();
    assert.equal(card.description, 'extended');
    assert.equal(card.protocolVersion, '0.3.0');
  });

  test('the v1.0 service on the same port is unaffected', async () => {
    const v1 = await A2AClient.connect(baseUrl, { bindings: ['GRPC'], retry: false });
    try {
      const reply = await v1.send({ text: 'task:v1 still' });
      assert.equal(reply.kind === 'task' && reply.task.status.state, 'TASK_STATE_COMPLETED');
    } finally {
      await v1.close();
    }
  });
});
