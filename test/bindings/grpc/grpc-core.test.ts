/** The gRPC binding over the real DefaultRequestHandler. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { GrpcBinding } from '../../../src/bindings/grpc/server.js';
import { GrpcTransport } from '../../../src/bindings/grpc/client.js';
import { TaskNotFoundError } from '../../../src/errors/a2a-error.js';
import { DefaultRequestHandler } from '../../../src/core/handler/default-handler.js';
import type { AgentCard, SendMessageRequest, StreamResponse } from '../../../src/model/schema.js';

const card: AgentCard = {
  name: 'core-echo',
  description: 'echo over the real core',
  version: '1.0.0',
  supportedInterfaces: [{ url: '127.0.0.1:0', protocolBinding: 'GRPC', protocolVersion: '1.0' }],
  capabilities: { streaming: true },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
};

const send = (text: string): SendMessageRequest => ({
  message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }] },
});

describe('gRPC binding + DefaultRequestHandler', () => {
  const handler = new DefaultRequestHandler({
    card: () => card,
    executor: {
      async execute(ctx, events) {
        await events.working();
        await events.artifact({ name: 'echo', text: ctx.text });
      },
    },
  });
  let binding: GrpcBinding;
  let transport: GrpcTransport;

  before(async () => {
    binding = new GrpcBinding(handler);
    transport = new GrpcTransport(`127.0.0.1:${await binding.listen(0)}`);
  });
  after(async () => {
    await transport.close();
    await handler.close();
    await binding.close();
  });

  test('SendMessage completes and GetTask/ListTasks see the task', async () => {
    const res = await transport.sendMessage(send('hello core'));
    assert.ok('task' in res && res.task);
    assert.equal(res.task.status.state, 'TASK_STATE_COMPLETED');
    assert.deepEqual(res.task.artifacts?.[0]?.parts, [{ text: 'hello core' }]);
    const got = await transport.getTask({ id: res.task.id });
    assert.equal(got.status.state, 'TASK_STATE_COMPLETED');
    const list = await transport.listTasks({});
    assert.ok(list.tasks.some((t) => t.id === res.task?.id));
  });

  test('SendStreamingMessage ends with the terminal status update', async () => {
    const events: StreamResponse[] = [];
    for await (const e of transport.sendStreamingMessage(send('stream core'))) events.push(e);
    assert.ok(events.length >= 2);
    const last = events.at(-1);
    assert.ok(last && 'statusUpdate' in last && last.statusUpdate?.status.state === 'TASK_STATE_COMPLETED');
  });

  test('unknown task → TaskNotFoundError', async () => {
    await assert.rejects(transport.getTask({ id: 'missing' }), TaskNotFoundError);
    await assert.rejects(transport.cancelTask({ id: 'missing' }), TaskNotFoundError);
  });
});
