/**
 * Our client against our own server (createA2AServer), over JSON-RPC and REST, in memory:
 * `inMemoryFetch` hands every request to `server.fetch`, so nothing listens (the sockets
 * themselves are tested in test/server and test/e2e).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createA2AServer, type A2AServer } from '../../src/server/http.js';
import type { AgentExecutor } from '../../src/core/executor.js';
import { A2AClient, type StreamEvent } from '../../src/client/client.js';
import { AgentCardResolver } from '../../src/client/card-resolver.js';
import { inMemoryFetch } from '../../src/client/in-memory.js';
import { A2ADeadlineError } from '../../src/errors/client-errors.js';
import { textOf } from '../../src/client/artifacts.js';
import { TaskState } from '../../src/model/enums.js';
import { TaskNotFoundError } from '../../src/errors/index.js';

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

const agent: AgentExecutor = {
  async execute(ctx, task) {
    if (ctx.task) return task.complete(`got: ${ctx.text}`);
    if (ctx.text === 'ask') return task.requireInput('which one?');
    if (ctx.text === 'wait') {
      await task.working('waiting');
      await sleep(20_000, ctx.signal);
      return;
    }
    if (ctx.text.startsWith('stream:')) {
      const n = Number(ctx.text.slice(7));
      for (let i = 1; i <= n; i++) {
        await task.working(`step ${i}`);
        await task.artifact(
          { artifactId: 'log', text: `line ${i}\n` },
          { append: i > 1, lastChunk: i === n },
        );
        await sleep(30);
      }
      return task.complete();
    }
    return task.reply(`echo: ${ctx.text}`);
  },
};

describe('client vs our server', () => {
  let server: A2AServer;
  let inMemory: typeof fetch;
  // Only a name: the card's interfaces are built from it, and no request leaves the process.
  const url = 'http://ours.test';
  before(() => {
    server = createA2AServer({
      agent,
      card: {
        name: 'ours',
        description: 'd',
        version: '1',
        skills: [{ id: 's', name: 'S', description: 'd', tags: ['t'] }],
      },
    });
    inMemory = inMemoryFetch(server);
  });
  after(() => server.close());

  test('discovery', async () => {
    const r = await new AgentCardResolver({ fetch: inMemory }).resolve(url);
    assert.equal(r.card.name, 'ours');
    assert.ok(r.card.supportedInterfaces.every((i) => i.url.startsWith(url)));
  });

  for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
    test(`${binding}: message, input-required follow-up, stream, not found, deadline`, async () => {
      const c = await A2AClient.connect(url, {
        bindings: [binding],
        fetch: inMemory,
        timeoutMs: 10_000,
        streamIdleTimeoutMs: 5_000,
      });
      assert.equal(c.binding, binding);
      const m = await c.send({ text: 'hi' });
      assert.ok(m.kind === 'message');
      assert.equal(textOf(m.message), 'echo: hi');
      const ask = await c.send({ text: 'ask' });
      assert.ok(ask.kind === 'task');
      assert.equal(ask.task.status.state, TaskState.INPUT_REQUIRED);
      const done = await c.send({ text: 'blue', taskId: ask.task.id, contextId: ask.task.contextId });
      assert.ok(done.kind === 'task');
      assert.equal(done.task.id, ask.task.id);
      assert.equal(done.task.status.state, TaskState.COMPLETED);
      const events: StreamEvent[] = [];
      for await (const e of c.stream({ text: 'stream:3' })) events.push(e);
      const last = events[events.length - 1];
      assert.ok(last?.kind === 'statusUpdate' || last?.kind === 'task');
      await assert.rejects(c.getTask('missing'), TaskNotFoundError);
      const page = await c.listTasks({ pageSize: 2 });
      assert.ok(page.tasks.length >= 1);
      const wait = await c.send({ text: 'wait', returnImmediately: true });
      assert.ok(wait.kind === 'task');
      await assert.rejects(
        c.waitForTask(wait.task.id, { deadline: 300, initialDelayMs: 50 }),
        A2ADeadlineError,
      );
      const after = await c.waitForTask(wait.task.id, { deadline: 5000 });
      assert.equal(after.status.state, TaskState.CANCELED);
    });
  }
});
