/**
 * a2a-kit/cloudflare's createDurableObjectServer on Node, over the Durable Object storage of
 * test/support/durable-object-storage.ts (its real home is run by
 * test/runtimes/workerd-durable-object.test.ts): what it refuses, its task size cap (a task is
 * one row, and Cloudflare rows hold 2 MB), and tasks kept across servers on the same storage.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { A2AClient, textOf } from '../../../src/client/index.js';
import { A2AConfigError } from '../../../src/errors/config-errors.js';
import {
  DURABLE_OBJECT_MAX_TASK_BYTES,
  createDurableObjectServer,
  type DurableObjectServerOptions,
} from '../../../src/server/adapters/cloudflare.js';
import type { A2AServerOptions } from '../../../src/server/options.js';
import { openTestDurableObjectStorage } from '../../support/durable-object-storage.js';

const options: DurableObjectServerOptions = {
  card: {
    name: 'object',
    description: 'echoes, or answers too much',
    version: '1.0.0',
    skills: [{ id: 'echo', name: 'echo', description: 'echoes', tags: ['test'] }],
  },
  agent: async (ctx, task) => {
    const text =
      ctx.text === 'too much' ? 'x'.repeat(DURABLE_OBJECT_MAX_TASK_BYTES + 1) : `echo: ${ctx.text}`;
    await task.complete(text);
  },
};

test('createDurableObjectServer refuses push notifications and a store of its own', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-do-server-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const storage = openTestDurableObjectStorage(join(dir, 'object.sqlite'));
  t.after(() => storage.close());
  const refused: Partial<A2AServerOptions>[] = [
    { pushNotifications: true },
    { push: {} },
    { store: 'memory' },
  ];
  for (const extra of refused) {
    assert.throws(
      () => createDurableObjectServer(storage, { ...options, ...extra } as DurableObjectServerOptions),
      (error: unknown) => error instanceof A2AConfigError && /Durable Object/.test(error.message),
      JSON.stringify(extra),
    );
  }
});

test('createDurableObjectServer: tasks stay in the storage, a task over the row cap fails', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-do-server-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'object.sqlite');
  const serve = async (): Promise<{ client: A2AClient; stop(): Promise<void> }> => {
    const storage = openTestDurableObjectStorage(path);
    const server = createDurableObjectServer(storage, options);
    const { url } = await server.listen(0, '127.0.0.1');
    const client = await A2AClient.connect(url);
    return {
      client,
      stop: async () => {
        await client.close();
        await server.close();
        storage.close();
      },
    };
  };
  const first = await serve();
  let stopped = false;
  t.after(() => (stopped ? undefined : first.stop()));
  const sent = await first.client.send({ text: 'hello' });
  assert.equal(sent.kind, 'task');
  const taskId = sent.kind === 'task' ? sent.task.id : '';
  const big = await first.client.send({ text: 'too much' });
  assert.equal(big.kind === 'task' && big.task.status.state, 'TASK_STATE_FAILED');
  await first.stop();
  stopped = true;

  const second = await serve();
  t.after(() => second.stop());
  const got = await second.client.getTask(taskId);
  assert.equal(got.status.state, 'TASK_STATE_COMPLETED');
  assert.equal(textOf(got.artifacts?.[0]), 'echo: hello');
  assert.equal((await second.client.listTasks({})).totalSize, 2);
});
