/**
 * Issue 27, suspected item: a task's push configs are bounded by default (10), so one caller
 * cannot make every event of a task fan out to a thousand webhooks; `false` lifts the bound.
 * Real server on 127.0.0.1, JSON-RPC client.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { JsonRpcTransport } from '../../../src/bindings/jsonrpc/client.js';
import { ResourceExhaustedError } from '../../../src/errors/a2a-error.js';
import { createA2AServer, type A2AServerOptions } from '../../../src/server/http.js';
import { DEFAULT_MAX_PUSH_CONFIGS_PER_TASK } from '../../../src/server/limits/interceptors.js';

async function taskWithConfigs(t: TestContext, options: Partial<A2AServerOptions>, tries: number) {
  const server = createA2AServer({
    agent: async (_ctx, task) => task.requireInput('more?'),
    card: {
      name: 'push-limit',
      description: 'd',
      version: '1',
      skills: [{ id: 's', name: 'S', description: 'd', tags: ['t'] }],
    },
    store: 'memory',
    pushNotifications: true,
    ...options,
  });
  const { url } = await server.listen(0, '127.0.0.1');
  t.after(() => server.close());
  const client = new JsonRpcTransport(`${url.replace(/\/+$/, '')}/a2a/jsonrpc`);
  const res = await client.sendMessage({
    message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'go' }] },
  });
  assert.ok('task' in res && res.task);
  const taskId = res.task.id;
  const outcomes: string[] = [];
  for (let i = 0; i < tries; i++) {
    try {
      await client.createTaskPushNotificationConfig({ taskId, url: `https://hooks.example.com/${i}` });
      outcomes.push('ok');
    } catch (error) {
      outcomes.push(error instanceof ResourceExhaustedError ? 'exhausted' : String(error));
    }
  }
  const stored = (await client.listTaskPushNotificationConfigs({ taskId, pageSize: 100 })).configs ?? [];
  return { outcomes, stored: stored.length };
}

test('without limits set, a task holds at most 10 push configs', async (t) => {
  assert.equal(DEFAULT_MAX_PUSH_CONFIGS_PER_TASK, 10);
  const { outcomes, stored } = await taskWithConfigs(t, {}, 12);
  assert.deepEqual(outcomes, [...Array<string>(10).fill('ok'), 'exhausted', 'exhausted']);
  assert.equal(stored, 10);
});

test('maxPushConfigsPerTask: false lifts the bound', async (t) => {
  const { outcomes, stored } = await taskWithConfigs(t, { limits: { maxPushConfigsPerTask: false } }, 12);
  assert.deepEqual(outcomes, Array<string>(12).fill('ok'));
  assert.equal(stored, 12);
});
