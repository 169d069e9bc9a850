/**
 * createA2AServer's `authenticate` and `interceptors` on real sockets, on every binding (JSON-RPC,
 * HTTP+JSON, gRPC) and on the v0.3 paths: the principal reaches the agent, a refused credential
 * is 401 + WWW-Authenticate / UNAUTHENTICATED and creates no task, interceptors see every
 * operation with its binding, and one principal never sees another's tasks.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { create, toBinary } from '@bufbuild/protobuf';
import { Client, Metadata, credentials, status, type ServiceError } from '@grpc/grpc-js';
import { JsonRpcTransport } from '../../src/bindings/jsonrpc/client.js';
import { RestTransport } from '../../src/bindings/rest/client.js';
import { GrpcTransport } from '../../src/bindings/grpc/client.js';
import { V03GrpcTransport } from '../../src/bindings/compat-v03/grpc-client.js';
import type { Transport } from '../../src/bindings/transport.js';
import { SendMessageRequestSchema } from '../../src/bindings/grpc/gen/lf/a2a/v1/a2a_pb.js';
import { SendMessageRequestSchema as V03SendMessageRequestSchema } from '../../src/bindings/compat-v03/gen/a2a/v1/a2a_pb.js';
import { TaskNotFoundError, UnauthenticatedError } from '../../src/errors/a2a-error.js';
import type { ProtocolBindingName } from '../../src/core/context.js';
import { MemoryTaskStore } from '../../src/core/stores/memory/task-store.js';
import type { StoredTask } from '../../src/core/stores/task-store.js';
import type { ServerInterceptor } from '../../src/core/handler/interceptor.js';
import { AuthenticationFailedError, type Authenticate } from '../../src/server/auth/index.js';
import { createA2AServer, type A2AServer } from '../../src/server/http.js';
import type { SendMessageRequest, StreamResponse } from '../../src/model/schema.js';

const CHALLENGE = 'ApiKey realm="a2a", header="x-api-key"';
const KEYS = new Map([
  ['key-alice', 'alice'],
  ['key-bob', 'bob'],
]);

/** The principal of the `x-api-key` header; anything else is refused with a challenge. */
const authenticate: Authenticate = ({ headers }) => {
  const id = KEYS.get(headers.get('x-api-key') ?? '');
  if (id !== undefined) return { id };
  throw new AuthenticationFailedError({
    kind: headers.has('x-api-key') ? 'invalid' : 'missing',
    scheme: 'apiKey',
    message: 'Unknown or missing API key',
    challenges: [CHALLENGE],
  });
};

/** A real memory store that counts its writes (a refused call must write nothing). */
class CountingStore extends MemoryTaskStore {
  saves = 0;
  override save(record: StoredTask, expectedVersion: number): Promise<void> {
    this.saves++;
    return super.save(record, expectedVersion);
  }
}

const BINDINGS: readonly ProtocolBindingName[] = ['JSONRPC', 'HTTP+JSON', 'GRPC'];

const ALL_METHODS = [
  'CancelTask',
  'CreateTaskPushNotificationConfig',
  'DeleteTaskPushNotificationConfig',
  'GetExtendedAgentCard',
  'GetTask',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'ListTasks',
  'SendMessage',
  'SendStreamingMessage',
  'SubscribeToTask',
];

const send = (text: string): SendMessageRequest => ({
  message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] },
});

async function firstEvent(events: AsyncIterable<StreamResponse>): Promise<StreamResponse | undefined> {
  for await (const event of events) return event;
  return undefined;
}

async function drain(events: AsyncIterable<StreamResponse>): Promise<number> {
  let n = 0;
  for await (const _ of events) if (++n > 100) break;
  return n;
}

async function rejectsWith(
  promise: Promise<unknown>,
  ctor: abstract new (...args: never[]) => Error,
): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof ctor, `expected ${ctor.name}, got ${String(error)}`);
    return true;
  });
}

/** One raw unary gRPC call, to see the status and trailing metadata exactly. */
function rawGrpc(target: string, path: string, bytes: Uint8Array, metadata: Metadata): Promise<ServiceError> {
  const client = new Client(target, credentials.createInsecure());
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(
      path,
      (b: Buffer) => b,
      (b: Buffer) => b,
      Buffer.from(bytes),
      metadata,
      (error) => {
        client.close();
        if (error) resolve(error);
        else reject(new Error('the call succeeded'));
      },
    );
  });
}

