/**
 * The gRPC binding over real sockets, with the real DefaultRequestHandler and a test agent:
 * every RPC, errors and their status details, streams, cancellation, limits and extensions.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fromBinary } from '@bufbuild/protobuf';
import { anyUnpack } from '@bufbuild/protobuf/wkt';
import { Client, credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import { GrpcBinding } from '../../../src/bindings/grpc/server.js';
import { GrpcTransport } from '../../../src/bindings/grpc/client.js';
import { A2ATransportError } from '../../../src/errors/client-errors.js';
import { GRPC_METHODS } from '../../../src/bindings/grpc/service.js';
import { encodeMessage } from '../../../src/bindings/grpc/encode.js';
import { STATUS_DETAILS_KEY } from '../../../src/bindings/grpc/status.js';
import { StatusSchema } from '../../../src/bindings/grpc/gen/google/rpc/status_pb.js';
import {
  BadRequestSchema,
  ErrorInfoSchema,
} from '../../../src/bindings/grpc/gen/google/rpc/error_details_pb.js';
import {
  A2AError,
  ExtendedAgentCardNotConfiguredError,
  ExtensionSupportRequiredError,
  InternalError,
  InvalidParamsError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnauthenticatedError,
  UnsupportedOperationError,
  VersionNotSupportedError,
} from '../../../src/errors/a2a-error.js';
import { errorRow, GrpcCode } from '../../../src/errors/table.js';
import type { SendMessageRequest, StreamResponse } from '../../../src/model/schema.js';
import { ANONYMOUS, type ServerCallContext } from '../../../src/core/context.js';
import {
  AGENT_RAISABLE_ERRORS,
  StreamFailsAfter,
  CRASH_TASK_ID,
  CountingEventBus,
  CrashingTaskStore,
  TEST_DATA,
  bindingTestAgent,
  collect,
  createTestHandler,
  eventually,
  testCard,
} from '../../support/handler.js';

const EXT_REQUIRED = 'https://example.test/ext/required/v1';

const send = (text: string, extra: Partial<SendMessageRequest> = {}): SendMessageRequest => ({
  message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }] },
  ...extra,
});

const identity = (b: Buffer): Buffer => b;

/** Raw unary call with hand-made bytes, to see exactly what the server puts on the wire. */
function rawUnary(
  target: string,
  path: string,
  bytes: Buffer,
  metadata = new Metadata(),
): Promise<{ err: ServiceError | null; value?: Buffer; headers?: Metadata }> {
  const client = new Client(target, credentials.createInsecure());
  return new Promise((resolve) => {
    let headers: Metadata | undefined;
    const call = client.makeUnaryRequest(path, identity, identity, bytes, metadata, (err, value) => {
      client.close();
      resolve({ err, value, headers });
    });
    call.on('metadata', (md) => (headers = md));
  });
}

async function rejectsWith<T extends A2AError>(
  promise: Promise<unknown>,
  ctor: new (...args: never[]) => T,
): Promise<T> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof ctor, `expected ${ctor.name}, got ${String(err)}`);
    return err;
  }
  assert.fail(`expected ${ctor.name}`);
}

