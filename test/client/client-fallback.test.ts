/**
 * CLI-CARD-5 (fall back to another declared interface) and CLI-XCARD-3 (the extended card
 * replaces the public one for the session), against our real server on all three bindings.
 * The card is served by a tiny node:http server so its interfaces and version can be edited.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { createA2AServer, type A2AServer } from '../../src/server/http.js';
import type { AgentExecutor } from '../../src/core/executor.js';
import { A2AClient } from '../../src/client/client.js';
import type { ClientInterceptor } from '../../src/client/interceptor.js';
import { A2AInterfacesUnreachableError, A2ATransportError } from '../../src/errors/client-errors.js';
import { textOf } from '../../src/client/artifacts.js';
import { TaskState } from '../../src/model/enums.js';
import { A2AError } from '../../src/errors/index.js';
import type { AgentCard, AgentInterface } from '../../src/model/schema.js';

const agent: AgentExecutor = {
  async execute(ctx, task) {
    if (ctx.text === 'ask') return task.requireInput('which one?');
    return task.reply(`echo: ${ctx.text}`);
  },
};

const skill = { id: 's', name: 'S', description: 'd', tags: ['t'] };
const extraSkill = { id: 'secret', name: 'Secret', description: 'for members', tags: ['t'] };

/** A port nobody listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const s = createNetServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('fallback and extended card against our server', () => {
  let server: A2AServer;
  let live: { jsonrpc: AgentInterface; rest: AgentInterface; grpc: AgentInterface };
  let cardServer: Server;
  let cardUrl: string;
  /** What the card server serves; each test sets it. */
  let served: AgentCard;
  /** Accepts connections and resets each one once it has received bytes; counts them. */
  let resetter: ReturnType<typeof createNetServer>;
  let resetterUrl: string;
  let resets = 0;
  const sockets = new Set<Socket>();

  before(async () => {
    server = createA2AServer({
      agent,
      card: { name: 'ours', description: 'd', version: '1', skills: [skill] },
      extendedCard: { name: 'ours', description: 'd (members)', version: '1', skills: [skill, extraSkill] },
      pushNotifications: true,
      grpc: { port: 0, host: '127.0.0.1' },
    });
    await server.listen(0, '127.0.0.1');
    const find = (b: string) => server.card().supportedInterfaces.find((i) => i.protocolBinding === b);
    live = {
      jsonrpc: find('JSONRPC') as AgentInterface,
      rest: find('HTTP+JSON') as AgentInterface,
      grpc: find('GRPC') as AgentInterface,
    };
    assert.ok(live.jsonrpc && live.rest && live.grpc);
    cardServer = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache' });
      res.end(JSON.stringify(served));
    });
    await new Promise<void>((r) => cardServer.listen(0, '127.0.0.1', r));
    cardUrl = `http://127.0.0.1:${(cardServer.address() as AddressInfo).port}`;
    resetter = createNetServer((socket) => {
      sockets.add(socket);
      socket.once('data', () => {
        resets++;
        socket.resetAndDestroy();
      });
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((r) => resetter.listen(0, '127.0.0.1', r));
    resetterUrl = `http://127.0.0.1:${(resetter.address() as AddressInfo).port}/a2a/jsonrpc`;
  });
  after(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => resetter.close(() => r()));
    cardServer.closeAllConnections();
    await new Promise<void>((r) => cardServer.close(() => r()));
    await server.close();
  });

  const cardWith = (interfaces: AgentInterface[], patch: Partial<AgentCard> = {}): AgentCard => ({
    ...server.card(),
    supportedInterfaces: interfaces,
    ...patch,
  });
  const dead = async (binding: 'JSONRPC' | 'HTTP+JSON' | 'GRPC'): Promise<AgentInterface> => {
    const port = await closedPort();
    const url =
      binding === 'GRPC'
        ? `127.0.0.1:${port}`
        : `http://127.0.0.1:${port}${binding === 'JSONRPC' ? '/a2a/jsonrpc' : '/a2a/rest'}`;
    return { url, protocolBinding: binding, protocolVersion: '1.0' };
  };
  /** Counts the attempts each call makes (interceptors run once per attempt). */
  const counter = () => {
    const calls: string[] = [];
    const interceptor: ClientInterceptor = (next) => (call) => {
      calls.push(call.method);
      return next(call);
    };
    return { calls, interceptor };
  };

  test('CLI-CARD-5: a refused JSONRPC interface falls back to REST, which is then kept', async () => {
    served = cardWith([await dead('JSONRPC'), live.rest, live.grpc]);
    const { calls, interceptor } = counter();
    const c = await A2AClient.connect(cardUrl, { interceptors: [interceptor], timeoutMs: 10_000 });
    try {
      assert.equal(c.binding, 'JSONRPC');
      const r = await c.send({ text: 'hi' });
      assert.ok(r.kind === 'message');
      assert.equal(textOf(r.message), 'echo: hi');
      assert.equal(c.binding, 'HTTP+JSON');
      assert.deepEqual(calls, ['SendMessage', 'SendMessage']);
      // Remembered: the next call goes straight to REST.
      calls.length = 0;
      const t = await c.send({ text: 'ask' });
      assert.ok(t.kind === 'task');
      assert.equal((await c.getTask(t.task.id)).status.state, TaskState.INPUT_REQUIRED);
      assert.deepEqual(calls, ['SendMessage', 'GetTask']);
      // A protocol error from the live server is not a reason to move on.
      await assert.rejects(c.getTask('no-such-task'), (e: unknown) => e instanceof A2AError);
      assert.equal(c.binding, 'HTTP+JSON');
    } finally {
      await c.close();
    }
  });

  test('CLI-CARD-5: a refused gRPC interface falls back to JSONRPC; streams fall back too', async () => {
    served = cardWith([await dead('GRPC'), live.jsonrpc]);
    const c = await A2AClient.connect(cardUrl, { timeoutMs: 10_000 });
    try {
      assert.equal(c.binding, 'GRPC');
      const events = [];
      for await (const e of c.stream({ text: 'streamed' })) events.push(e);
      assert.equal(c.binding, 'JSONRPC');
      assert.ok(events.some((e) => e.kind === 'message' && textOf(e.message) === 'echo: streamed'));
    } finally {
      await c.close();
    }
  });

  test('CLI-CARD-5: the caller-preferred order is the fallback order; gRPC as the fallback', async () => {
    served = cardWith([live.jsonrpc, await dead('HTTP+JSON'), live.grpc]);
    const c = await A2AClient.connect(cardUrl, { bindings: ['HTTP+JSON', 'GRPC'], timeoutMs: 10_000 });
    try {
      assert.equal(c.binding, 'HTTP+JSON');
      const r = await c.send({ text: 'via grpc' });
      assert.ok(r.kind === 'message');
      assert.equal(c.binding, 'GRPC');
    } finally {
      await c.close();
    }
  });

  test('CLI-CARD-5: every interface down gives one error naming each', async () => {
    const a = await dead('JSONRPC');
    const b = await dead('HTTP+JSON');
    const g = await dead('GRPC');
    served = cardWith([a, b, g]);
    const { calls, interceptor } = counter();
    const c = await A2AClient.connect(cardUrl, {
      timeoutMs: 10_000,
      interceptors: [interceptor],
      retry: { attempts: 2, baseDelayMs: 1 },
    });
    try {
      await assert.rejects(c.getTask('t1'), (e: unknown) => {
        assert.ok(e instanceof A2AInterfacesUnreachableError);
        assert.ok(e instanceof A2ATransportError);
        assert.deepEqual(
          e.failures.map((f) => f.url),
          [a.url, b.url, g.url],
        );
        for (const i of [a, b, g])
          assert.match(e.message, new RegExp(i.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
        return true;
      });
      // Two rounds (retry attempts) over the three interfaces.
      assert.equal(calls.length, 6);
      // An unsafe call gets one round only.
      calls.length = 0;
      await assert.rejects(
        c.createTaskPushNotificationConfig({ taskId: 't1', url: 'https://example.com/h' }),
        A2AInterfacesUnreachableError,
      );
      assert.equal(calls.length, 3);
    } finally {
      await c.close();
    }
  });

  test('CLI-CARD-5: an unsafe call moves on only when the request was surely not delivered', async () => {
    // Create a task on the live server to attach push configs to.
    const seed = await A2AClient.connect(server.card(), { bindings: ['JSONRPC'] });
    const task = await seed.send({ text: 'ask' });
    await seed.close();
    assert.ok(task.kind === 'task');
    const config = { taskId: task.task.id, url: 'https://example.com/hook', token: 'tok' };

    // Refused connection: nothing was delivered, so even a config without id may go elsewhere.
    served = cardWith([await dead('JSONRPC'), live.rest]);
    const c1 = await A2AClient.connect(cardUrl, { timeoutMs: 10_000 });
    try {
      const created = await c1.createTaskPushNotificationConfig(config);
      assert.ok(created.id);
      assert.equal(c1.binding, 'HTTP+JSON');
    } finally {
      await c1.close();
    }

    // A connection reset after the request was sent: it may have arrived, so no resend.
    served = cardWith([{ url: resetterUrl, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }, live.rest]);
    const c2 = await A2AClient.connect(cardUrl, { timeoutMs: 10_000 });
    try {
      const before = resets;
      await assert.rejects(c2.createTaskPushNotificationConfig(config), (e: unknown) => {
        assert.ok(e instanceof A2ATransportError, String(e));
        assert.ok(!(e instanceof A2AInterfacesUnreachableError));
        return true;
      });
      assert.equal(resets - before, 1);
      assert.equal(c2.binding, 'JSONRPC');
      const configs = await c2.listTaskPushNotificationConfigs(task.task.id);
      // ListTaskPushNotificationConfigs is safe: it moved to REST; only the first config exists.
      assert.equal(c2.binding, 'HTTP+JSON');
      assert.equal(configs.configs?.length, 1);
    } finally {
      await c2.close();
    }
    // SendMessage (the same messageId on a resend) is safe to move after a reset too.
    const c3 = await A2AClient.connect(cardUrl, { timeoutMs: 10_000 });
    try {
      const before = resets;
      const r = await c3.send({ text: 'after reset' });
      assert.ok(r.kind === 'message');
      assert.equal(resets - before, 1);
      assert.equal(c3.binding, 'HTTP+JSON');
    } finally {
      await c3.close();
    }
  });

  test('CLI-CARD-5: failover: false keeps to the selected interface', async () => {
    served = cardWith([await dead('JSONRPC'), live.rest]);
    const c = await A2AClient.connect(cardUrl, { failover: false, retry: false, timeoutMs: 10_000 });
    try {
      await assert.rejects(c.send({ text: 'hi' }), (e: unknown) => {
        assert.ok(e instanceof A2ATransportError);
        assert.ok(!(e instanceof A2AInterfacesUnreachableError));
        assert.equal(e.networkCode, 'ECONNREFUSED');
        return true;
      });
      assert.equal(c.binding, 'JSONRPC');
    } finally {
      await c.close();
    }
  });

  test('CLI-XCARD-3: the extended card serves the session until the public version changes', async () => {
    // The public card hides streaming; the extended one (built by our server) offers it.
    served = cardWith([live.jsonrpc], {
      version: '1',
      capabilities: { ...server.card().capabilities, streaming: false },
    });
    const c = await A2AClient.connect(cardUrl, { timeoutMs: 10_000 });
    try {
      assert.deepEqual(
        c.card?.skills.map((s) => s.id),
        ['s'],
      );
      await assert.rejects(
        (async () => {
          for await (const e of c.stream({ text: 'x' })) void e;
        })(),
        (e: unknown) => e instanceof A2AError && e.code === 'UnsupportedOperation',
      );
      const extended = await c.getExtendedAgentCard();
      assert.deepEqual(
        extended.skills.map((s) => s.id),
        ['s', 'secret'],
      );
      assert.equal(c.card, extended);
      // Capability checks now read the extended card: streaming is allowed.
      const events = [];
      for await (const e of c.stream({ text: 'now' })) events.push(e);
      assert.ok(events.length > 0);

      // Same public version: the extended card stays.
      await c.refreshCard();
      assert.deepEqual(
        c.card?.skills.map((s) => s.id),
        ['s', 'secret'],
      );
      // A new public version: back to the (new) public card.
      served = { ...served, version: '2' };
      const now = await c.refreshCard();
      assert.equal(now?.version, '2');
      assert.deepEqual(
        c.card?.skills.map((s) => s.id),
        ['s'],
      );
      assert.equal(c.card?.capabilities.streaming, false);
    } finally {
      await c.close();
    }
  });
});
