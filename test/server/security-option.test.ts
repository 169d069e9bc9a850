/**
 * createA2AServer's `security` option on real sockets, all three bindings: the card's security
 * section comes from the authenticators (and a card that disagrees is refused at start), every
 * call passes the gate, two principals cannot see or touch each other's tasks or push configs
 * through any operation, the extended card needs a credential and depends on the caller, and
 * in-task authorization (AUTH_REQUIRED, then a stronger credential of the same principal).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { JsonRpcTransport } from '../../src/bindings/jsonrpc/client.js';
import { RestTransport } from '../../src/bindings/rest/client.js';
import { GrpcTransport } from '../../src/bindings/grpc/client.js';
import type { Transport } from '../../src/bindings/transport.js';
import {
  PermissionDeniedError,
  TaskNotFoundError,
  UnauthenticatedError,
} from '../../src/errors/a2a-error.js';
import type { ProtocolBindingName } from '../../src/core/context.js';
import { createApiKeyAuthenticator } from '../../src/server/auth/index.js';
import { InvalidAgentCardError } from '../../src/server/card/build.js';
import { createA2AServer, type A2AServer } from '../../src/server/http.js';
import type { SendMessageRequest, StreamResponse } from '../../src/model/schema.js';

const BINDINGS: readonly ProtocolBindingName[] = ['JSONRPC', 'HTTP+JSON', 'GRPC'];

const apiKeys = () =>
  createApiKeyAuthenticator({
    keys: {
      'k-alice': { id: 'alice', scopes: ['read'] },
      'k-alice-admin': { id: 'alice', scopes: ['read', 'admin'] },
      'k-bob': { id: 'bob', scopes: ['read'] },
    },
  });

const skill = { id: 's', name: 'S', description: 'S', tags: ['t'] };
const card = { name: 'secure', description: 'Needs a key', version: '1.0.0', skills: [skill] };

const send = (text: string, taskId?: string): SendMessageRequest => ({
  message: {
    messageId: crypto.randomUUID(),
    role: 'ROLE_USER',
    parts: [{ text }],
    ...(taskId ? { taskId } : {}),
  },
});

async function drain(events: AsyncIterable<StreamResponse>): Promise<number> {
  let n = 0;
  for await (const _ of events) if (++n > 100) break;
  return n;
}

async function rejectsWith(
  promise: Promise<unknown>,
  ctor: abstract new (...args: never[]) => Error,
  what?: string,
): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof ctor, `${what ?? ''}: expected ${ctor.name}, got ${String(error)}`);
    return true;
  });
}

describe('createA2AServer({ security })', () => {
  const agentSaw: { id: string; scopes: readonly string[] }[] = [];
  let server: A2AServer;
  let url: string;
  let grpcTarget: string;
  const transports: Transport[] = [];

  function transport(binding: ProtocolBindingName, key?: string): Transport {
    const headers: Record<string, string> = key ? { 'x-api-key': key } : {};
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
        const scopes = ctx.principal.scopes ?? [];
        agentSaw.push({ id: ctx.principal.id, scopes });
        if (ctx.text === 'wait') return task.requireInput('more?');
        // Any follow-up (in this test: of an 'admin' task) needs the admin scope too.
        if (ctx.text === 'admin' || ctx.task) {
          if (!scopes.includes('admin')) return task.requireAuth('this needs the admin scope');
          return task.complete(`admin work for ${ctx.principal.id}`);
        }
        return task.complete(`hello ${ctx.principal.id}`);
      },
      card,
      extendedCard: (ctx) => ({ ...card, name: `for ${ctx.principal.id}` }),
      pushNotifications: true,
      grpc: { port: 0, host: '127.0.0.1' },
      security: { authenticators: [apiKeys()] },
    });
    const info = await server.listen(0, '127.0.0.1');
    url = info.url;
    grpcTarget = `127.0.0.1:${info.grpcPort}`;
  });
  after(async () => {
    for (const t of transports) await t.close();
    await server.close();
  });

  test('the card declares what the gate enforces', async () => {
    const served = (await (await fetch(`${url}/.well-known/agent-card.json`)).json()) as {
      securitySchemes?: Record<string, unknown>;
      securityRequirements?: unknown[];
      capabilities: { extendedAgentCard?: boolean };
    };
    assert.deepEqual(served.securitySchemes, {
      apiKey: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } },
    });
    assert.deepEqual(served.securityRequirements, [{ schemes: { apiKey: { list: [] } } }]);
    assert.equal(served.capabilities.extendedAgentCard, true);
  });

  test('a card declaring a scheme nobody enforces is refused at start', () => {
    assert.throws(
      () =>
        createA2AServer({
          agent: async (_ctx, task) => task.complete('x'),
          card: {
            ...card,
            securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } } },
          },
          security: { authenticators: [apiKeys()] },
        }),
      (error: unknown) => error instanceof InvalidAgentCardError && /bearer/.test(String(error)),
    );
    assert.throws(
      () =>
        createA2AServer({
          agent: async (_ctx, task) => task.complete('x'),
          card,
          security: { authenticators: [apiKeys()], requirements: [{ schemes: { oauth: { list: [] } } }] },
        }),
      /oauth/,
    );
    assert.throws(
      () =>
        createA2AServer({
          agent: async (_ctx, task) => task.complete('x'),
          card,
          security: { authenticators: [apiKeys()] },
          authenticate: () => ({ id: 'x' }),
        }),
      /either security or authenticate/,
    );
  });

  test('no credential or a bad one: UnauthenticatedError on every binding, the agent never runs', async () => {
    const before = agentSaw.length;
    for (const binding of BINDINGS) {
      for (const key of [undefined, 'k-wrong']) {
        const t = transport(binding, key);
        await rejectsWith(t.sendMessage(send('hi')), UnauthenticatedError, binding);
        await rejectsWith(drain(t.sendStreamingMessage(send('hi'))), UnauthenticatedError, binding);
        await rejectsWith(t.listTasks({}), UnauthenticatedError, binding);
        await rejectsWith(t.getExtendedAgentCard({}), UnauthenticatedError, binding);
      }
    }
    const reply = await fetch(`${url}/a2a/rest/tasks`, { headers: { 'a2a-version': '1.0' } });
    assert.equal(reply.status, 401);
    assert.equal(
      reply.headers.get('www-authenticate'),
      'ApiKey realm="apiKey", in="header", name="X-API-Key"',
    );
    assert.equal(agentSaw.length, before);
  });

  test('the extended card: only with a credential, and per caller', async () => {
    for (const binding of BINDINGS) {
      assert.equal((await transport(binding, 'k-alice').getExtendedAgentCard({})).name, 'for apiKey:alice');
      assert.equal((await transport(binding, 'k-bob').getExtendedAgentCard({})).name, 'for apiKey:bob');
    }
  });

  test("two principals cannot see or touch each other's tasks or push configs through any operation", async () => {
    for (const binding of BINDINGS) {
      const alice = transport(binding, 'k-alice');
      const bob = transport(binding, 'k-bob');
      const res = await alice.sendMessage(send('wait'));
      assert.ok('task' in res && res.task);
      const id = res.task.id;
      const config = await alice.createTaskPushNotificationConfig({
        taskId: id,
        url: 'https://example.com/alice-hook',
      });
      const configId = config.id ?? '';
      const runsBefore = agentSaw.length;
      const notFound = (p: Promise<unknown>, op: string) =>
        rejectsWith(p, TaskNotFoundError, `${binding} ${op}`);
      await notFound(bob.getTask({ id }), 'GetTask');
      await notFound(bob.cancelTask({ id }), 'CancelTask');
      await notFound(drain(bob.subscribeToTask({ id })), 'SubscribeToTask');
      await notFound(bob.sendMessage(send('take over', id)), 'SendMessage');
      await notFound(drain(bob.sendStreamingMessage(send('take over', id))), 'SendStreamingMessage');
      await notFound(
        bob.createTaskPushNotificationConfig({ taskId: id, url: 'https://example.com/bob-hook' }),
        'CreateTaskPushNotificationConfig',
      );
      await notFound(
        bob.getTaskPushNotificationConfig({ taskId: id, id: configId }),
        'GetTaskPushNotificationConfig',
      );
      await notFound(bob.listTaskPushNotificationConfigs({ taskId: id }), 'ListTaskPushNotificationConfigs');
      await notFound(
        bob.deleteTaskPushNotificationConfig({ taskId: id, id: configId }),
        'DeleteTaskPushNotificationConfig',
      );
      assert.ok(!(await bob.listTasks({})).tasks.some((t) => t.id === id), `${binding} ListTasks`);
      assert.ok(!(await bob.listTasks({ contextId: res.task.contextId })).tasks.some((t) => t.id === id));
      // Nothing changed for alice.
      assert.equal(agentSaw.length, runsBefore, `${binding}: the agent never ran for bob`);
      const own = await alice.getTask({ id });
      assert.equal(own.status.state, 'TASK_STATE_INPUT_REQUIRED');
      assert.equal(own.history?.length, res.task.history?.length);
      const configs = await alice.listTaskPushNotificationConfigs({ taskId: id });
      assert.deepEqual(
        configs.configs?.map((c) => c.url),
        ['https://example.com/alice-hook'],
      );
    }
  });

  test('in-task authorization: AUTH_REQUIRED, then a stronger credential of the same principal', async () => {
    for (const binding of BINDINGS) {
      const alice = transport(binding, 'k-alice');
      const res = await alice.sendMessage(send('admin'));
      assert.ok('task' in res && res.task);
      const id = res.task.id;
      assert.equal(res.task.status.state, 'TASK_STATE_AUTH_REQUIRED');
      // The state change grants nothing: the same weak credential gets AUTH_REQUIRED again.
      const again = await alice.sendMessage(send('still me', id));
      assert.ok('task' in again && again.task);
      assert.equal(again.task.status.state, 'TASK_STATE_AUTH_REQUIRED');
      assert.deepEqual(agentSaw.at(-1), { id: 'apiKey:alice', scopes: ['read'] });
      // Another principal's task does not exist for bob, whatever his credential.
      await rejectsWith(transport(binding, 'k-bob').sendMessage(send('me', id)), TaskNotFoundError, binding);
      // Same principal id, more scopes: allowed, and the agent sees the new scopes.
      const admin = transport(binding, 'k-alice-admin');
      const done = await admin.sendMessage(send('here is my admin key', id));
      assert.ok('task' in done && done.task);
      assert.equal(done.task.status.state, 'TASK_STATE_COMPLETED', binding);
      assert.deepEqual(agentSaw.at(-1), { id: 'apiKey:alice', scopes: ['read', 'admin'] });
    }
  });
});

describe('security requirements with scopes', () => {
  test('a credential without the required scope is refused with PermissionDenied (403)', async (t) => {
    const server = createA2AServer({
      agent: async (_ctx, task) => task.complete('ok'),
      card,
      grpc: { port: 0, host: '127.0.0.1' },
      security: { authenticators: [apiKeys()], requirements: [{ schemes: { apiKey: { list: ['admin'] } } }] },
    });
    const { url, grpcPort } = await server.listen(0, '127.0.0.1');
    const transports: Transport[] = [
      new JsonRpcTransport(`${url}/a2a/jsonrpc`, { headers: { 'x-api-key': 'k-alice' } }),
      new RestTransport(`${url}/a2a/rest`, { headers: { 'x-api-key': 'k-alice' } }),
      new GrpcTransport(`127.0.0.1:${grpcPort}`, { headers: { 'x-api-key': 'k-alice' } }),
    ];
    t.after(async () => {
      for (const tr of transports) await tr.close();
      await server.close();
    });
    for (const tr of transports) await rejectsWith(tr.sendMessage(send('hi')), PermissionDeniedError);
    const ok = new JsonRpcTransport(`${url}/a2a/jsonrpc`, { headers: { 'x-api-key': 'k-alice-admin' } });
    transports.push(ok);
    const res = await ok.sendMessage(send('hi'));
    assert.ok('task' in res && res.task?.status.state === 'TASK_STATE_COMPLETED');
  });
});