describe('gRPC binding end to end', () => {
  const agent = bindingTestAgent();
  const bus = new CountingEventBus();
  // No extended card is configured although the card announces one.
  const { handler, store } = createTestHandler(agent, {
    capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: true },
    taskStore: new CrashingTaskStore(),
    eventBus: bus,
  });
  let binding: GrpcBinding;
  let transport: GrpcTransport;
  let target: string;

  before(async () => {
    binding = new GrpcBinding(handler, {
      authenticate: ({ headers }) =>
        headers.get('authorization') === 'Bearer good'
          ? { id: 'alice' }
          : headers.has('authorization')
            ? (() => {
                throw new UnauthenticatedError('bad token');
              })()
            : ANONYMOUS,
    });
    const port = await binding.listen(0);
    target = `127.0.0.1:${port}`;
    transport = new GrpcTransport(target);
  });
  after(async () => {
    await transport.close();
    await binding.close();
    await handler.close();
  });

  test('SendMessage returns the task with artifacts (Struct data and timestamps survive)', async () => {
    const res = await transport.sendMessage(send('hello'));
    assert.ok('task' in res && res.task);
    assert.equal(res.task.status.state, 'TASK_STATE_COMPLETED');
    const stored = await store.get({ tenant: '', owner: 'anonymous' }, res.task.id);
    const timestamp = res.task.status.timestamp ?? '';
    assert.match(timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    assert.equal(Date.parse(timestamp), Date.parse(stored?.task.status.timestamp ?? ''));
    assert.deepEqual(res.task.artifacts?.[0]?.parts, [{ text: 'hello' }, { data: TEST_DATA }]);
    assert.equal(res.task.history?.[0]?.role, 'ROLE_USER');
  });

  test('SendMessage can answer with a direct Message', async () => {
    const res = await transport.sendMessage(send('message'));
    assert.ok('message' in res && res.message);
    assert.equal(res.message.role, 'ROLE_AGENT');
    assert.deepEqual(res.message.parts, [{ text: 'direct reply' }]);
    assert.ok(res.message.messageId);
  });

  test('tenant comes from the request field; principal from authorization metadata', async () => {
    const res = await transport.sendMessage(send('hello', { tenant: 'acme' }), {
      headers: { Authorization: 'Bearer good' },
    });
    const ctx = agent.contexts.at(-1);
    assert.equal(ctx?.tenant, 'acme');
    assert.equal(ctx?.principal.id, 'alice');
    // The task belongs to that tenant and principal.
    assert.ok('task' in res && res.task);
    assert.ok(await store.get({ tenant: 'acme', owner: 'alice' }, res.task.id));
    await rejectsWith(transport.getTask({ id: res.task.id }), TaskNotFoundError);
    await rejectsWith(
      transport.getTask({ id: 'x' }, { headers: { authorization: 'Bearer bad' } }),
      UnauthenticatedError,
    );
  });

  test('GetTask, ListTasks (empty defaults filled), CancelTask', async () => {
    const created = await transport.sendMessage(
      send('input', {
        message: { messageId: 'w1', role: 'ROLE_USER', parts: [{ text: 'input' }], contextId: 'ctx-w' },
      }),
    );
    assert.ok('task' in created && created.task);
    const id = created.task.id;
    const got = await transport.getTask({ id, historyLength: 1 });
    assert.equal(got.id, id);
    assert.equal(got.status.state, 'TASK_STATE_INPUT_REQUIRED');
    assert.equal(got.history?.length, 1);
    const list = await transport.listTasks({ contextId: 'ctx-w', pageSize: 10 });
    assert.equal(list.tasks.length, 1);
    assert.equal(list.pageSize, 10);
    assert.equal(list.nextPageToken, '');
    const none = await transport.listTasks({ contextId: 'no-such' });
    assert.deepEqual(none.tasks, []);
    assert.equal(none.totalSize, 0);
    const canceled = await transport.cancelTask({ id });
    assert.equal(canceled.status.state, 'TASK_STATE_CANCELED');
    // A finished task cannot be canceled.
    const done = await transport.sendMessage(send('hello'));
    assert.ok('task' in done && done.task);
    const err = await rejectsWith(transport.cancelTask({ id: done.task.id }), TaskNotCancelableError);
    assert.equal(err.receivedStatus, GrpcCode.FAILED_PRECONDITION);
  });

  test('push config CRUD over gRPC', async () => {
    const created = await transport.sendMessage(send('input'));
    assert.ok('task' in created && created.task);
    const taskId = created.task.id;
    const cfg = await transport.createTaskPushNotificationConfig({
      taskId,
      url: 'https://hooks.example.test/a2a',
      token: 'tok',
      authentication: { scheme: 'Bearer', credentials: 'secret' },
    });
    assert.ok(cfg.id);
    assert.equal(cfg.url, 'https://hooks.example.test/a2a');
    const got = await transport.getTaskPushNotificationConfig({ taskId, id: cfg.id ?? '' });
    assert.deepEqual(got, cfg);
    const list = await transport.listTaskPushNotificationConfigs({ taskId });
    assert.equal(list.configs?.length, 1);
    assert.deepEqual(await transport.deleteTaskPushNotificationConfig({ taskId, id: cfg.id ?? '' }), {});
    assert.deepEqual((await transport.listTaskPushNotificationConfigs({ taskId })).configs ?? [], []);
  });

  test('GetExtendedAgentCard not configured → FAILED_PRECONDITION with its reason', async () => {
    const err = await rejectsWith(transport.getExtendedAgentCard({}), ExtendedAgentCardNotConfiguredError);
    assert.equal(err.receivedStatus, 9);
  });

  test('unknown task → NOT_FOUND with ErrorInfo TASK_NOT_FOUND in grpc-status-details-bin', async () => {
    const err = await rejectsWith(transport.getTask({ id: 'nope' }), TaskNotFoundError);
    assert.equal(err.receivedStatus, 5);
    // The trailer itself, decoded independently.
    const bytes = Buffer.from(encodeMessage(GRPC_METHODS.GetTask.input, { id: 'nope' }));
    const raw = await rawUnary(target, GRPC_METHODS.GetTask.path, bytes);
    assert.equal(raw.err?.code, 5);
    const status = fromBinary(StatusSchema, raw.err?.metadata.get(STATUS_DETAILS_KEY)[0] as Buffer);
    assert.equal(status.code, 5);
    const info = status.details.map((d) => anyUnpack(d, ErrorInfoSchema)).find(Boolean);
    assert.equal(info?.reason, 'TASK_NOT_FOUND');
    assert.equal(info?.domain, 'a2a-protocol.org');
  });

  test('ErrorInfo metadata of an A2A error survives the trailer', async () => {
    const err = await rejectsWith(transport.sendMessage(send('throw:TaskNotFound')), TaskNotFoundError);
    assert.deepEqual(err.metadata, { taskId: 't-1' });
    const bytes = Buffer.from(encodeMessage(GRPC_METHODS.SendMessage.input, send('throw:TaskNotFound')));
    const raw = await rawUnary(target, GRPC_METHODS.SendMessage.path, bytes);
    const status = fromBinary(StatusSchema, raw.err?.metadata.get(STATUS_DETAILS_KEY)[0] as Buffer);
    const info = status.details.map((d) => anyUnpack(d, ErrorInfoSchema)).find(Boolean);
    assert.equal(info?.metadata.taskId, 't-1');
  });

  test('every A2A error an agent raises before its first event gets its gRPC status (unary and stream)', async () => {
    for (const code of AGENT_RAISABLE_ERRORS) {
      const row = errorRow(code);
      const unary = await rejectsWith(transport.sendMessage(send(`throw:${code}`)), A2AError);
      const streamed = await rejectsWith(
        collect(transport.sendStreamingMessage(send(`throw:${code}`))),
        A2AError,
      );
      for (const err of [unary, streamed]) {
        // Without an ErrorInfo reason (JSON-RPC-only and generic errors) the status is all there is.
        if (row.reason) assert.equal(err.code, code);
        assert.equal(err.receivedStatus, GrpcCode[row.grpcStatus], code);
        assert.equal(err.message, `agent refused: ${code}`);
      }
    }
  });

  test('unsupported a2a-version → FAILED_PRECONDITION VERSION_NOT_SUPPORTED (SRV-VER-5)', async () => {
    const err = await rejectsWith(
      transport.getTask({ id: 'x' }, { headers: { 'a2a-version': '0.3' } }),
      VersionNotSupportedError,
    );
    assert.equal(err.receivedStatus, 9);
    assert.equal(err.metadata.supportedVersions, '1.0');
    // A patch component is ignored (SRV-VER-4); a missing version on lf.a2a.v1 is served as 1.0.
    await rejectsWith(
      transport.getTask({ id: 'x' }, { headers: { 'a2a-version': '1.0.7' } }),
      TaskNotFoundError,
    );
    const bytes = Buffer.from(encodeMessage(GRPC_METHODS.GetTask.input, { id: 'x' }));
    assert.equal((await rawUnary(target, GRPC_METHODS.GetTask.path, bytes)).err?.code, 5);
  });

  test('missing required field → INVALID_ARGUMENT with BadRequest field violations', async () => {
    const err = await rejectsWith(transport.getTask({ id: '' }), InvalidParamsError);
    assert.equal(err.receivedStatus, 3);
    assert.deepEqual(err.violations, [{ path: 'id', description: 'required' }]);
    const bytes = Buffer.from(
      encodeMessage(GRPC_METHODS.SendMessage.input, {
        message: { messageId: 'm', role: 'ROLE_USER', parts: [] },
      }),
    );
    const raw = await rawUnary(target, GRPC_METHODS.SendMessage.path, bytes);
    assert.equal(raw.err?.code, 3);
    const status = fromBinary(StatusSchema, raw.err?.metadata.get(STATUS_DETAILS_KEY)[0] as Buffer);
    const bad = status.details.map((d) => anyUnpack(d, BadRequestSchema)).find(Boolean);
    assert.equal(bad?.fieldViolations[0]?.field, 'message.parts');
  });

  test('bytes that are not a valid message → INVALID_ARGUMENT, and the server keeps serving', async () => {
    for (const garbage of [
      Buffer.from([0x12, 0x05, 0x01]),
      Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
    ]) {
      const raw = await rawUnary(target, GRPC_METHODS.SendMessage.path, garbage);
      assert.equal(raw.err?.code, 3, String(raw.err?.details));
    }
    const res = await transport.sendMessage(send('still alive'));
    assert.ok('task' in res);
  });

  test('unknown method → UNIMPLEMENTED', async () => {
    const raw = await rawUnary(target, '/lf.a2a.v1.A2AService/NoSuchMethod', Buffer.alloc(0));
    assert.equal(raw.err?.code, 12);
  });

  test('handler failures become INTERNAL without leaking detail', async () => {
    const err = await rejectsWith(transport.getTask({ id: CRASH_TASK_ID }), InternalError);
    assert.equal(err.receivedStatus, 13);
    assert.ok(!err.message.includes('secret'));
    const bytes = Buffer.from(encodeMessage(GRPC_METHODS.GetTask.input, { id: CRASH_TASK_ID }));
    const raw = await rawUnary(target, GRPC_METHODS.GetTask.path, bytes);
    assert.equal(raw.err?.code, 13);
    assert.ok(!String(raw.err?.details).includes('secret'));
  });

  test('requested extensions reach the agent; none activated, none echoed', async () => {
    const bytes = Buffer.from(encodeMessage(GRPC_METHODS.SendMessage.input, send('hello')));
    const md = new Metadata();
    md.set('a2a-version', '1.0');
    md.set('a2a-extensions', 'https://example.test/ext/optional/v1 ,https://unknown.test/x');
    const raw = await rawUnary(target, GRPC_METHODS.SendMessage.path, bytes, md);
    assert.equal(raw.err, null);
    assert.deepEqual(raw.headers?.get('a2a-extensions'), []);
    assert.deepEqual(agent.contexts.at(-1)?.requestedExtensions, [
      'https://example.test/ext/optional/v1',
      'https://unknown.test/x',
    ]);
  });

  test('SendStreamingMessage streams events in order and ends OK (SRV-GRPC-4)', async () => {
    const events = await collect(transport.sendStreamingMessage(send('stream:3')));
    assert.equal(events.length, 5);
    assert.ok(events[0] && 'task' in events[0]);
    const chunks = events
      .slice(1, 4)
      .map((e) => ('artifactUpdate' in e ? e.artifactUpdate?.artifact.parts[0] : undefined));
    assert.deepEqual(chunks, [{ text: 'chunk 1' }, { text: 'chunk 2' }, { text: 'chunk 3' }]);
    const last = events[4];
    assert.ok(last && 'statusUpdate' in last && last.statusUpdate?.status.state === 'TASK_STATE_COMPLETED');
  });

  test('a long stream is delivered completely and in order (backpressure)', async () => {
    const n = 400;
    let i = 0;
    for await (const e of transport.sendStreamingMessage(send(`stream:${n}`))) {
      if (i >= 1 && i <= n)
        assert.deepEqual('artifactUpdate' in e && e.artifactUpdate?.artifact.parts[0], {
          text: `chunk ${i}`,
        });
      i++;
    }
    assert.equal(i, n + 2);
  });

  test('SubscribeToTask: unknown or finished task fails before the first event; an active task streams', async () => {
    await rejectsWith(collect(transport.subscribeToTask({ id: 'nope' })), TaskNotFoundError);
    const done = await transport.sendMessage(send('hello'));
    assert.ok('task' in done && done.task);
    await rejectsWith(collect(transport.subscribeToTask({ id: done.task.id })), UnsupportedOperationError);
    const created = await transport.sendMessage(send('input'));
    assert.ok('task' in created && created.task);
    const id = created.task.id;
    const events: StreamResponse[] = [];
    for await (const e of transport.subscribeToTask({ id })) {
      events.push(e);
      // Subscribed (the snapshot arrived): answer the question, which completes the task.
      if (events.length === 1)
        await transport.sendMessage({ message: { ...send('blue').message, taskId: id } });
      if (events.length > 20) break;
    }
    assert.equal(events[0]?.task?.id, id);
    assert.equal(events[0]?.task?.status.state, 'TASK_STATE_INPUT_REQUIRED');
    assert.deepEqual(events.find((e) => e.artifactUpdate)?.artifactUpdate?.artifact.parts, [
      { text: 'blue' },
    ]);
    assert.equal(events.at(-1)?.statusUpdate?.status.state, 'TASK_STATE_COMPLETED');
  });

  test('a client that stops reading ends its call; the server stops iterating but the task lives on', async () => {
    let taskId = '';
    for await (const e of transport.sendStreamingMessage(send('hold'))) {
      if ('task' in e && e.task) taskId = e.task.id;
      break;
    }
    assert.ok(taskId);
    assert.ok(await eventually(() => bus.subscriptions(taskId) === 0), 'the stream was released');
    const task = await transport.getTask({ id: taskId });
    assert.equal(task.status.state, 'TASK_STATE_WORKING');
  });

  test('AbortSignal cancels a stream; timeoutMs becomes a deadline', async () => {
    const ac = new AbortController();
    await assert.rejects(
      (async () => {
        for await (const _ of transport.sendStreamingMessage(send('hold'), { signal: ac.signal })) ac.abort();
      })(),
      { name: 'AbortError' },
    );
    await assert.rejects(collect(transport.sendStreamingMessage(send('hold'), { timeoutMs: 100 })), {
      name: 'TimeoutError',
    });
  });
});

