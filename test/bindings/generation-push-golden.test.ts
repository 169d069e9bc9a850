/**
 * GEN-6, GEN-1: a push config registered by a v1.0 call is notified with exactly the bytes it
 * got before push notifications could carry `generation`, and a v1.0 read of push configs
 * answers as before, whether the operator turned the A2A 1.1 draft support on or not. The
 * golden file was captured from the code before push generations existed (`A2A_UPDATE_GOLDEN=1`
 * rewrites it): every notification's body and headers (ids and timestamps replaced by
 * numbered placeholders; the signature's value and the host's port dropped), and the JSON-RPC
 * and REST answers of the push-config operations, for a server with the feature off and one
 * with it on. The sibling of generation-golden.test.ts.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { AgentExecutor } from '../../src/core/executor.js';
import { createA2AServer, type A2AServerOptions } from '../../src/server/index.js';
import { TEST_CARD } from '../support/handler.js';
import { LOOPBACK_PUSH, until } from '../server/push/support.js';

const GOLDEN = new URL('./fixtures/generation-push-golden-v1.json', import.meta.url);

const agent: AgentExecutor = {
  async execute(ctx, task) {
    if (ctx.text === 'ask') return task.requireInput('which one?');
    await task.working('step 1');
    await task.artifact({ name: 'out', text: `echo ${ctx.text ?? ''}` });
    return task.complete('done');
  },
};

const V1 = { 'content-type': 'application/json', 'a2a-version': '1.0' };

/** The headers whose values are compared (the others by name only: port, length, signature). */
const COMPARED_HEADERS = [
  'content-type',
  'user-agent',
  'authorization',
  'x-a2a-notification-token',
  'a2a-version',
  'a2a-extensions',
];

/** A notification as received: the webhook path, its headers and its body. */
interface Notification {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A receiver on 127.0.0.1 that records every POST and answers 200. */
async function startReceiver(): Promise<{ url: string; got: Notification[]; close(): Promise<void> }> {
  const got: Notification[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    got,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

let seq = 0;
function message(text: string, taskId?: string): Record<string, unknown> {
  return {
    messageId: `golden-push-${++seq}`,
    role: 'ROLE_USER',
    parts: [{ text }],
    ...(taskId ? { taskId } : {}),
  };
}

/** Replaces ids (UUIDs) and timestamps by numbered placeholders, in order of first appearance. */
function normalize(text: string): string {
  const seen = new Map<string, string>();
  return text
    .replace(/golden-push-\d+/g, 'golden-push-N')
    .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) => {
      let name = seen.get(id);
      if (!name) seen.set(id, (name = `<id${seen.size}>`));
      return name;
    })
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/g, '<time>');
}

/** A notification as the transcript records it. */
function describeNotification(n: Notification): string {
  const names = Object.keys(n.headers).sort().join(',');
  const values = COMPARED_HEADERS.map((h) => `${h}=${String(n.headers[h] ?? '')}`).join(' ');
  return `${n.path} ${values}\nheaders: ${names}\n${n.body}`;
}

type Transcript = Record<string, string>;

async function http(base: string, path: string, init: RequestInit): Promise<{ text: string; line: string }> {
  const res = await fetch(base + path, init);
  const text = await res.text();
  const headers = ['content-type', 'a2a-extensions', 'a2a-version']
    .map((h) => `${h}=${res.headers.get(h) ?? ''}`)
    .join(' ');
  return { text, line: `${res.status} ${headers}\n${text}` };
}

/**
 * The script: JSON-RPC SendMessage with an inline config (token and authentication) on a task
 * that runs to its end; REST: a task that asks for input, a config created on it, the answer;
 * then the configs read back (Get and List on both bindings).
 */
async function script(base: string, hook: string): Promise<{ out: Transcript; notifications: number }> {
  const out: Transcript = {};
  const rpc = (method: string, params: unknown) =>
    http(base, '/a2a/jsonrpc', {
      method: 'POST',
      headers: V1,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
  const rest = (method: string, path: string, body?: unknown) =>
    http(base, '/a2a/rest' + path, {
      method,
      headers: V1,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const sent = await rpc('SendMessage', {
    message: message('one'),
    configuration: {
      taskPushNotificationConfig: {
        id: 'inline',
        url: `${hook}/inline`,
        token: 'tok-1',
        authentication: { scheme: 'Bearer', credentials: 'cred-1' },
      },
    },
  });
  out.send = sent.line;
  const id = (JSON.parse(sent.text) as { result: { task: { id: string } } }).result.task.id;
  const asked = await rest('POST', '/message:send', { message: message('ask') });
  out.ask = asked.line;
  const askId = (JSON.parse(asked.text) as { task: { id: string } }).task.id;
  out.create = (
    await rest('POST', `/tasks/${askId}/pushNotificationConfigs`, {
      taskId: askId,
      id: 'created',
      url: `${hook}/created`,
      token: 'tok-2',
    })
  ).line;
  out.answer = (await rest('POST', '/message:send', { message: message('this one', askId) })).line;
  out.rpcGet = (await rpc('GetTaskPushNotificationConfig', { taskId: id, id: 'inline' })).line;
  out.rpcList = (await rpc('ListTaskPushNotificationConfigs', { taskId: askId })).line;
  out.restGet = (await rest('GET', `/tasks/${askId}/pushNotificationConfigs/created`)).line;
  out.restList = (await rest('GET', `/tasks/${id}/pushNotificationConfigs`)).line;
  // Notifications: the inline config's four (the task, two artifacts, completed); the created
  // config's five after the answer (working, working with a message, two artifacts, completed).
  return { out, notifications: 9 };
}

async function transcript(options: Partial<A2AServerOptions>): Promise<Transcript> {
  const receiver = await startReceiver();
  const server = createA2AServer({
    agent,
    card: TEST_CARD,
    store: 'memory',
    pushNotifications: true,
    push: { ...LOOPBACK_PUSH, senderThread: false },
    onError: () => undefined,
    logger: false,
    ...options,
  });
  try {
    const info = await server.listen(0, '127.0.0.1');
    const { out, notifications } = await script(info.url, receiver.url);
    await until(() => receiver.got.length >= notifications, `${notifications} notifications`);
    await new Promise((r) => setTimeout(r, 100)); // none more arrives
    const result: Transcript = {};
    for (const [k, v] of Object.entries(out)) result[k] = normalize(v);
    // One config's notifications arrive in order; two configs' interleave: compared per config.
    for (const path of ['/inline', '/created']) {
      const mine = receiver.got.filter((n) => n.path === path);
      mine.forEach((n, i) => (result[`push${path}.${i}`] = normalize(describeNotification(n))));
    }
    result.count = String(receiver.got.length);
    return result;
  } finally {
    await server.close();
    await receiver.close();
  }
}

describe('GEN-6: a v1.0 push config gets the notifications and answers it got before', () => {
  const update = process.env.A2A_UPDATE_GOLDEN === '1';
  const golden = (): Transcript => (update ? {} : (JSON.parse(readFileSync(GOLDEN, 'utf8')) as Transcript));

  test('feature off: the golden transcript', async () => {
    const off = await transcript({});
    if (update) {
      writeFileSync(GOLDEN, JSON.stringify(off, null, 2) + '\n');
      return;
    }
    assert.deepEqual(off, golden());
  });

  test('feature on: the same golden transcript for v1.0 calls and their configs', async () => {
    const on = await transcript({ generation: { advertiseDraftVersion: true } });
    if (update) return;
    assert.deepEqual(on, golden());
  });
});
