/**
 * Per-caller limits of createA2AServer (`limits.ratePerSecond`, `maxStreamsPerPrincipal`,
 * `maxRunningPerPrincipal`, `maxPushConfigsPerTask`) and the scope of anonymous callers
 * (`security.anonymous`), on real sockets.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { JsonRpcTransport } from '../../src/bindings/jsonrpc/client.js';
import { RestTransport } from '../../src/bindings/rest/client.js';
import { GrpcTransport } from '../../src/bindings/grpc/client.js';
import type { Transport } from '../../src/bindings/transport.js';
import { ResourceExhaustedError, UnauthenticatedError } from '../../src/errors/a2a-error.js';
import { createApiKeyAuthenticator } from '../../src/server/auth/index.js';
import { createA2AServer, type A2AServerOptions } from '../../src/server/http.js';
import type { SendMessageRequest, StreamResponse } from '../../src/model/schema.js';

const card = {
  name: 'limited',
  description: 'Has limits',
  version: '1.0.0',
  skills: [{ id: 's', name: 'S', description: 'S', tags: ['t'] }],
};
const keys = {
  'k-rpc': 'p-rpc',
  'k-rest': 'p-rest',
  'k-grpc': 'p-grpc',
};

const send = (text: string, extra: Partial<SendMessageRequest> = {}): SendMessageRequest => ({
  message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] },
  ...extra,
});

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

/** A server with one API key per binding (so each binding's caller has its own limits). */
async function start(t: { after: (fn: () => Promise<void>) => void }, options: Partial<A2AServerOptions>) {
  const server = createA2AServer({
    agent: async (ctx, task) => {
      if (ctx.text === 'wait') return task.requireInput('more?');
      return task.complete('ok');
    },
    card,
    grpc: { port: 0, host: '127.0.0.1' },
    security: { authenticators: [createApiKeyAuthenticator({ keys })] },
    ...options,
  });
  const info = await server.listen(0, '127.0.0.1');
  const transports: Transport[] = [
    new JsonRpcTransport(`${info.url}/a2a/jsonrpc`, { headers: { 'x-api-key': 'k-rpc' } }),
    new RestTransport(`${info.url}/a2a/rest`, { headers: { 'x-api-key': 'k-rest' } }),
    new GrpcTransport(`127.0.0.1:${info.grpcPort}`, { headers: { 'x-api-key': 'k-grpc' } }),
  ];
  t.after(async () => {
    for (const tr of transports) await tr.close();
    await server.close();
  });
  return { server, url: info.url, transports };
}

describe('per-caller limits', () => {
  test('rate limit: a token bucket per caller; beyond it 429 with Retry-After / RESOURCE_EXHAUSTED', async (t) => {
    // A refill of one token per 1000 s: nothing refills during the test.
    const { url, transports } = await start(t, { limits: { ratePerSecond: 0.001, rateBurst: 2 } });
    for (const tr of transports) {
      await tr.listTasks({});
      await tr.listTasks({});
      await rejectsWith(tr.listTasks({}), ResourceExhaustedError);
    }
    for (const path of ['/a2a/rest/tasks', '/a2a/jsonrpc']) {
      const reply = await fetch(`${url}${path}`, {
        method: path.endsWith('jsonrpc') ? 'POST' : 'GET',
        headers: { 'x-api-key': 'k-rpc', 'a2a-version': '1.0', 'content-type': 'application/json' },
        ...(path.endsWith('jsonrpc')
          ? { body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} }) }
          : {}),
      });
      assert.equal(reply.status, 429, path);
      assert.ok(Number(reply.headers.get('retry-after')) >= 1, path);
    }
  });

  test('open streams per caller', async (t) => {
    const { transports } = await start(t, { limits: { maxStreamsPerPrincipal: 1 } });
    for (const tr of transports) {
      const res = await tr.sendMessage(send('wait'));
      assert.ok('task' in res && res.task);
      const first = tr.subscribeToTask({ id: res.task.id })[Symbol.asyncIterator]();
      assert.equal((await first.next()).done, false);
      await rejectsWith(drainAll(tr.subscribeToTask({ id: res.task.id })), ResourceExhaustedError);
      await first.return?.();
      // The server frees the slot once it sees the stream closed (bounded wait).
      let reopened = false;
      for (let i = 0; i < 100 && !reopened; i++) {
        try {
          const again = tr.subscribeToTask({ id: res.task.id })[Symbol.asyncIterator]();
          await again.next();
          await again.return?.();
          reopened = true;
        } catch (error) {
          if (!(error instanceof ResourceExhaustedError)) throw error;
          await sleep(20);
        }
      }
      assert.ok(reopened, 'the slot was freed');
    }
  });

  test('running executions per caller, counted until the execution ends', async (t) => {
    const gates: (() => void)[] = [];
    const { transports } = await start(t, {
      agent: async (_ctx, task) => {
        await task.working();
        await new Promise<void>((resolve) => gates.push(resolve));
        return task.complete('done');
      },
      limits: { maxRunningPerPrincipal: 1 },
    });
    for (const tr of transports) {
      const first = await tr.sendMessage(send('go', { configuration: { returnImmediately: true } }));
      assert.ok('task' in first && first.task);
      await rejectsWith(tr.sendMessage(send('go')), ResourceExhaustedError);
      await rejectsWith(drainAll(tr.sendStreamingMessage(send('go'))), ResourceExhaustedError);
      gates.shift()?.();
      let accepted = false;
      for (let i = 0; i < 100 && !accepted; i++) {
        try {
          await tr.sendMessage(send('go', { configuration: { returnImmediately: true } }));
          accepted = true;
        } catch (error) {
          if (!(error instanceof ResourceExhaustedError)) throw error;
          await sleep(20);
        }
      }
      assert.ok(accepted, 'a new execution was accepted once the first ended');
      gates.shift()?.();
    }
  });

  test('push configs per task: ResourceExhausted beyond the cap, replacing one by id is allowed', async (t) => {
    const { transports } = await start(t, { pushNotifications: true, limits: { maxPushConfigsPerTask: 2 } });
    for (const tr of transports) {
      const res = await tr.sendMessage(send('wait'));
      assert.ok('task' in res && res.task);
      const taskId = res.task.id;
      const a = await tr.createTaskPushNotificationConfig({ taskId, url: 'https://example.com/1' });
      await tr.createTaskPushNotificationConfig({ taskId, url: 'https://example.com/2' });
      await rejectsWith(
        tr.createTaskPushNotificationConfig({ taskId, url: 'https://example.com/3' }),
        ResourceExhaustedError,
      );
      const replaced = await tr.createTaskPushNotificationConfig({
        taskId,
        id: a.id ?? '',
        url: 'https://example.com/1b',
      });
      assert.equal(replaced.url, 'https://example.com/1b');
      assert.equal((await tr.listTaskPushNotificationConfigs({ taskId })).configs?.length, 2);
    }
  });
});

