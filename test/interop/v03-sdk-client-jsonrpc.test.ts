/**
 * Interop: the official SDK's v0.3 line (@a2a-js/sdk 0.3.14, aliased as @a2a-js/sdk-v03), a
 * client nobody here wrote, drives an a2a-kit server over v0.3 JSON-RPC: the card, send, stream,
 * get, cancel, resubscribe, the input-required round trip and the push-config methods, with the
 * v0.3 shapes (`kind`, kebab-case states, `final`) checked on what it receives.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type {
  AgentCard as V03Card,
  Message as V03Message,
  Task as V03Task,
  TaskStatusUpdateEvent as V03StatusUpdate,
} from '@a2a-js/sdk-v03';
import { A2AClient, ClientFactory, type Client } from '@a2a-js/sdk-v03/client';
import { benchCard, benchExecutor, echoExecutor } from '../../src/agents/index.js';
import type { AgentExecutor } from '../../src/core/executor.js';
import { createA2AServer, type A2AServer } from '../../src/server/http.js';
import { collect } from '../support/handler.js';

/** bench, except messages whose first part is not text (or says `parts`) are echoed. */
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

/** The `result` of a JSON-RPC response, failing the test on an error response. */
function resultOf<T>(res: { result: T } | { error: unknown }): T {
  if ('error' in res) assert.fail(`unexpected error: ${JSON.stringify(res.error)}`);
  return res.result;
}

function isTask(result: V03Task | V03Message): result is V03Task {
  return result.kind === 'task';
}

function artifactText(task: V03Task): string {
  return (task.artifacts ?? [])
    .flatMap((a) => a.parts)
    .map((p) => (p.kind === 'text' ? p.text : ''))
    .join('');
}

