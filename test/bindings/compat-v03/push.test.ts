/**
 * Push payloads by registered version (SRV-COMPAT-8): the body builder on its own, then end to
 * end: configs registered by the v0.3 SDK's clients (nobody here wrote them) over v0.3 JSON-RPC
 * (inline and set), REST and gRPC get v0.3 bodies, while a v1.0 config on the same task gets the
 * v1.0 StreamResponse at the same time; a v1.0 read of a v0.3 config shows the v1.0 shape only.
 */
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Message as V03Message, Task as V03Task } from '@a2a-js/sdk-v03';
import { A2AClient as V03JsonRpcClient, ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk-v03/client';
import { GrpcTransportFactory } from '@a2a-js/sdk-v03/client/grpc';
import { pushPayloadFor } from '../../../src/bindings/compat-v03/push.js';
import { A2AClient } from '../../../src/client/client.js';
import { BODY_HASH_CLAIM } from '../../../src/core/push/notification-signing.js';
import type { StreamResponse, Task } from '../../../src/model/schema.js';
import type { A2AServer } from '../../../src/server/http.js';
import {
  kindOf,
  LOOPBACK_PUSH,
  pushAgent,
  startPushServer,
  startWebhook,
  until,
  type Received,
  type Webhook,
} from '../../server/push/support.js';

const task: Task = {
  id: 't1',
  contextId: 'c1',
  status: { state: 'TASK_STATE_CANCELED', timestamp: '2026-01-01T00:00:00.000Z' },
  artifacts: [{ artifactId: 'out', parts: [{ text: 'x' }] }],
};
const statusEvent: StreamResponse = { statusUpdate: { taskId: 't1', contextId: 'c1', status: task.status } };

describe('pushPayloadFor', () => {
  test('a config registered at 0.3 gets the whole v0.3 Task as application/json', () => {
    const payload = pushPayloadFor('0.3', JSON.stringify(statusEvent), task);
    assert.equal(payload.contentType, 'application/json');
    assert.deepEqual(JSON.parse(payload.body), {
      kind: 'task',
      id: 't1',
      contextId: 'c1',
      status: { state: 'canceled', timestamp: '2026-01-01T00:00:00.000Z' },
      artifacts: [{ artifactId: 'out', parts: [{ kind: 'text', text: 'x' }] }],
    });
  });

  test('without the task (purged), a 0.3 config gets the event in v0.3 form, final on a terminal state', () => {
    const status = JSON.parse(pushPayloadFor('0.3.0', JSON.stringify(statusEvent)).body) as unknown;
    assert.deepEqual(status, {
      kind: 'status-update',
      taskId: 't1',
      contextId: 'c1',
      status: { state: 'canceled', timestamp: '2026-01-01T00:00:00.000Z' },
      final: true,
    });
    const working: StreamResponse = {
      statusUpdate: { taskId: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' } },
    };
    assert.equal(
      (JSON.parse(pushPayloadFor('0.3', JSON.stringify(working)).body) as { final: boolean }).final,
      false,
    );
    const artifact: StreamResponse = {
      artifactUpdate: { taskId: 't1', contextId: 'c1', artifact: { artifactId: 'a', parts: [{ data: 7 }] } },
    };
    assert.deepEqual(JSON.parse(pushPayloadFor('0.3', JSON.stringify(artifact)).body), {
      kind: 'artifact-update',
      taskId: 't1',
      contextId: 'c1',
      artifact: {
        artifactId: 'a',
        parts: [{ kind: 'data', data: { value: 7 }, metadata: { data_part_compat: true } }],
      },
    });
  });

  test('a config registered at 1.0 (or before versions were recorded) gets the outbox payload byte for byte', () => {
    const text = JSON.stringify(statusEvent);
    for (const version of ['1.0', undefined]) {
      const payload = pushPayloadFor(version, text, task);
      assert.equal(payload.contentType, 'application/a2a+json');
      assert.equal(payload.body, text);
    }
  });
});

function v03Message(text: string): V03Message {
  return { kind: 'message', messageId: crypto.randomUUID(), role: 'user', parts: [{ kind: 'text', text }] };
}

/** The JWT claims of a signed notification (signature checks are the signing tests' job). */
function claimsOf(r: Received): Record<string, unknown> {
  const jwt = String(r.headers['x-a2a-notification-signature']);
  return JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
}

/** Every v0.3 notification: a whole v0.3 Task of `taskId`, as application/json, signed over the body sent. */
function assertV03Bodies(hook: Webhook, taskId: string): void {
  assert.ok(hook.received.length > 0);
  for (const r of hook.received) {
    assert.equal(r.headers['content-type'], 'application/json');
    assert.equal(r.json.kind, 'task', r.body);
    assert.equal(r.json.id, taskId);
    assert.doesNotMatch(r.body, /TASK_STATE_|ROLE_/, 'v0.3 spellings only');
    assert.equal(claimsOf(r)[BODY_HASH_CLAIM], createHash('sha256').update(r.body).digest('hex'));
  }
  const last = hook.received.at(-1)!.json as unknown as V03Task;
  assert.equal(last.status.state, 'completed');
  assert.deepEqual(last.history?.[0]?.parts, [{ kind: 'text', text: 'hold' }], 'v0.3 parts');
  assert.ok(last.history?.every((m) => m.kind === 'message' && (m.role === 'user' || m.role === 'agent')));
}

function completed(hook: Webhook, v03: boolean): boolean {
  return hook.received.some((r) =>
    v03
      ? (r.json as { status?: { state?: string } }).status?.state === 'completed'
      : kindOf(r.json) === 'status:COMPLETED',
  );
}

/** The state of `taskId` through v1.0, polled (bounded) until it is `state`. */
async function waitForState(client: A2AClient, taskId: string, state: string): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if ((await client.getTask(taskId)).status.state === state) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`task ${taskId} never reached ${state}`);
}