async function drainAll(events: AsyncIterable<StreamResponse>): Promise<number> {
  let n = 0;
  for await (const _ of events) if (++n > 100) break;
  return n;
}

/** One JSON-RPC call over a given node:http agent (so the test chooses the connection). */
function rpcOver(
  agent: Agent,
  url: string,
  method: string,
  params: unknown,
): Promise<Record<string, unknown>> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/a2a/jsonrpc`,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'a2a-version': '1.0',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve(JSON.parse(text) as Record<string, unknown>));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('anonymous callers (security.anonymous)', () => {
  const anonymousServer = async (
    t: { after: (fn: () => Promise<void>) => void },
    anonymous: 'per-connection' | 'shared' | 'deny',
  ) => {
    const server = createA2AServer({
      agent: async (ctx, task) => task.requireInput(`hello ${ctx.principal.id.slice(0, 10)}`),
      card,
      extendedCard: card,
      grpc: { port: 0, host: '127.0.0.1' },
      security: { authenticators: [createApiKeyAuthenticator({ keys })], anonymous },
    });
    const info = await server.listen(0, '127.0.0.1');
    const agents = [
      new Agent({ keepAlive: true, maxSockets: 1 }),
      new Agent({ keepAlive: true, maxSockets: 1 }),
    ];
    t.after(async () => {
      for (const a of agents) a.destroy();
      await server.close();
    });
    return { server, info, agents };
  };
  const message = () => ({
    message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }] },
  });

  test("per-connection (the default when anonymous is allowed): connections do not see each other's tasks", async (t) => {
    const { server, info, agents } = await anonymousServer(t, 'per-connection');
    assert.deepEqual(server.card().securityRequirements, [{ schemes: { apiKey: { list: [] } } }, {}]);
    const [one, two] = agents as [Agent, Agent];
    const created = (await rpcOver(one, info.url, 'SendMessage', message())) as {
      result: { task: { id: string } };
    };
    const id = created.result.task.id;
    const same = (await rpcOver(one, info.url, 'GetTask', { id })) as { result?: unknown };
    assert.ok(same.result, 'the same connection sees its task');
    const other = (await rpcOver(two, info.url, 'GetTask', { id })) as { error?: { code: number } };
    assert.equal(other.error?.code, -32001, 'another connection gets TaskNotFound');
    const list = (await rpcOver(two, info.url, 'ListTasks', {})) as { result: { tasks: unknown[] } };
    assert.equal(list.result.tasks.length, 0);
    // The extended card needs a real credential.
    const card = (await rpcOver(one, info.url, 'GetExtendedAgentCard', {})) as { error?: { code: number } };
    assert.ok(card.error, 'anonymous callers do not get the extended card');
    // gRPC: anonymous calls work on one connection.
    const grpc = new GrpcTransport(`127.0.0.1:${info.grpcPort}`);
    t.after(() => grpc.close());
    const res = await grpc.sendMessage(send('hi'));
    assert.ok('task' in res && res.task);
    assert.equal((await grpc.getTask({ id: res.task.id })).id, res.task.id);
    await rejectsWith(grpc.getExtendedAgentCard({}), UnauthenticatedError);
  });

  test('shared: every anonymous caller is one principal', async (t) => {
    const { info, agents } = await anonymousServer(t, 'shared');
    const [one, two] = agents as [Agent, Agent];
    const created = (await rpcOver(one, info.url, 'SendMessage', message())) as {
      result: { task: { id: string } };
    };
    const other = (await rpcOver(two, info.url, 'GetTask', { id: created.result.task.id })) as {
      result?: unknown;
    };
    assert.ok(other.result);
  });

  test('deny (the default without an empty requirement): anonymous callers get 401', async (t) => {
    const { info } = await anonymousServer(t, 'deny');
    const rest = new RestTransport(`${info.url}/a2a/rest`);
    t.after(() => rest.close());
    await rejectsWith(rest.sendMessage(send('hi')), UnauthenticatedError);
  });
});
