/**
 * Interop: the v0.3 SDK's REST client (@a2a-js/sdk 0.3.14 `RestTransport`, v0.3 ProtoJSON on
 * `/v1/...` paths) drives an a2a-kit server: send, stream, get, cancel, resubscribe, the
 * input-required round trip, push configs and the extended card, plus the proto3 `blocking` trap
 * (the SDK omits `blocking: false`).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Message as V03Message, Task as V03Task, TaskStatusUpdateEvent } from '@a2a-js/sdk-v03';
import {
  ClientFactory,
  ClientFactoryOptions,
  TaskNotFoundError,
  TaskNotCancelableError,
  type Client,
} from '@a2a-js/sdk-v03/client';
import { benchCard, benchExecutor, echoExecutor } from '../../src/agents/index.js';
import type { AgentExecutor } from '../../src/core/executor.js';
import { createA2AServer, type A2AServer } from '../../src/server/http.js';
import { collect } from '../support/handler.js';

const agent: AgentExecutor = {
  async execute(ctx, events) {
    const first = ctx.message.parts[0];
    if (first?.text === undefined || first.text === 'parts') return echoExecutor.execute(ctx, events);
    return benchExecutor.execute(ctx, events);
  },
};

let server: A2AServer;
let baseUrl: string;

before(async () => {
  server = createA2AServer({
    agent,
    card: { ...benchCard, defaultInputModes: ['text/plain', 'application/json', 'image/*'] },
    extendedCard: { ...benchCard, description: 'extended' },
    pushNotifications: true,
  });
  baseUrl = (await server.listen(0, '127.0.0.1')).url;
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

function restClient(polling = false): Promise<Client> {
  return new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      preferredTransports: ['HTTP+JSON'],
      clientConfig: { polling },
    }),
  ).createFromUrl(baseUrl);
}

function artifactText(task: V03Task): string {
  return (task.artifacts ?? [])
    .flatMap((a) => a.parts)
    .map((p) => (p.kind === 'text' ? p.text : ''))
    .join('');
}

describe('v0.3 SDK RestTransport against a2a-kit', () => {
  let client: Client;

  before(async () => {
    client = await restClient();
  });

  test('sendMessage: a direct Message, then a blocking Task; getTask with historyLength', async () => {
    const echo = await client.sendMessage({ message: message('echo:rest') });
    assert.equal(echo.kind, 'message');
    assert.deepEqual((echo as V03Message).parts, [{ kind: 'text', text: 'rest' }]);
    const task = (await client.sendMessage({ message: message('task:rest') })) as V03Task;
    assert.equal(task.kind, 'task');
    assert.equal(task.status.state, 'completed');
    assert.equal(artifactText(task), 'rest');
    const got = await client.getTask({ id: task.id, historyLength: 1 });
    assert.equal(got.status.state, 'completed');
    assert.equal(got.history?.length, 1);
  });

  test('the blocking trap: a polling client omits blocking:false, and gets the task at once', async () => {
    const polling = await restClient(true);
    const task = (await polling.sendMessage({ message: message('slow:60000') })) as V03Task;
    assert.ok(['submitted', 'working'].includes(task.status.state), task.status.state);
    const canceled = await polling.cancelTask({ id: task.id });
    assert.equal(canceled.status.state, 'canceled');
  });

  test('sendMessageStream: proto events become v0.3 events; final on the last one', async () => {
    const events = await collect(client.sendMessageStream({ message: message('stream:3') }));
    assert.equal(events[0]?.kind, 'task');
    assert.equal(events.filter((e) => e.kind === 'artifact-update').length, 3);
    const last = events.at(-1) as TaskStatusUpdateEvent;
    assert.equal(last.kind, 'status-update');
    assert.equal(last.status.state, 'completed');
    assert.equal(last.final, true);
  });

  test('resubscribeTask follows a task to its cancellation (TASK_STATE_CANCELLED on the wire)', async () => {
    const polling = await restClient(true);
    const task = (await polling.sendMessage({ message: message('slow:60000') })) as V03Task;
    const stream = client.resubscribeTask({ id: task.id });
    const first = await stream.next();
    assert.equal(first.done, false);
    await client.cancelTask({ id: task.id });
    const rest = await collect({ [Symbol.asyncIterator]: () => stream });
    const last = rest.at(-1) as TaskStatusUpdateEvent;
    assert.equal(last.status.state, 'canceled');
    assert.equal(last.final, true);
  });

  test('input-required round trip', async () => {
    const asked = (await client.sendMessage({ message: message('input:Which branch?') })) as V03Task;
    assert.equal(asked.status.state, 'input-required');
    const q = asked.status.message?.parts[0];
    assert.equal(q?.kind === 'text' ? q.text : undefined, 'Which branch?');
    const done = (await client.sendMessage({
      message: message('main', { taskId: asked.id, contextId: asked.contextId }),
    })) as V03Task;
    assert.equal(done.status.state, 'completed');
    assert.equal(artifactText(done), 'main');
  });

  test('errors: unknown task is TaskNotFoundError, a completed task is not cancelable', async () => {
    await assert.rejects(client.getTask({ id: 'no-such-task' }), TaskNotFoundError);
    const task = (await client.sendMessage({ message: message('task:x') })) as V03Task;
    await assert.rejects(client.cancelTask({ id: task.id }), TaskNotCancelableError);
  });

  test('push configs: set, get, list, delete', async () => {
    const task = (await client.sendMessage({ message: message('task:push') })) as V03Task;
    const config = {
      id: 'c1',
      url: 'https://hooks.example/a2a',
      token: 'tok',
      authentication: { schemes: ['Bearer'], credentials: 'secret' },
    };
    const set = await client.setTaskPushNotificationConfig({
      taskId: task.id,
      pushNotificationConfig: config,
    });
    assert.deepEqual(set, { taskId: task.id, pushNotificationConfig: config });
    const got = await client.getTaskPushNotificationConfig({
      id: task.id,
      pushNotificationConfigId: 'c1',
    } as { id: string });
    assert.deepEqual(got, set);
    assert.deepEqual(await client.listTaskPushNotificationConfig({ id: task.id }), [set]);
    await client.deleteTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: 'c1' });
    assert.deepEqual(await client.listTaskPushNotificationConfig({ id: task.id }), []);
  });

  test('parts: file by uri and bytes, data objects (the v0.3 proto Part has no metadata)', async () => {
    const parts: V03Message['parts'] = [
      { kind: 'text', text: 'parts' },
      { kind: 'file', file: { uri: 'https://files.example/a.png', mimeType: 'image/png' } },
      { kind: 'file', file: { bytes: 'aGVsbG8=', mimeType: 'image/png' } },
      { kind: 'data', data: { n: 1, list: [true, null] } },
    ];
    const echoed = (await client.sendMessage({ message: { ...message(''), parts } })) as V03Message;
    assert.deepEqual(echoed.parts, parts);
  });

  test('getAgentCard fetches the extended card from /v1/card', async () => {
    const card = await client.getAgentCard();
    assert.equal(card.description, 'extended');
    assert.equal(card.url, `${baseUrl}/a2a/jsonrpc`);
  });
});
