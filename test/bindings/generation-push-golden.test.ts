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
import { createA2AServer, type A2AServerOptions } from '../../src/server/index.js';
import { TEST_CARD } from '../support/handler.js';
import {
  GOLDEN_AGENT as agent,
  V1,
  goldenMessages,
  httpLine,
  normalizeTranscript,
} from './golden-support.js';
import { LOOPBACK_PUSH, startWebhook, until, type Received } from '../server/push/support.js';

const GOLDEN = new URL('./fixtures/generation-push-golden-v1.json', import.meta.url);

/** The headers whose values are compared (the others by name only: port, length, signature). */
const COMPARED_HEADERS = [
  'content-type',
  'user-agent',
  'authorization',
  'x-a2a-notification-token',
  'a2a-version',
  'a2a-extensions',
];

/** A notification as the transcript records it. */
function describeNotification(n: Received): string {
  const names = Object.keys(n.headers).sort().join(',');
  const values = COMPARED_HEADERS.map((h) => `${h}=${String(n.headers[h] ?? '')}`).join(' ');
  return `${n.path} ${values}\nheaders: ${names}\n${n.body}`;
}

type Transcript = Record<string, string>;

const message = goldenMessages('golden-push');
const normalize = (text: string): string => normalizeTranscript(text, 'golden-push');

/**
 * The script: JSON-RPC SendMessage with an inline config (token and authentication) on a task
 * that runs to its end; REST: a task that asks for input, a config created on it, the answer;
 * then the configs read back (Get and List on both bindings).
 */
async function script(base: string, hook: string): Promise<{ out: Transcript; notifications: number }> {
  const out: Transcript = {};
  const rpc = (method: string, params: unknown) =>
    httpLine(base, '/a2a/jsonrpc', {
      method: 'POST',
      headers: V1,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
  const rest = (method: string, path: string, body?: unknown) =>
    httpLine(base, '/a2a/rest' + path, {
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
  const receiver = await startWebhook();
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
    const { out, notifications } = await script(info.url, `http://127.0.0.1:${receiver.port}`);
    await until(() => receiver.received.length >= notifications, `${notifications} notifications`);
    await new Promise((r) => setTimeout(r, 100)); // none more arrives
    const result: Transcript = {};
    for (const [k, v] of Object.entries(out)) result[k] = normalize(v);
    // One config's notifications arrive in order; two configs' interleave: compared per config.
    for (const path of ['/inline', '/created']) {
      const mine = receiver.received.filter((n) => n.path === path);
      mine.forEach((n, i) => (result[`push${path}.${i}`] = normalize(describeNotification(n))));
    }
    result.count = String(receiver.received.length);
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
