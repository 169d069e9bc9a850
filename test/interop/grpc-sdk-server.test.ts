/**
 * Interop: our GrpcTransport against the official `@a2a-js/sdk` gRPC server.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { A2AService, grpcService, UserBuilder } from '@a2a-js/sdk/server/grpc';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';
import type { AgentCard as SdkAgentCard } from '@a2a-js/sdk';
import { GrpcTransport } from '../../src/bindings/grpc/client.js';
import { TaskNotFoundError } from '../../src/errors/a2a-error.js';
import type { SendMessageRequest, StreamResponse } from '../../src/model/schema.js';

/** Echoes the text as an artifact and completes, publishing SDK events (ts-proto shapes). */
class EchoExecutor implements AgentExecutor {
  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = ctx;
    const part = ctx.userMessage.parts[0]?.content;
    const text = part?.$case === 'text' ? part.value : '';
    const msg = ctx.userMessage;
    bus.publish(
      AgentEvent.task({
        id: taskId,
        contextId,
        status: { state: 1, message: undefined, timestamp: undefined },
        artifacts: [],
        history: [msg],
        metadata: undefined,
      }),
    );
    bus.publish(
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: {
          artifactId: 'echo',
          name: 'echo',
          description: '',
          parts: [
            { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' },
          ],
          metadata: undefined,
          extensions: [],
        },
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
    );
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        // No timestamp: the SDK's InMemoryTaskStore.list sorts Date timestamps with localeCompare (SDK bug).
        status: { state: 3, message: undefined, timestamp: undefined },
        metadata: undefined,
      }),
    );
    bus.finished();
  }
  async cancelTask(): Promise<void> {}
}

const send = (text: string): SendMessageRequest => ({
  message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }] },
});

describe('our GrpcTransport → @a2a-js/sdk gRPC server', () => {
  const server = new Server();
  let transport: GrpcTransport;

  before(async () => {
    const url = '127.0.0.1:0';
    const card = {
      name: 'sdk-echo',
      description: 'SDK echo agent',
      version: '1.0.0',
      supportedInterfaces: [{ url, protocolBinding: 'GRPC', protocolVersion: '1.0', tenant: '' }],
      capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
      securitySchemes: {},
      securityRequirements: [],
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [],
      signatures: [],
    } as unknown as SdkAgentCard;
    const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new EchoExecutor());
    server.addService(A2AService, grpcService({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync(url, ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
    );
    transport = new GrpcTransport(`127.0.0.1:${port}`);
  });
  after(async () => {
    await transport.close();
    server.forceShutdown();
  });

  test('SendMessage then GetTask', async () => {
    const res = await transport.sendMessage(send('hi sdk'));
    assert.ok('task' in res && res.task);
    assert.equal(res.task.status.state, 'TASK_STATE_COMPLETED');
    assert.deepEqual(res.task.artifacts?.[0]?.parts, [{ text: 'hi sdk' }]);
    const got = await transport.getTask({ id: res.task.id });
    assert.equal(got.id, res.task.id);
    assert.equal(got.status.state, 'TASK_STATE_COMPLETED');
  });

  test('SendStreamingMessage yields the SDK events in order', async () => {
    const events: StreamResponse[] = [];
    for await (const e of transport.sendStreamingMessage(send('stream me'))) events.push(e);
    const kinds = events.map((e) => Object.keys(e).find((k) => k !== 'metadata'));
    assert.deepEqual(kinds, ['task', 'artifactUpdate', 'statusUpdate']);
  });

  test('ListTasks returns complete ListTasksResponse fields', async () => {
    const list = await transport.listTasks({ pageSize: 10 });
    assert.ok(Array.isArray(list.tasks));
    assert.equal(typeof list.nextPageToken, 'string');
    assert.equal(typeof list.totalSize, 'number');
  });

  test('unknown task → TaskNotFoundError decoded from the SDK status details', async () => {
    await assert.rejects(transport.getTask({ id: 'nope' }), (err: unknown) => {
      assert.ok(err instanceof TaskNotFoundError, String(err));
      assert.equal(err.receivedStatus, 5);
      return true;
    });
  });
});