describe('v0.3 SDK legacy A2AClient over JSON-RPC', () => {
  let client: A2AClient;

  before(async () => {
    client = await A2AClient.fromCardUrl(`${baseUrl}/.well-known/agent-card.json`);
  });

  test('accepts the card: url, preferredTransport, protocolVersion from the legacy fields', async () => {
    const card = (await client.getAgentCard()) as V03Card & { supportedInterfaces?: unknown };
    assert.equal(card.url, `${baseUrl}/a2a/jsonrpc`);
    assert.equal(card.preferredTransport, 'JSONRPC');
    assert.equal(card.protocolVersion, '0.3.0');
    assert.equal(card.supportsAuthenticatedExtendedCard, true);
    assert.ok(Array.isArray(card.supportedInterfaces), 'the v1.0 fields are still there');
  });

  test('message/send: a direct Message with kind and lowercase role', async () => {
    const res = await client.sendMessage({ message: message('echo:hi v0.3') });
    assert.ok(!('error' in res), JSON.stringify(res));
    const result = res.result as V03Message;
    assert.equal(result.kind, 'message');
    assert.equal(result.role, 'agent');
    assert.deepEqual(result.parts, [{ kind: 'text', text: 'hi v0.3' }]);
  });

  test('message/send blocks by default: a completed Task with kind and kebab-case state', async () => {
    const res = await client.sendMessage({ message: message('task:payload') });
    assert.ok(!('error' in res));
    const task = res.result as V03Task;
    assert.equal(task.kind, 'task');
    assert.equal(task.status.state, 'completed');
    assert.equal(artifactText(task), 'payload');
    const got = await client.getTask({ id: task.id, historyLength: 1 });
    assert.ok(!('error' in got));
    assert.equal((got.result as V03Task).status.state, 'completed');
    assert.equal((got.result as V03Task).history?.length, 1);
    assert.equal((got.result as V03Task).history?.[0]?.kind, 'message');
  });

  test('blocking: false returns at once; tasks/cancel cancels', async () => {
    const res = await client.sendMessage({
      message: message('slow:60000'),
      configuration: { blocking: false },
    });
    assert.ok(!('error' in res));
    const task = res.result as V03Task;
    assert.ok(['submitted', 'working'].includes(task.status.state), task.status.state);
    const canceled = await client.cancelTask({ id: task.id });
    assert.ok(!('error' in canceled));
    assert.equal((canceled.result as V03Task).status.state, 'canceled');
  });

  test('message/stream: v0.3 events, final only on the last status update', async () => {
    const events = await collect(client.sendMessageStream({ message: message('stream:3') }));
    const kinds = events.map((e) => e.kind);
    assert.equal(kinds[0], 'task');
    assert.ok(kinds.includes('artifact-update'));
    const statuses = events.filter((e): e is V03StatusUpdate => e.kind === 'status-update');
    const last = statuses.at(-1);
    assert.equal(last?.status.state, 'completed');
    assert.equal(last?.final, true);
    assert.ok(statuses.slice(0, -1).every((s) => s.final === false));
    assert.equal(events.at(-1), last, 'the final event is the last one');
  });

  test('tasks/resubscribe follows a running task to its cancellation', async () => {
    const res = await client.sendMessage({
      message: message('slow:60000'),
      configuration: { blocking: false },
    });
    const task = resultOf(res) as V03Task;
    const stream = client.resubscribeTask({ id: task.id });
    const first = await stream.next();
    assert.equal(first.done, false);
    await client.cancelTask({ id: task.id });
    const rest = await collect({ [Symbol.asyncIterator]: () => stream });
    const last = rest.at(-1) as V03StatusUpdate;
    assert.equal(last.kind, 'status-update');
    assert.equal(last.status.state, 'canceled');
    assert.equal(last.final, true);
  });

  test('input-required round trip: final on input-required, then the answer completes the task', async () => {
    const events = await collect(client.sendMessageStream({ message: message('input:Which repository?') }));
    const last = events.at(-1) as V03StatusUpdate;
    assert.equal(last.kind, 'status-update');
    assert.equal(last.status.state, 'input-required');
    assert.equal(last.final, true);
    const q = last.status.message?.parts[0];
    assert.equal(q?.kind === 'text' ? q.text : undefined, 'Which repository?');
    const answer = await client.sendMessage({
      message: message('a2a-kit', { taskId: last.taskId, contextId: last.contextId }),
    });
    const done = resultOf(answer) as V03Task;
    assert.equal(done.status.state, 'completed');
    assert.equal(artifactText(done), 'a2a-kit');
  });

  test('push configs: set, get (with and without config id), list, delete in the nested shape', async () => {
    const res = await client.sendMessage({ message: message('task:x') });
    const taskId = (resultOf(res) as V03Task).id;
    const set = await client.setTaskPushNotificationConfig({
      taskId,
      pushNotificationConfig: {
        id: 'c1',
        url: 'https://hooks.example/a2a',
        token: 'tok',
        authentication: { schemes: ['Bearer'], credentials: 'secret' },
      },
    });
    assert.ok(!('error' in set), JSON.stringify(set));
    assert.deepEqual(set.result, {
      taskId,
      pushNotificationConfig: {
        id: 'c1',
        url: 'https://hooks.example/a2a',
        token: 'tok',
        authentication: { schemes: ['Bearer'], credentials: 'secret' },
      },
    });
    const got = await client.getTaskPushNotificationConfig({ id: taskId, pushNotificationConfigId: 'c1' } as {
      id: string;
    });
    assert.deepEqual(!('error' in got) && got.result, set.result);
    const byTask = await client.getTaskPushNotificationConfig({ id: taskId });
    assert.deepEqual(!('error' in byTask) && byTask.result, set.result);
    const list = await client.listTaskPushNotificationConfig({ id: taskId });
    assert.deepEqual(!('error' in list) && list.result, [set.result]);
    const del = await client.deleteTaskPushNotificationConfig({ id: taskId, pushNotificationConfigId: 'c1' });
    assert.ok(!('error' in del));
    assert.equal(del.result, null);
    const empty = await client.listTaskPushNotificationConfig({ id: taskId });
    assert.deepEqual(!('error' in empty) && empty.result, []);
  });

  test('errors come back in the v0.3 shape: tasks/get of an unknown task is -32001', async () => {
    const res = await client.getTask({ id: 'no-such-task' });
    assert.ok('error' in res);
    assert.equal(res.error.code, -32001);
    assert.ok(!Array.isArray(res.error.data), 'v0.3 data is not the v1.0 details array');
  });

  test('parts: file by uri and by bytes, data objects, kept across the translation', async () => {
    const parts: V03Message['parts'] = [
      { kind: 'text', text: 'parts' },
      { kind: 'file', file: { uri: 'https://files.example/a.png', mimeType: 'image/png', name: 'a.png' } },
      { kind: 'file', file: { bytes: 'aGVsbG8=', mimeType: 'image/png' } },
      { kind: 'data', data: { n: 1, list: [true, null] }, metadata: { note: 'x' } },
    ];
    const res = await client.sendMessage({ message: { ...message(''), parts } });
    assert.ok(!('error' in res), JSON.stringify(res));
    assert.deepEqual((res.result as V03Message).parts, parts);
  });
});

describe('v0.3 SDK ClientFactory (default card resolver)', () => {
  let client: Client;

  before(async () => {
    client = await new ClientFactory().createFromUrl(baseUrl);
  });

  test('picks JSON-RPC at the v0.3 url and sends, blocking by default', async () => {
    const result = await client.sendMessage({ message: message('task:factory') });
    assert.ok(isTask(result));
    assert.equal(result.status.state, 'completed');
  });

  test('getAgentCard fetches the extended card with agent/getAuthenticatedExtendedCard', async () => {
    const card = await client.getAgentCard();
    assert.equal(card.description, 'extended');
    assert.equal(card.protocolVersion, '0.3.0');
    assert.equal(card.url, `${baseUrl}/a2a/jsonrpc`);
  });
});