/** A bare v1.0 JSON-RPC call, to see exactly what is on the wire. */
async function v10Rpc(endpoint: string, method: string, params: unknown): Promise<unknown> {
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: unknown; error?: unknown };
  assert.ok(body.error === undefined, JSON.stringify(body.error));
  return body.result;
}

/** The card's interface URL for `binding` at `version`. */
async function interfaceUrl(base: string, binding: string, version: string): Promise<string> {
  const card = (await (await fetch(`${base}/.well-known/agent-card.json`)).json()) as {
    supportedInterfaces: { url: string; protocolBinding: string; protocolVersion: string }[];
  };
  const found = card.supportedInterfaces.find(
    (i) => i.protocolBinding === binding && i.protocolVersion === version,
  );
  assert.ok(found, `the card has a ${binding} ${version} interface`);
  return found.url;
}

describe('push delivery in the registering version (SRV-COMPAT-8)', () => {
  let server: A2AServer;
  let url: string;
  let release: () => void;
  const names = ['inline', 'jsonrpc', 'rest', 'grpc', 'v10'] as const;
  const hooks = {} as Record<(typeof names)[number], Webhook>;

  before(async () => {
    for (const name of names) hooks[name] = await startWebhook();
    const agent = pushAgent();
    release = agent.release;
    ({ server, url } = await startPushServer(agent.agent, LOOPBACK_PUSH, {
      grpc: { port: 0, host: '127.0.0.1' },
    }));
  });

  after(async () => {
    await server.close();
    for (const name of names) await hooks[name].close();
  });

  test('v0.3 configs (inline, JSON-RPC, REST, gRPC) get v0.3 Tasks; a v1.0 config on the same task gets StreamResponses', async (t) => {
    const jsonrpc = await V03JsonRpcClient.fromCardUrl(`${url}/.well-known/agent-card.json`);
    const sent = await jsonrpc.sendMessage({
      message: v03Message('hold'),
      configuration: {
        blocking: false,
        pushNotificationConfig: { id: 'inline', url: hooks.inline.url, token: 'v03-token' },
      },
    });
    assert.ok(!('error' in sent), JSON.stringify(sent));
    const taskId = (sent.result as V03Task).id;
    const v10 = await A2AClient.connect(url);
    t.after(() => v10.close());
    await waitForState(v10, taskId, 'TASK_STATE_WORKING');

    const set = await jsonrpc.setTaskPushNotificationConfig({
      taskId,
      pushNotificationConfig: { id: 'jsonrpc', url: hooks.jsonrpc.url },
    });
    assert.ok(!('error' in set), JSON.stringify(set));
    assert.doesNotMatch(JSON.stringify(set), /protocolVersion/);
    const rest = await new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: ['HTTP+JSON'] }),
    ).createFromUrl(url);
    await rest.setTaskPushNotificationConfig({
      taskId,
      pushNotificationConfig: { id: 'rest', url: hooks.rest.url },
    });
    const grpc = await new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new GrpcTransportFactory()],
        preferredTransports: ['GRPC'],
      }),
    ).createFromUrl(url);
    await grpc.setTaskPushNotificationConfig({
      taskId,
      pushNotificationConfig: { id: 'grpc', url: hooks.grpc.url },
    });
    await v10.createTaskPushNotificationConfig({ taskId, id: 'v10', url: hooks.v10.url });

    // release() until the agent has taken it (it is set just after WORKING is saved).
    await until(() => {
      release();
      return names.every((name) => completed(hooks[name], name !== 'v10'));
    }, 'every receiver sees the completed task');

    for (const name of ['inline', 'jsonrpc', 'rest', 'grpc'] as const) assertV03Bodies(hooks[name], taskId);
    assert.equal(hooks.inline.received[0]!.headers['x-a2a-notification-token'], 'v03-token');
    for (const r of hooks.v10.received) {
      assert.equal(r.headers['content-type'], 'application/a2a+json');
      assert.ok(r.json.statusUpdate ?? r.json.artifactUpdate ?? r.json.task, r.body);
      assert.equal(claimsOf(r)[BODY_HASH_CLAIM], createHash('sha256').update(r.body).digest('hex'));
    }
    assert.equal(kindOf(hooks.v10.received.at(-1)!.json), 'status:COMPLETED');
  });

  test('a v1.0 read of configs v0.3 clients registered shows the v1.0 shape and nothing else', async () => {
    const jsonrpc = await V03JsonRpcClient.fromCardUrl(`${url}/.well-known/agent-card.json`);
    const sent = await jsonrpc.sendMessage({
      message: v03Message('steps:0'),
      configuration: { pushNotificationConfig: { id: 'p1', url: hooks.inline.url, token: 'tok' } },
    });
    assert.ok(!('error' in sent), JSON.stringify(sent));
    const taskId = (sent.result as V03Task).id;
    await jsonrpc.setTaskPushNotificationConfig({
      taskId,
      pushNotificationConfig: {
        id: 'p2',
        url: hooks.jsonrpc.url,
        authentication: { schemes: ['Bearer'], credentials: 'c' },
      },
    });
    const endpoint = await interfaceUrl(url, 'JSONRPC', '1.0');
    assert.deepEqual(await v10Rpc(endpoint, 'GetTaskPushNotificationConfig', { taskId, id: 'p1' }), {
      id: 'p1',
      taskId,
      url: hooks.inline.url,
      token: 'tok',
    });
    assert.deepEqual(await v10Rpc(endpoint, 'ListTaskPushNotificationConfigs', { taskId }), {
      configs: [
        { id: 'p1', taskId, url: hooks.inline.url, token: 'tok' },
        { id: 'p2', taskId, url: hooks.jsonrpc.url, authentication: { scheme: 'Bearer', credentials: 'c' } },
      ],
      nextPageToken: '',
    });
    const restBase = await interfaceUrl(url, 'HTTP+JSON', '1.0');
    const res = await fetch(`${restBase}/tasks/${taskId}/pushNotificationConfigs/p2`, {
      headers: { 'a2a-version': '1.0' },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), {
      id: 'p2',
      taskId,
      url: hooks.jsonrpc.url,
      authentication: { scheme: 'Bearer', credentials: 'c' },
    });
  });
});
