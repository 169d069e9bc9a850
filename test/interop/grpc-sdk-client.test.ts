/**
 * Interop: the official `@a2a-js/sdk` gRPC client against our GrpcBinding, with the real
 * DefaultRequestHandler and a test agent.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import type { AgentCard as SdkAgentCard } from '@a2a-js/sdk';
import { GrpcBinding } from '../../src/bindings/grpc/server.js';
import { bindingTestAgent, createTestHandler, TEST_DATA } from '../support/handler.js';

type SdkTransport = Awaited<ReturnType<GrpcTransportFactory['create']>>;
type SdkSendParams = Parameters<SdkTransport['sendMessage']>[0];

function sdkRequest(text: string, contextId = ''): SdkSendParams {
  return {
    tenant: '',
    message: {
      messageId: `m-${Math.random()}`,
      contextId,
      taskId: '',
      role: 1, // ROLE_USER
      parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    },
    configuration: undefined,
    metadata: undefined,
  } as SdkSendParams;
}

describe('@a2a-js/sdk gRPC client → our GrpcBinding', () => {
  const { handler } = createTestHandler(bindingTestAgent());
  let binding: GrpcBinding;
  let sdk: SdkTransport;
  let url: string;

  before(async () => {
    binding = new GrpcBinding(handler);
    const port = await binding.listen(0);
    url = `127.0.0.1:${port}`;
    const card = {
      ...handler.agentCard(),
      supportedInterfaces: [{ url, protocolBinding: 'GRPC', protocolVersion: '1.0', tenant: '' }],
    } as unknown as SdkAgentCard;
    sdk = await new GrpcTransportFactory().create(url, card);
  });
  after(async () => {
    await binding.close();
    await handler.close();
  });

  test('SendMessage, GetTask, ListTasks, CancelTask', async () => {
    const sent = await sdk.sendMessage(sdkRequest('input', 'ctx-sdk'));
    assert.ok('id' in sent, 'a Task');
    assert.equal(sent.status?.state, 6 /* INPUT_REQUIRED */);
    const got = await sdk.getTask({ tenant: '', id: sent.id, historyLength: undefined });
    assert.equal(got.id, sent.id);
    assert.equal(got.history[0]?.role, 1);
    const list = await sdk.listTasks({
      tenant: '',
      contextId: 'ctx-sdk',
      status: 0,
      pageSize: 10,
      pageToken: '',
      historyLength: undefined,
      statusTimestampAfter: undefined,
      includeArtifacts: undefined,
    } as Parameters<SdkTransport['listTasks']>[0]);
    assert.equal(list.tasks.length, 1);
    const canceled = await sdk.cancelTask({ tenant: '', id: sent.id, metadata: undefined });
    assert.equal(canceled.status?.state, 5 /* CANCELED */);
  });

  test('a completed task carries artifacts with text and data parts', async () => {
    const sent = await sdk.sendMessage(sdkRequest('hello'));
    assert.ok('id' in sent);
    const parts = sent.artifacts[0]?.parts ?? [];
    assert.deepEqual(parts[0]?.content, { $case: 'text', value: 'hello' });
    assert.deepEqual(parts[1]?.content, { $case: 'data', value: TEST_DATA });
  });

  test('streaming: events arrive in order and the stream ends', async () => {
    const kinds: string[] = [];
    for await (const event of sdk.sendMessageStream(sdkRequest('stream:2'))) {
      kinds.push(event.payload?.$case ?? 'none');
    }
    assert.deepEqual(kinds, ['task', 'artifactUpdate', 'artifactUpdate', 'statusUpdate']);
  });

  test('errors: unknown task is decoded by the SDK as its TaskNotFound error', async () => {
    await assert.rejects(sdk.getTask({ tenant: '', id: 'nope', historyLength: undefined }), (err: Error) => {
      assert.match(err.constructor.name + ' ' + err.message, /TaskNotFound|not found/i);
      return true;
    });
    await assert.rejects(
      (async () => {
        for await (const _ of sdk.resubscribeTask({ tenant: '', id: 'nope' })) void _;
      })(),
      /not found/i,
    );
  });
});
