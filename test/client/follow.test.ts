/**
 * The resilient helpers: `followTask` / `streamResilient` end at a terminal state or an
 * interruption (INPUT_REQUIRED) on every binding, against our server and the official SDK's,
 * even while keep-alives keep the stream alive; and they ride out a server outage of over a
 * second (stopped, then restarted on the same port with its tasks kept), reconnecting through
 * GetTask and the resubscription alike.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createA2AServer, type A2AServer } from '../../src/server/http.js';
import type { AgentExecutor } from '../../src/core/executor.js';
import { GrpcBinding } from '../../src/bindings/grpc/server.js';
import { A2AClient, statusOf, type StreamEvent } from '../../src/client/client.js';
import { createTransport } from '../../src/client/binding-selection.js';
import { TaskState } from '../../src/model/enums.js';
import { startSdkServer, type SdkServer } from '../support/sdk-server.js';
import { createTestHandler } from '../support/handler.js';

const BINDINGS = ['JSONRPC', 'HTTP+JSON', 'GRPC'] as const;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Bounds every follow: a helper that never returns fails the test instead of hanging it. */
const bound = () => AbortSignal.timeout(15_000);

const card = {
  name: 'follow',
  description: 'd',
  version: '1',
  skills: [{ id: 's', name: 'S', description: 'd', tags: ['t'] }],
};

/** `ask`: INPUT_REQUIRED; `gate`: WORKING until the test opens the gate, then COMPLETED. */
function gatedAgent() {
  let open: () => void = () => undefined;
  const gate = new Promise<void>((r) => (open = r));
  const agent: AgentExecutor = {
    async execute(ctx, task) {
      if (ctx.text === 'ask') return task.requireInput('which one?');
      await task.working('waiting for the gate');
      await gate;
      await task.complete('through');
    },
  };
  return { agent, open: () => open() };
}

const finalState = (events: StreamEvent[]) => statusOf(events.filter((e) => statusOf(e)).at(-1)!)?.state;

async function collect(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

describe('following ends at an interruption', () => {
  let ours: A2AServer;
  let oursUrl: string;
  let sdk: SdkServer;
  before(async () => {
    // Keep-alives every 50 ms keep a 1 s idle timeout from ever firing.
    ours = createA2AServer({ agent: gatedAgent().agent, card, keepAliveMs: 50, grpc: { port: 0 } });
    oursUrl = (await ours.listen(0, '127.0.0.1')).url;
    sdk = await startSdkServer({ grpc: true });
  });
  after(async () => {
    await ours.close();
    await sdk.close();
  });

  for (const server of ['ours', 'sdk'] as const) {
    for (const binding of BINDINGS) {
      test(`${server} over ${binding}: followTask and streamResilient of an INPUT_REQUIRED task return`, async () => {
        const c = await A2AClient.connect(server === 'ours' ? oursUrl : sdk.url, {
          bindings: [binding],
          streamIdleTimeoutMs: 1_000,
        });
        try {
          const asked = await c.send({ text: 'ask' });
          assert.ok(asked.kind === 'task');
          assert.equal(asked.task.status.state, TaskState.INPUT_REQUIRED);
          const followed = await collect(c.followTask(asked.task.id, { signal: bound() }));
          assert.equal(finalState(followed), TaskState.INPUT_REQUIRED);
          const streamed = await collect(c.streamResilient({ text: 'ask' }, { signal: bound() }));
          assert.equal(finalState(streamed), TaskState.INPUT_REQUIRED);
        } finally {
          await c.close();
        }
      });
    }
  }
});

/** An HTTP front for `server` that the test can take down and bring back on the same port. */
async function restartableHttp(handler: (req: never, res: never) => void) {
  let http: Server | undefined;
  const sockets = new Set<Socket>();
  let port = 0;
  const start = async () => {
    const s = createServer((req, res) => handler(req as never, res as never));
    s.on('connection', (sock: Socket) => {
      sockets.add(sock);
      sock.on('close', () => sockets.delete(sock));
    });
    await new Promise<void>((r) => s.listen(port, '127.0.0.1', r));
    port = (s.address() as AddressInfo).port;
    http = s;
  };
  const stop = async () => {
    const s = http;
    http = undefined;
    if (!s) return;
    const closed = new Promise<void>((r) => s.close(() => r()));
    for (const sock of sockets) sock.destroy();
    await closed;
  };
  await start();
  return { port: () => port, start, stop };
}

describe('following rides out an outage', () => {
  for (const binding of BINDINGS) {
    for (const helper of ['followTask', 'streamResilient'] as const) {
      test(`${binding} ${helper}: server down ~1.5 s, restarted on the same port, the follow completes`, async (t) => {
        const { agent, open } = gatedAgent();
        let down: () => Promise<void>;
        let up: () => Promise<void>;
        let client: A2AClient;
        if (binding === 'GRPC') {
          // The task store and the running agent stay; only the gRPC listener goes away.
          const { handler } = createTestHandler(agent);
          let grpc = new GrpcBinding(handler, { shutdownGraceMs: 1 });
          const port = await grpc.listen(0);
          down = () => grpc.close();
          up = async () => {
            grpc = new GrpcBinding(handler, { shutdownGraceMs: 1 });
            await grpc.listen(port);
          };
          t.after(async () => {
            await grpc.close();
            await handler.close();
          });
          const iface = { url: `127.0.0.1:${port}`, protocolBinding: 'GRPC', protocolVersion: '1.0' };
          client = new A2AClient(await createTransport(iface, {}), undefined, {});
        } else {
          // The handler runs only for requests, after `a2a` exists.
          const front = await restartableHttp((req, res) => a2a.nodeHandler(req, res));
          const a2a = createA2AServer({ agent, card, publicUrl: `http://127.0.0.1:${front.port()}` });
          down = front.stop;
          up = front.start;
          t.after(async () => {
            await front.stop();
            await a2a.close();
          });
          client = await A2AClient.connect(`http://127.0.0.1:${front.port()}`, { bindings: [binding] });
        }
        t.after(() => client.close());

        let source: AsyncIterable<StreamEvent>;
        if (helper === 'followTask') {
          const sent = await client.send({ text: 'gate', returnImmediately: true });
          assert.ok(sent.kind === 'task');
          source = client.followTask(sent.task.id, { signal: bound() });
        } else {
          source = client.streamResilient({ text: 'gate' }, { signal: bound() });
        }
        const events: StreamEvent[] = [];
        let outage: Promise<void> | undefined;
        for await (const e of source) {
          events.push(e);
          if (!outage && statusOf(e)?.state === TaskState.WORKING) {
            outage = (async () => {
              await down();
              await sleep(1_500);
              await up();
              open();
            })();
          }
        }
        await outage;
        assert.ok(outage, 'the outage happened');
        assert.equal(finalState(events), TaskState.COMPLETED);
      });
    }
  }
});
