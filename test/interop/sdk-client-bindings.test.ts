/**
 * Interop: the official SDK's client (@a2a-js/sdk 1.3.0) drives an a2a-kit server, unchanged,
 * through every operation on JSON-RPC and on HTTP+JSON (REST): send, stream, get, list,
 * cancel, subscribe, multi-turn input-required and the extended card. The server runs the
 * built-in `bench` agent.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Role,
  SendMessageRequest,
  TaskState,
  type Message,
  type StreamResponse,
  type Task,
} from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type Client,
} from '@a2a-js/sdk/client';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import { benchCard, benchExecutor } from '../../src/agents/index.js';
import { createA2AServer, type A2AServer } from '../../src/server/http.js';
import { collect } from '../support/handler.js';

const EXTENDED_SKILL_ID = 'members-only';

function request(
  text: string,
  extra: { taskId?: string; contextId?: string; returnImmediately?: boolean } = {},
): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: {
      messageId: crypto.randomUUID(),
      role: 'ROLE_USER',
      parts: [{ text }],
      ...(extra.taskId ? { taskId: extra.taskId } : {}),
      ...(extra.contextId ? { contextId: extra.contextId } : {}),
    },
    ...(extra.returnImmediately ? { configuration: { returnImmediately: true } } : {}),
  });
}

function textOf(message: Message | undefined): string | undefined {
  const content = message?.parts[0]?.content;
  return content?.$case === 'text' ? content.value : undefined;
}

function artifactText(task: Task, artifactId = 'out'): string {
  const artifact = task.artifacts.find((a) => a.artifactId === artifactId);
  return (artifact?.parts ?? []).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
}

function isTask(result: Message | Task): result is Task {
  return 'status' in result;
}

let server: A2AServer;
let baseUrl: string;
const GENERATION_ON = (globalThis as { a2aInteropGeneration?: boolean }).a2aInteropGeneration === true;

before(async () => {
  server = createA2AServer({
    agent: benchExecutor,
    card: benchCard,
    extendedCard: {
      ...benchCard,
      description: `${benchCard.description} (extended)`,
      skills: [
        ...benchCard.skills,
        {
          id: EXTENDED_SKILL_ID,
          name: 'Members only',
          description: 'Shown on the extended card only.',
          tags: ['extended'],
        },
      ],
    },
    store: 'memory',
    // sdk-client-generation.test.ts runs this file again with the A2A 1.1 draft support on:
    // the SDK's v1.0 client must see no difference (GEN-1).
    ...(GENERATION_ON ? { generation: { advertiseDraftVersion: true } } : {}),
  });
  const listening = await server.listen(0, '127.0.0.1');
  baseUrl = listening.url.replace(/\/+$/, '');
});

after(async () => {
  await server.close();
});

for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
  describe(`SDK client over ${binding}`, () => {
    let client: Client;

    before(async () => {
      const factory = new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
          transports: [new JsonRpcTransportFactory(), new RestTransportFactory()],
          preferredTransports: [binding],
        }),
      );
      client = await factory.createFromUrl(baseUrl);
      assert.equal(client.transport.protocolName, binding);
    });

    test('SendMessage answered with a direct Message (echo:)', async () => {
      const result = await client.sendMessage(request('echo:hello sdk'));
      assert.ok(!isTask(result), 'expected a Message');
      assert.equal(result.role, Role.ROLE_AGENT);
      assert.equal(textOf(result), 'hello sdk');
      assert.ok(result.messageId.length > 0);
    });

    test('SendMessage runs a task to completion (task:), then GetTask returns it', async () => {
      const result = await client.sendMessage(request('task:payload'));
      assert.ok(isTask(result), 'expected a Task');
      assert.equal(result.status?.state, TaskState.TASK_STATE_COMPLETED);
      assert.equal(artifactText(result), 'payload');
      assert.ok(result.contextId.length > 0);

      const fetched = await client.getTask({ tenant: '', id: result.id, historyLength: undefined });
      assert.equal(fetched.id, result.id);
      assert.equal(fetched.status?.state, TaskState.TASK_STATE_COMPLETED);
      assert.equal(artifactText(fetched), 'payload');
    });

    test('SendStreamingMessage streams task, status and chunked artifact events (stream:)', async () => {
      const events = await collect(client.sendMessageStream(request('stream:5')));
      const cases = events.map((e) => e.payload?.$case);
      assert.equal(cases[0], 'task');
      const chunks = events.flatMap((e) => (e.payload?.$case === 'artifactUpdate' ? [e.payload.value] : []));
      assert.equal(chunks.length, 5);
      assert.deepEqual(
        chunks.map((c) => [c.append, c.lastChunk]),
        [
          [false, false],
          [true, false],
          [true, false],
          [true, false],
          [true, true],
        ],
      );
      assert.ok(chunks.every((c) => c.artifact?.artifactId === 'out'));
      const last = events.at(-1)?.payload;
      assert.equal(last?.$case, 'statusUpdate');
      assert.equal(last.value.status?.state, TaskState.TASK_STATE_COMPLETED);

      const taskId = events[0]?.payload?.$case === 'task' ? events[0].payload.value.id : '';
      const stored = await client.getTask({ tenant: '', id: taskId, historyLength: undefined });
      assert.equal(stored.status?.state, TaskState.TASK_STATE_COMPLETED);
      assert.equal(artifactText(stored), 'chunk-1chunk-2chunk-3chunk-4chunk-5');
    });

    test('ListTasks finds tasks by context', async () => {
      const first = await client.sendMessage(request('task:one'));
      assert.ok(isTask(first));
      const second = await client.sendMessage(request('task:two', { contextId: first.contextId }));
      assert.ok(isTask(second));
      const page = await client.listTasks({
        tenant: '',
        contextId: first.contextId,
        status: TaskState.TASK_STATE_UNSPECIFIED,
        pageSize: undefined,
        pageToken: '',
        historyLength: undefined,
        statusTimestampAfter: undefined,
        includeArtifacts: true,
      });
      const ids = page.tasks.map((t) => t.id).sort();
      assert.deepEqual(ids, [first.id, second.id].sort());
      assert.equal(page.totalSize, 2);
      assert.equal(page.nextPageToken, '');
    });

    test('CancelTask cancels a running task (slow:)', async () => {
      const started = await client.sendMessage(request('slow:60000', { returnImmediately: true }));
      assert.ok(isTask(started), 'expected a Task');
      assert.ok(
        [TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING].includes(started.status!.state),
        `unexpected state ${started.status?.state}`,
      );
      const canceled = await client.cancelTask({ tenant: '', id: started.id, metadata: undefined });
      assert.equal(canceled.status?.state, TaskState.TASK_STATE_CANCELED);
      const fetched = await client.getTask({ tenant: '', id: started.id, historyLength: undefined });
      assert.equal(fetched.status?.state, TaskState.TASK_STATE_CANCELED);
    });

    test('multi-turn: INPUT_REQUIRED, then the answer completes the task (input:)', async () => {
      const asked = await client.sendMessage(request('input:what is your name?'));
      assert.ok(isTask(asked), 'expected a Task');
      assert.equal(asked.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
      assert.equal(textOf(asked.status?.message), 'what is your name?');

      const answered = await client.sendMessage(
        request('Ada', { taskId: asked.id, contextId: asked.contextId }),
      );
      assert.ok(isTask(answered), 'expected a Task');
      assert.equal(answered.id, asked.id);
      assert.equal(answered.status?.state, TaskState.TASK_STATE_COMPLETED);
      assert.equal(artifactText(answered), 'Ada');
    });

    test('SubscribeToTask follows a waiting task to completion', async () => {
      const asked = await client.sendMessage(request('input:ready?'));
      assert.ok(isTask(asked));
      assert.equal(asked.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);

      const stream = client.resubscribeTask({ tenant: '', id: asked.id });
      const iterator = stream[Symbol.asyncIterator]();
      const first = await iterator.next();
      assert.equal(first.done, false);
      assert.equal(first.value?.payload?.$case, 'task', 'the first event is the task snapshot');

      // The snapshot is in; now the answer drives the task on while we listen.
      const answered = await client.sendMessage(
        request('yes', { taskId: asked.id, contextId: asked.contextId }),
      );
      assert.ok(isTask(answered));

      const rest: StreamResponse[] = [];
      for (let next = await iterator.next(); !next.done && rest.length < 100; next = await iterator.next()) {
        rest.push(next.value);
      }
      const last = rest.at(-1)?.payload;
      assert.equal(last?.$case, 'statusUpdate');
      assert.equal(last.value.status?.state, TaskState.TASK_STATE_COMPLETED);
      assert.ok(rest.some((e) => e.payload?.$case === 'artifactUpdate'));
    });

    test('GetExtendedAgentCard returns the extended card', async () => {
      const card = await client.getAgentCard();
      assert.equal(card.name, benchCard.name);
      assert.ok(card.skills.some((s) => s.id === EXTENDED_SKILL_ID));
      assert.match(card.description, /extended/);
    });

    test('errors arrive as the SDK error for the A2A error (GetTask of an unknown task)', async () => {
      await assert.rejects(
        client.getTask({ tenant: '', id: 'no-such-task', historyLength: undefined }),
        TaskNotFoundError,
      );
    });
  });
}
