/** A recording webhook on 127.0.0.1 and a push-enabled server, for the push delivery tests. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';
import { createA2AServer, type A2AServer, type A2AServerOptions } from '../../../src/server/http.js';
import type { AgentExecutor } from '../../../src/core/executor.js';
import type { PushOptions } from '../../../src/server/push/hosting.js';

/** One POST the webhook received. */
export interface Received {
  /** The path (and query) the notification was posted to. */
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  json: Record<string, unknown>;
}

/** A webhook: `answer` decides each reply (status code, or 'hang' to never answer). */
export interface Webhook {
  url: string;
  port: number;
  received: Received[];
  answer: (n: number, r: Received) => number | 'hang';
  close(): Promise<void>;
}

export async function startWebhook(
  answer: (n: number, r: Received) => number | 'hang' = () => 200,
  port = 0,
): Promise<Webhook> {
  const sockets = new Set<Socket>();
  const hook: Webhook = {
    url: '',
    port: 0,
    received: [],
    answer,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  let n = 0;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const r: Received = {
        path: req.url ?? '',
        headers: req.headers,
        body,
        json: JSON.parse(body) as Record<string, unknown>,
      };
      const reply = hook.answer(n++, r);
      if (reply === 'hang') return;
      if (reply >= 200 && reply < 300) hook.received.push(r);
      res.writeHead(reply, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  hook.port = (server.address() as AddressInfo).port;
  hook.url = `http://127.0.0.1:${hook.port}/hook`;
  return hook;
}

/** A free port on 127.0.0.1 (nothing listens on it when this returns). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/**
 * An agent: `steps:N` emits WORKING, N artifacts and COMPLETED; `hold` waits for `release()`
 * between WORKING and COMPLETED.
 */
export function pushAgent(): { agent: AgentExecutor; release: () => void } {
  let release: () => void = () => {};
  const agent: AgentExecutor = {
    async execute(ctx, task) {
      const text = ctx.text ?? '';
      if (text === 'hold') {
        await task.working('held');
        // Also ends when the server closes (an aborted signal), so close() never waits on it.
        const aborted = await new Promise<boolean>((r) => {
          release = () => r(false);
          ctx.signal.addEventListener('abort', () => r(true), { once: true });
        });
        if (!aborted) await task.complete();
        return;
      }
      const n = Number(/^steps:(\d+)$/.exec(text)?.[1] ?? '0');
      await task.working('starting');
      for (let i = 0; i < n; i++)
        await task.artifact({ artifactId: `a${i}`, parts: [{ text: `part ${i}` }] });
      await task.complete();
    },
  };
  return { agent, release: () => release() };
}

/** The safe-for-tests push options: the loopback receiver allow-listed, http allowed, fast retries. */
export const LOOPBACK_PUSH: PushOptions = {
  allowHosts: ['127.0.0.1'],
  allowHttp: true,
  baseDelayMs: 10,
  maxDelayMs: 50,
};

export const CARD: A2AServerOptions['card'] = {
  name: 'push-test',
  description: 'Push delivery test agent',
  version: '1.0.0',
  skills: [{ id: 's', name: 'S', description: 'Steps', tags: ['test'] }],
};

export async function startPushServer(
  agent: AgentExecutor,
  push: PushOptions,
  extra: Partial<A2AServerOptions> = {},
): Promise<{ server: A2AServer; url: string }> {
  const server = createA2AServer({ agent, card: CARD, pushNotifications: true, push, ...extra });
  const { url } = await server.listen(0, '127.0.0.1');
  return { server, url };
}

/** Waits (bounded) until `done()` holds; throws with `what` when it never does. */
export async function until(
  done: () => boolean | Promise<boolean>,
  what: string,
  maxMs = 20_000,
): Promise<void> {
  const end = Date.now() + maxMs;
  while (!(await done())) {
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A short description of a notification: `task:SUBMITTED`, `status:WORKING`, `artifact:a0`. */
export function kindOf(json: Record<string, unknown>): string {
  if (json.task)
    return `task:${(json.task as { status: { state: string } }).status.state.replace('TASK_STATE_', '')}`;
  if (json.statusUpdate) {
    return `status:${(json.statusUpdate as { status: { state: string } }).status.state.replace('TASK_STATE_', '')}`;
  }
  if (json.artifactUpdate)
    return `artifact:${(json.artifactUpdate as { artifact: { artifactId: string } }).artifact.artifactId}`;
  return Object.keys(json).join(',');
}
