/**
 * Interop, client side: our A2AClient calls an agent built with the v0.3 SDK's server classes
 * (@a2a-js/sdk 0.3.14), which offers only A2A v0.3, over JSON-RPC, REST and gRPC. The caller's
 * API is the v1.0 model throughout: send, stream, get, cancel, resubscribe, the input-required
 * round trip, push configs and the extended card.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { A2AClient, type StreamEvent } from '../../src/client/client.js';
import { AgentCardResolver } from '../../src/client/card-resolver.js';
import { A2ANoCompatibleInterfaceError } from '../../src/errors/client-errors.js';
import { TaskNotFoundError, UnsupportedOperationError } from '../../src/errors/a2a-error.js';
import { TaskState } from '../../src/model/enums.js';
import type { Task } from '../../src/model/schema.js';
import { collect } from '../support/handler.js';
import { startSdkV03Server, type SdkV03Server } from '../support/sdk-v03-server.js';

let sdk: SdkV03Server;

before(async () => {
  sdk = await startSdkV03Server();
});
after(() => sdk.close());

function artifactText(task: Task, id: string): string {
  const a = task.artifacts?.find((x) => x.artifactId === id);
  return (a?.parts ?? []).map((p) => p.text ?? '').join('');
}

function lastStatus(events: StreamEvent[]): TaskState | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    if (e.kind === 'statusUpdate') return e.statusUpdate.status.state;
    if (e.kind === 'task') return e.task.status.state;
  }
  return undefined;
}

test('the card resolver reads the v0.3 card: interfaces at 0.3, v1.0 security shapes', async () => {
  const { card } = await new AgentCardResolver().resolve(sdk.url);
  assert.deepEqual(card.supportedInterfaces, [
    { url: `${sdk.url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '0.3.0' },
    { url: `${sdk.url}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '0.3.0' },
    { url: sdk.grpcTarget, protocolBinding: 'GRPC', protocolVersion: '0.3.0' },
  ]);
  assert.deepEqual(card.securitySchemes, {
    key: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } },
  });
  assert.deepEqual(card.securityRequirements, [{ schemes: { key: { list: [] } } }]);
  assert.equal(card.capabilities.extendedAgentCard, true);
});

test('compatV03: false refuses a v0.3-only agent', async () => {
  await assert.rejects(A2AClient.connect(sdk.url, { compatV03: false }), A2ANoCompatibleInterfaceError);
});

for (const binding of ['JSONRPC', 'HTTP+JSON', 'GRPC'] as const) {
  describe(`A2AClient → v0.3 SDK server over ${binding}`, () => {
    let client: A2AClient;

    before(async () => {
      client = await A2AClient.connect(sdk.url, { bindings: [binding], retry: false });
      assert.equal(client.binding, binding);
    });
    after(() => client.close());

    test('send: a direct Message, then a task, both in v1.0 types', async () => {
      const echo = await client.send({ text: 'hello' });
      assert.equal(echo.kind, 'message');
      assert.equal(echo.kind === 'message' && echo.message.role, 'ROLE_AGENT');
      assert.deepEqual(echo.kind === 'message' && echo.message.parts, [{ text: 'echo: hello' }]);
      const sent = await client.send({ text: 'task' });
      assert.equal(sent.kind, 'task');
      const task = (sent as { task: Task }).task;
      assert.equal(task.status.state, TaskState.COMPLETED);
      assert.equal(artifactText(task, 'result'), 'the result');
      const got = await client.getTask(task.id);
      assert.equal(got.status.state, TaskState.COMPLETED);
    });

    test('stream: v1.0 events from v0.3 ones (kind dropped, final dropped)', async () => {
      const events = await collect(client.stream({ text: 'stream:3' }));
      assert.equal(events[0]?.kind, 'task');
      assert.equal(events.filter((e) => e.kind === 'artifactUpdate').length, 3);
      assert.equal(lastStatus(events), TaskState.COMPLETED);
    });

    test('returnImmediately, subscribe and cancel', async () => {
      const sent = await client.send({ text: 'wait', returnImmediately: true });
      assert.equal(sent.kind, 'task');
      const id = (sent as { task: Task }).task.id;
      const stream = client.subscribeToTask(id);
      const first = await stream.next();
      assert.equal(first.done, false);
      const canceled = await client.cancelTask(id);
      assert.ok(
        ([TaskState.CANCELED, TaskState.WORKING] as TaskState[]).includes(canceled.status.state),
        canceled.status.state,
      );
      const rest = await collect({ [Symbol.asyncIterator]: () => stream });
      assert.equal(lastStatus(rest), TaskState.CANCELED);
      assert.equal((await client.getTask(id)).status.state, TaskState.CANCELED);
    });

    test('input-required round trip', async () => {
      const asked = await client.send({ text: 'ask' });
      const task = (asked as { task: Task }).task;
      assert.equal(task.status.state, TaskState.INPUT_REQUIRED);
      assert.equal(task.status.message?.parts[0]?.text, 'which one?');
      const done = await client.send({ text: 'the blue one', taskId: task.id, contextId: task.contextId });
      const finished = (done as { task: Task }).task;
      assert.equal(finished.status.state, TaskState.COMPLETED);
      assert.equal(artifactText(finished, 'answer'), 'got: the blue one');
    });

    test('push configs in the v1.0 shape', async () => {
      const sent = await client.send({ text: 'task' });
      const taskId = (sent as { task: Task }).task.id;
      const config = {
        taskId,
        id: `c-${binding}`,
        url: 'https://hooks.example/a2a',
        token: 'tok',
        authentication: { scheme: 'Bearer', credentials: 'secret' },
      };
      assert.deepEqual(await client.createTaskPushNotificationConfig(config), config);
      assert.deepEqual(await client.getTaskPushNotificationConfig(taskId, config.id), config);
      assert.deepEqual((await client.listTaskPushNotificationConfigs(taskId)).configs, [config]);
      await client.deleteTaskPushNotificationConfig(taskId, config.id);
      assert.deepEqual((await client.listTaskPushNotificationConfigs(taskId)).configs, []);
    });

    test('errors are the typed v1.0 errors', async () => {
      await assert.rejects(client.getTask('no-such-task'), TaskNotFoundError);
      if (binding !== 'HTTP+JSON') await assert.rejects(client.listTasks(), UnsupportedOperationError);
    });

    test('the extended card, read as a v1.0 card', async () => {
      const card = await client.getExtendedAgentCard();
      assert.equal(card.description, 'the extended v0.3 card');
      assert.equal(card.supportedInterfaces[0]?.protocolVersion, '0.3.0');
    });
  });
}
