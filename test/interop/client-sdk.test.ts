/**
 * Our client against a server built on the official @a2a-js/sdk, over JSON-RPC and REST.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { A2AClient, statusOf, type StreamEvent } from '../../src/client/client.js';
import { AgentCardResolver } from '../../src/client/card-resolver.js';
import { ArtifactAssembler, textOf } from '../../src/client/artifacts.js';
import { A2ADeadlineError } from '../../src/errors/client-errors.js';
import { TaskNotFoundError, UnsupportedOperationError } from '../../src/errors/index.js';
import { TaskState, isTerminalState } from '../../src/model/enums.js';
import { startSdkServer, type SdkServer } from '../support/sdk-server.js';

function states(events: StreamEvent[]): string[] {
  const out: string[] = [];
  for (const e of events) {
    const s = statusOf(e)?.state;
    if (s && out[out.length - 1] !== s) out.push(s);
  }
  return out;
}

for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
  describe(`client vs @a2a-js/sdk over ${binding}`, () => {
    let server: SdkServer;
    let client: A2AClient;
    before(async () => {
      server = await startSdkServer({ stepMs: 40 });
      client = await A2AClient.connect(server.url, {
        bindings: [binding],
        timeoutMs: 10_000,
        streamIdleTimeoutMs: 5_000,
      });
    });
    after(async () => {
      await client.close();
      await server.close();
    });

    test('CLI-CARD-2 uses the requested binding', () => {
      assert.equal(client.binding, binding);
    });

    test('send returns a direct message', async () => {
      const reply = await client.send({ text: 'hi there' });
      assert.equal(reply.kind, 'message');
      assert.equal(reply.kind === 'message' && textOf(reply.message), 'echo: hi there');
    });

    test('send returns a completed task with its artifact', async () => {
      const reply = await client.send({ text: 'task' });
      assert.equal(reply.kind, 'task');
      if (reply.kind !== 'task') return;
      assert.equal(reply.task.status.state, TaskState.COMPLETED);
      assert.equal(textOf(reply.task.artifacts?.[0]), 'the result');
      const again = await client.getTask(reply.task.id, { historyLength: 1 });
      assert.equal(again.id, reply.task.id);
    });

    test('CLI-SEND-8 input-required then a follow-up on the same task', async () => {
      const first = await client.send({ text: 'ask' });
      assert.ok(first.kind === 'task');
      assert.equal(first.task.status.state, TaskState.INPUT_REQUIRED);
      const second = await client.send({
        text: 'the blue one',
        taskId: first.task.id,
        contextId: first.task.contextId,
      });
      assert.ok(second.kind === 'task');
      assert.equal(second.task.id, first.task.id);
      assert.equal(second.task.status.state, TaskState.COMPLETED);
      assert.equal(
        textOf(second.task.artifacts?.find((a) => a.artifactId === 'answer')),
        'got: the blue one',
      );
    });

    test('stream yields task, updates and assembles the artifact', async () => {
      const events: StreamEvent[] = [];
      const artifacts = new ArtifactAssembler();
      for await (const e of client.stream({ text: 'stream:3' })) {
        events.push(e);
        if (e.kind === 'artifactUpdate') artifacts.apply(e.artifactUpdate);
      }
      assert.deepEqual(states(events), [TaskState.SUBMITTED, TaskState.WORKING, TaskState.COMPLETED]);
      assert.equal(textOf(artifacts.get('log')), 'line 1\nline 2\nline 3\n');
      assert.ok(artifacts.isComplete('log'));
    });

    test('getTask of an unknown task is TaskNotFoundError', async () => {
      await assert.rejects(client.getTask('no-such-task'), TaskNotFoundError);
    });

    test('listTasks and listAllTasks page through every task', async () => {
      const page = await client.listTasks({ pageSize: 1 });
      assert.equal(page.tasks.length, 1);
      const all = [];
      for await (const t of client.listAllTasks({ pageSize: 2 })) all.push(t);
      assert.ok(all.length >= 3);
      assert.equal(new Set(all.map((t) => t.id)).size, all.length);
    });

    test('cancel a running task; subscribe sees it end', async () => {
      const reply = await client.send({ text: 'wait', returnImmediately: true });
      assert.ok(reply.kind === 'task');
      const id = reply.task.id;
      const seen: StreamEvent[] = [];
      const sub = (async () => {
        for await (const e of client.subscribeToTask(id)) seen.push(e);
      })();
      // Wait (bounded) for the subscription's first event before canceling.
      for (let i = 0; i < 100 && seen.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      const canceled = await client.cancelTask(id);
      assert.ok([TaskState.CANCELED, TaskState.WORKING].includes(canceled.status.state as never));
      await sub;
      assert.equal(seen[0]?.kind, 'task');
      const final = await client.waitForTask(id, { deadline: 5000 });
      assert.equal(final.status.state, TaskState.CANCELED);
    });

    test('push config create, get, list, delete', async () => {
      const reply = await client.send({ text: 'ask' });
      assert.ok(reply.kind === 'task');
      const taskId = reply.task.id;
      const created = await client.createTaskPushNotificationConfig({
        taskId,
        id: 'cfg-1',
        url: 'http://127.0.0.1:9/hook',
        token: 'tok',
      });
      assert.equal(created.url, 'http://127.0.0.1:9/hook');
      const got = await client.getTaskPushNotificationConfig(taskId, 'cfg-1');
      assert.equal(got.token, 'tok');
      const list = await client.listTaskPushNotificationConfigs(taskId);
      assert.equal(list.configs?.length, 1);
      await client.deleteTaskPushNotificationConfig(taskId, 'cfg-1');
      const empty = await client.listTaskPushNotificationConfigs(taskId);
      assert.equal(empty.configs?.length ?? 0, 0);
    });

    test('CLI-XCARD-2 extended card is refused when the card does not declare it', async () => {
      await assert.rejects(client.getExtendedAgentCard(), UnsupportedOperationError);
    });

    test('waitForTask past its deadline cancels the remote task', async () => {
      const reply = await client.send({ text: 'wait', returnImmediately: true });
      assert.ok(reply.kind === 'task');
      const err = await client.waitForTask(reply.task.id, { deadline: 300, initialDelayMs: 50 }).then(
        () => assert.fail('should time out'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof A2ADeadlineError);
      assert.ok(server.canceled.includes(reply.task.id));
      const final = await client.waitForTask(reply.task.id, { deadline: 5000 });
      assert.equal(final.status.state, TaskState.CANCELED);
    });

    test('CLI-STREAM-2 a stream dropped mid-task resumes without losing or repeating a state', async () => {
      const events: StreamEvent[] = [];
      let dropped = false;
      for await (const e of client.streamResilient({ text: 'stream:6' })) {
        events.push(e);
        if (!dropped && e.kind === 'statusUpdate') {
          dropped = true;
          for (const s of server.sockets) s.destroy(); // the server side drops the connection
        }
      }
      assert.ok(dropped);
      const seq = states(events);
      assert.deepEqual(seq, [TaskState.SUBMITTED, TaskState.WORKING, TaskState.COMPLETED]);
      const keys = events
        .map((e) => statusOf(e))
        .filter((s) => s !== undefined)
        .map((s) => `${s.state}|${s.timestamp}|${s.message?.messageId ?? ''}`);
      assert.equal(new Set(keys).size, keys.length, 'no status repeated');
      assert.ok(isTerminalState(seq[seq.length - 1] as never));
    });
  });
}

describe('card discovery against @a2a-js/sdk', () => {
  let server: SdkServer;
  before(async () => {
    server = await startSdkServer();
  });
  after(() => server.close());

  test('CLI-CARD-1 caches by max-age, and revalidates with the ETag (304)', async () => {
    const resolver = new AgentCardResolver();
    const first = await resolver.resolve(server.url);
    assert.equal(first.source, 'network');
    assert.equal(first.card.name, 'sdk-test-agent');
    const second = await resolver.resolve(server.url);
    assert.equal(second.source, 'cache');
    const third = await resolver.resolve(server.cardUrl, { noCache: true });
    assert.equal(third.source, 'revalidated');
  });

  test('CLI-CARD-2 without a preference the card order decides', async () => {
    const rest = await startSdkServer({ bindings: ['HTTP+JSON', 'JSONRPC'] });
    try {
      const c = await A2AClient.connect(rest.url);
      assert.equal(c.binding, 'HTTP+JSON');
      const c2 = await A2AClient.connect(rest.url, { bindings: ['JSONRPC'] });
      assert.equal(c2.binding, 'JSONRPC');
    } finally {
      await rest.close();
    }
  });
});
