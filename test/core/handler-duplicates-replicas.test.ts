/**
 * Issue 26, defect 7: across PostgreSQL replicas a duplicate SendMessage (same caller, same
 * messageId) that reaches replica B while the original still runs on replica A, before its
 * first event, gets the original's result (the same task, or the same direct reply), not
 * UnavailableError. Two servers, each with its own pool, on one PostgreSQL schema.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { A2AClient } from '../../src/client/client.js';
import type { AgentExecutor } from '../../src/core/executor.js';
import { createA2AServer } from '../../src/server/http.js';
import { dropSchema, freshSchema, postgresUrl } from '../support/postgres.js';
import { CARD, until } from '../server/push/support.js';

/** An agent that holds every execution before its first event until `release()`. */
function heldAgent() {
  let started = 0;
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  const agent: AgentExecutor = {
    async execute(ctx, task) {
      started++;
      await gate;
      if (ctx.text === 'reply') await task.reply('the only answer');
      else await task.complete('done');
    },
  };
  return { agent, release: () => release(), started: () => started };
}

async function replicas(t: TestContext, agent: AgentExecutor) {
  const schema = freshSchema('dup_replicas');
  const cleanup: (() => unknown)[] = [() => dropSchema(schema)];
  t.after(async () => {
    for (const step of cleanup.reverse()) await step();
  });
  const store = `${postgresUrl()}?schema=${schema}` as `postgres://${string}`;
  const clients: A2AClient[] = [];
  for (let i = 0; i < 2; i++) {
    const server = createA2AServer({ agent, card: CARD, store });
    const { url } = await server.listen(0, '127.0.0.1');
    cleanup.push(() => server.close());
    const client = await A2AClient.connect(url);
    cleanup.push(() => client.close());
    clients.push(client);
  }
  return clients as [A2AClient, A2AClient];
}

for (const kind of ['task', 'reply'] as const) {
  test(`defect 7 (PostgreSQL): a duplicate on replica B while the original runs on A gets the original ${kind}`, async (t) => {
    const held = heldAgent();
    const [a, b] = await replicas(t, held.agent);
    const request = a.buildRequest({ text: kind === 'reply' ? 'reply' : 'work' });
    const original = a.sendMessage(request);
    await until(() => held.started() === 1, 'the original to start on replica A');
    const repeat = b.sendMessage(request);
    // The repeat waits for the original: give it time to ask the store before the release.
    await new Promise((r) => setTimeout(r, 200));
    held.release();
    const [first, second] = await Promise.all([original, repeat]);
    assert.equal(held.started(), 1, 'the agent ran once');
    assert.equal(first.kind, kind === 'reply' ? 'message' : 'task');
    assert.equal(second.kind, first.kind);
    if (first.kind === 'task' && second.kind === 'task') {
      assert.equal(second.task.id, first.task.id);
      assert.equal(first.task.status.state, 'TASK_STATE_COMPLETED');
    }
    if (first.kind === 'message' && second.kind === 'message') {
      assert.equal(second.message.messageId, first.message.messageId);
    }
  });
}