describe('gRPC binding: the call context and stream errors', () => {
  test('the handler sees tenant, principal and protocol version 1.0', async (t) => {
    const seen: ServerCallContext[] = [];
    const { handler } = createTestHandler(bindingTestAgent(), {
      capabilities: { streaming: true, extendedAgentCard: true },
      // The extended card function is user code that receives the call context.
      extendedCard: (ctx) => {
        seen.push(ctx);
        return testCard();
      },
    });
    const binding = new GrpcBinding(handler, { authenticate: () => ({ id: 'alice' }) });
    const transport = new GrpcTransport(`127.0.0.1:${await binding.listen(0)}`);
    t.after(async () => {
      await transport.close();
      await binding.close();
      await handler.close();
    });
    await transport.getExtendedAgentCard({ tenant: 'acme' });
    assert.equal(seen.at(-1)?.tenant, 'acme');
    assert.equal(seen.at(-1)?.principal.id, 'alice');
    assert.equal(seen.at(-1)?.protocolVersion, '1.0');
  });

  test('an error after the stream started ends it with that status and ErrorInfo (G5)', async (t) => {
    const handler = new StreamFailsAfter(
      { executor: bindingTestAgent(), card: () => testCard() },
      2,
      (taskId) => new TaskNotCancelableError('failed midway', { metadata: { taskId } }),
    );
    const binding = new GrpcBinding(handler);
    const transport = new GrpcTransport(`127.0.0.1:${await binding.listen(0)}`);
    t.after(async () => {
      await transport.close();
      await binding.close();
      await handler.close();
    });
    const seen: StreamResponse[] = [];
    const err = await rejectsWith(
      (async () => {
        for await (const e of transport.sendStreamingMessage(send('stream:3'))) seen.push(e);
      })(),
      TaskNotCancelableError,
    );
    assert.equal(seen.length, 2);
    assert.equal(err.receivedStatus, 9);
    assert.equal(err.reason, 'TASK_NOT_CANCELABLE');
    assert.deepEqual(err.metadata, { taskId: seen[0]?.task?.id ?? '' });
  });
});