describe('createA2AServer: authenticate and interceptors on every binding', () => {
  const store = new CountingStore();
  const agentSaw: string[] = [];
  const intercepted: string[] = [];
  const recorder: ServerInterceptor = (next) => (call) => {
    intercepted.push(`${call.ctx.binding} ${call.method} ${call.ctx.principal.id}`);
    return next(call);
  };
  let server: A2AServer;
  let url: string;
  let grpcTarget: string;
  const transports: Transport[] = [];

  function transport(binding: ProtocolBindingName, key: string): Transport {
    const headers = { 'x-api-key': key };
    const t =
      binding === 'JSONRPC'
        ? new JsonRpcTransport(`${url}/a2a/jsonrpc`, { headers })
        : binding === 'HTTP+JSON'
          ? new RestTransport(`${url}/a2a/rest`, { headers })
          : new GrpcTransport(grpcTarget, { headers });
    transports.push(t);
    return t;
  }

  before(async () => {
    server = createA2AServer({
      agent: async (ctx, task) => {
        agentSaw.push(ctx.principal.id);
        if (ctx.text === 'wait') return task.requireInput('more?');
        return task.complete(`hello ${ctx.principal.id}`);
      },
      card: {
        name: 'auth-test',
        description: 'Checks the authenticate hook',
        version: '1.0.0',
        skills: [{ id: 's', name: 'S', description: 'S', tags: ['t'] }],
      },
      extendedCard: (ctx) => ({
        name: `for ${ctx.principal.id}`,
        description: 'Extended',
        version: '1.0.0',
        skills: [{ id: 's', name: 'S', description: 'S', tags: ['t'] }],
      }),
      store,
      pushNotifications: true,
      grpc: { port: 0, host: '127.0.0.1' },
      authenticate,
      interceptors: [recorder],
    });
    const info = await server.listen(0, '127.0.0.1');
    url = info.url;
    grpcTarget = `127.0.0.1:${info.grpcPort}`;
  });
  after(async () => {
    for (const t of transports) await t.close();
    await server.close();
  });

  test('the principal from a header reaches the agent on JSON-RPC, HTTP+JSON and gRPC', async () => {
    for (const binding of BINDINGS) {
      const key = binding === 'HTTP+JSON' ? 'key-bob' : 'key-alice';
      const res = await transport(binding, key).sendMessage(send('hi'));
      assert.ok('task' in res && res.task, binding);
      assert.equal(res.task.status.state, 'TASK_STATE_COMPLETED', binding);
      assert.equal(agentSaw.at(-1), KEYS.get(key), binding);
    }
  });

  test('the principal reaches the agent on the v0.3 paths (JSON-RPC, REST, gRPC)', async () => {
    intercepted.length = 0;
    const rpc = await fetch(`${url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '0.3', 'x-api-key': 'key-bob' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: {
          message: {
            kind: 'message',
            messageId: crypto.randomUUID(),
            role: 'user',
            parts: [{ kind: 'text', text: 'hi' }],
          },
        },
      }),
    });
    assert.equal(rpc.status, 200);
    const rpcBody = (await rpc.json()) as { result?: { kind?: string; status?: { state?: string } } };
    assert.equal(rpcBody.result?.status?.state, 'completed', JSON.stringify(rpcBody));
    assert.equal(agentSaw.at(-1), 'bob');

    const rest = await fetch(`${url}/a2a/rest/v1/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'key-alice' },
      body: JSON.stringify({
        message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', content: [{ text: 'hi' }] },
      }),
    });
    assert.equal(rest.status, 200, await rest.clone().text());
    assert.equal(agentSaw.at(-1), 'alice');

    const grpc = new V03GrpcTransport(grpcTarget, { headers: { 'x-api-key': 'key-bob' } });
    transports.push(grpc);
    const res = await grpc.sendMessage(send('hi'));
    assert.ok('task' in res && res.task);
    assert.equal(agentSaw.at(-1), 'bob');
    // The v0.3 calls run the v1.0 operations, through the interceptors, with their binding.
    assert.deepEqual(intercepted, [
      'JSONRPC SendMessage bob',
      'HTTP+JSON SendMessage alice',
      'GRPC SendMessage bob',
    ]);
  });

  test('a refused credential: 401 + WWW-Authenticate, gRPC UNAUTHENTICATED, and no task', async () => {
    const savesBefore = store.saves;
    const agentCallsBefore = agentSaw.length;
    const v1Message = { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }] };
    // JSON-RPC: the error at HTTP level (401), the JSON-RPC error in the body. Its id is null:
    // the caller is refused before the body is read (SRV-TRUST-1), so the id is never seen.
    for (const headers of [{ 'x-api-key': 'wrong' }, {}] as Record<string, string>[]) {
      const reply = await fetch(`${url}/a2a/jsonrpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'SendMessage',
          params: { message: v1Message },
        }),
      });
      assert.equal(reply.status, 401);
      assert.equal(reply.headers.get('www-authenticate'), CHALLENGE);
      const body = (await reply.json()) as { id: number; error?: { code: number; message: string } };
      assert.equal(body.id, null);
      assert.equal(body.error?.code, -32000);
    }
    const rest = await fetch(`${url}/a2a/rest/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'x-api-key': 'wrong' },
      body: JSON.stringify({ message: v1Message }),
    });
    assert.equal(rest.status, 401);
    assert.equal(rest.headers.get('www-authenticate'), CHALLENGE);
    assert.equal(((await rest.json()) as { error?: { status?: string } }).error?.status, 'UNAUTHENTICATED');

    const bad = new Metadata();
    bad.set('x-api-key', 'wrong');
    const v1 = create(SendMessageRequestSchema, {
      message: { messageId: 'm-grpc', role: 1, parts: [{ content: { case: 'text', value: 'hi' } }] },
    });
    const grpcError = await rawGrpc(
      grpcTarget,
      '/lf.a2a.v1.A2AService/SendMessage',
      toBinary(SendMessageRequestSchema, v1),
      bad,
    );
    assert.equal(grpcError.code, status.UNAUTHENTICATED);
    assert.deepEqual(grpcError.metadata.get('www-authenticate'), [CHALLENGE]);
    await rejectsWith(transport('GRPC', 'wrong').sendMessage(send('hi')), UnauthenticatedError);
    await rejectsWith(
      drain(transport('GRPC', 'wrong').sendStreamingMessage(send('hi'))),
      UnauthenticatedError,
    );
    await rejectsWith(
      drain(transport('HTTP+JSON', 'wrong').sendStreamingMessage(send('hi'))),
      UnauthenticatedError,
    );

    // v0.3: the same refusals.
    const v03Rpc = await fetch(`${url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '0.3', 'x-api-key': 'wrong' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 8,
        method: 'message/send',
        params: {
          message: { kind: 'message', messageId: 'm', role: 'user', parts: [{ kind: 'text', text: 'hi' }] },
        },
      }),
    });
    assert.equal(v03Rpc.status, 401);
    assert.equal(v03Rpc.headers.get('www-authenticate'), CHALLENGE);
    const v03Rest = await fetch(`${url}/a2a/rest/v1/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: { messageId: 'm', role: 'ROLE_USER', content: [{ text: 'hi' }] } }),
    });
    assert.equal(v03Rest.status, 401);
    assert.equal(v03Rest.headers.get('www-authenticate'), CHALLENGE);
    const v03 = create(V03SendMessageRequestSchema, {
      request: { messageId: 'm-v03', role: 1, content: [{ part: { case: 'text', value: 'hi' } }] },
    });
    const v03Grpc = await rawGrpc(
      grpcTarget,
      '/a2a.v1.A2AService/SendMessage',
      toBinary(V03SendMessageRequestSchema, v03),
      bad,
    );
    assert.equal(v03Grpc.code, status.UNAUTHENTICATED);
    assert.deepEqual(v03Grpc.metadata.get('www-authenticate'), [CHALLENGE]);

    assert.equal(store.saves, savesBefore, 'no task was written');
    assert.equal(agentSaw.length, agentCallsBefore, 'the agent never ran');
  });

  test('an interceptor sees every operation with its binding and principal', async () => {
    for (const binding of BINDINGS) {
      intercepted.length = 0;
      const t = transport(binding, 'key-alice');
      const res = await t.sendMessage(send('wait'));
      assert.ok('task' in res && res.task);
      const id = res.task.id;
      assert.ok((await drain(t.sendStreamingMessage(send('hi')))) > 0);
      await t.getTask({ id });
      await t.listTasks({});
      assert.ok(await firstEvent(t.subscribeToTask({ id })));
      const config = await t.createTaskPushNotificationConfig({
        taskId: id,
        url: 'https://example.com/hook',
      });
      const configId = config.id ?? '';
      await t.getTaskPushNotificationConfig({ taskId: id, id: configId });
      await t.listTaskPushNotificationConfigs({ taskId: id });
      await t.deleteTaskPushNotificationConfig({ taskId: id, id: configId });
      await t.cancelTask({ id });
      assert.equal((await t.getExtendedAgentCard({})).name, 'for alice');
      const methods = [...new Set(intercepted.map((line) => line.split(' ')[1]))].sort();
      assert.deepEqual(methods, ALL_METHODS, binding);
      for (const line of intercepted)
        assert.match(line, new RegExp(`^${binding.replace('+', '\\+')} \\w+ alice$`));
    }
  });

  test('two principals never see each other’s tasks (GetTask, ListTasks, CancelTask, SubscribeToTask)', async () => {
    for (const binding of BINDINGS) {
      const alice = transport(binding, 'key-alice');
      const bob = transport(binding, 'key-bob');
      const res = await alice.sendMessage(send('wait'));
      assert.ok('task' in res && res.task);
      const id = res.task.id;
      assert.equal(res.task.status.state, 'TASK_STATE_INPUT_REQUIRED');
      await rejectsWith(bob.getTask({ id }), TaskNotFoundError);
      await rejectsWith(bob.cancelTask({ id }), TaskNotFoundError);
      await rejectsWith(drain(bob.subscribeToTask({ id })), TaskNotFoundError);
      const bobs = await bob.listTasks({});
      assert.ok(!bobs.tasks.some((task) => task.id === id), binding);
      const aliceList = await alice.listTasks({});
      assert.ok(
        aliceList.tasks.some((task) => task.id === id),
        binding,
      );
      const own = await alice.getTask({ id });
      assert.equal(own.status.state, 'TASK_STATE_INPUT_REQUIRED', `${binding}: bob's cancel changed nothing`);
    }
  });
});