describe('gRPC binding limits and required extensions', () => {
  test('oversized message → RESOURCE_EXHAUSTED, then normal calls still work', async (t) => {
    const { handler } = createTestHandler(bindingTestAgent());
    const binding = new GrpcBinding(handler, { maxMessageBytes: 1024 });
    const port = await binding.listen(0);
    const transport = new GrpcTransport(`127.0.0.1:${port}`);
    t.after(async () => {
      await transport.close();
      await binding.close();
      await handler.close();
    });
    const err = await rejectsWith(transport.sendMessage(send('x'.repeat(4096))), A2AError);
    assert.equal(err.receivedStatus, 8);
    assert.ok('task' in (await transport.sendMessage(send('small'))));
  });

  test('a required extension not requested → ExtensionSupportRequiredError; requested, it is activated and echoed', async (t) => {
    const agent = bindingTestAgent();
    const { handler } = createTestHandler(agent, {
      capabilities: { streaming: true, extensions: [{ uri: EXT_REQUIRED, required: true }] },
    });
    const binding = new GrpcBinding(handler);
    const port = await binding.listen(0);
    const plain = new GrpcTransport(`127.0.0.1:${port}`);
    const withExt = new GrpcTransport(`grpc://127.0.0.1:${port}`, { extensions: [EXT_REQUIRED] });
    t.after(async () => {
      await plain.close();
      await withExt.close();
      await binding.close();
      await handler.close();
    });
    const err = await rejectsWith(plain.sendMessage(send('hi')), ExtensionSupportRequiredError);
    assert.equal(err.metadata.extensions, EXT_REQUIRED);
    assert.equal(agent.contexts.length, 0, 'the agent did not run');
    assert.ok('task' in (await withExt.sendMessage(send('hi'))));
    // Requested among others (SRV-EXT-2), only the activated one comes back in metadata.
    const bytes = Buffer.from(encodeMessage(GRPC_METHODS.SendMessage.input, send('hello')));
    const md = new Metadata();
    md.set('a2a-extensions', `${EXT_REQUIRED} ,https://unknown.test/x`);
    const raw = await rawUnary(`127.0.0.1:${port}`, GRPC_METHODS.SendMessage.path, bytes, md);
    assert.equal(raw.err, null);
    assert.deepEqual(raw.headers?.get('a2a-extensions'), [EXT_REQUIRED]);
    assert.deepEqual(agent.contexts.at(-1)?.requestedExtensions, [EXT_REQUIRED, 'https://unknown.test/x']);
  });

  test('an unreachable server → A2ATransportError (ECONNREFUSED), as on HTTP', async () => {
    const { handler } = createTestHandler(bindingTestAgent());
    const binding = new GrpcBinding(handler);
    const port = await binding.listen(0);
    await binding.close();
    await handler.close();
    const transport = new GrpcTransport(`127.0.0.1:${port}`);
    try {
      const err = await transport.getTask({ id: 'x' }, { timeoutMs: 5000 }).then(
        () => assert.fail('expected a transport error'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof A2ATransportError, String(err));
      assert.equal(err.networkCode, 'ECONNREFUSED');
    } finally {
      await transport.close();
    }
  });
});

describe('GrpcBinding mounted on your own grpc-js server', () => {
  test('addTo() serves A2A next to the owner’s bind and shutdown (exported from a2a-kit/grpc)', async (t) => {
    const { GrpcBinding: Exported } = await import('../../../src/bindings/grpc/index.js');
    const { createA2AServer } = await import('../../../src/server/index.js');
    const { Server, ServerCredentials } = await import('@grpc/grpc-js');
    const a2a = createA2AServer({
      agent: bindingTestAgent(),
      card: { name: 'mounted', description: 'mounted agent', version: '1.0.0', skills: testCard().skills },
    });
    const server = new Server();
    new Exported(a2a.handler).addTo(server);
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, bound) =>
        err ? reject(err) : resolve(bound),
      ),
    );
    const transport = new GrpcTransport(`grpc://127.0.0.1:${port}`);
    t.after(async () => {
      await transport.close();
      await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
      await a2a.close();
    });
    const res = await transport.sendMessage(send('hello'));
    assert.ok('task' in res && res.task);
    assert.equal(res.task.status.state, 'TASK_STATE_COMPLETED');
    const again = await transport.getTask({ id: res.task.id });
    assert.equal(again.id, res.task.id);
  });
});
