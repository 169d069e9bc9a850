/**
 * The client side of the A2A 1.1 draft support (issue 31) against a real server: the client
 * asks for the generation extension when the card offers it, long-polls GetTask, sends
 * ifGenerationMatch, and a resilient stream that breaks resumes with Last-Event-ID (no GetTask
 * reconcile) and yields every generation exactly once.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { A2AClient, type ClientInterceptor } from '../../src/client/index.js';
import { A2ATransportError } from '../../src/errors/client-errors.js';
import { TaskGenerationMismatchError } from '../../src/errors/a2a-error.js';
import type { AgentExecutor } from '../../src/core/executor.js';
import type { StreamResponse } from '../../src/model/schema.js';
import { createA2AServer, type A2AServer } from '../../src/server/index.js';
import { TEST_CARD } from '../support/handler.js';

const agent: AgentExecutor = {
  async execute(ctx, task) {
    if (ctx.text === 'ask') return task.requireInput('more?');
    for (let i = 1; i <= 5; i++) await task.working(`step ${i}`);
    await task.artifact({ name: 'out', text: 'result' });
    return task.complete();
  },
};

describe('A2AClient and the A2A 1.1 draft', () => {
  let on: A2AServer;
  let off: A2AServer;
  let onUrl: string;
  let offUrl: string;
  before(async () => {
    on = createA2AServer({
      agent,
      card: TEST_CARD,
      store: 'memory',
      generation: { longPollMaxMs: 200 },
      grpc: { port: 0, host: '127.0.0.1' },
      logger: false,
    });
    off = createA2AServer({ agent, card: TEST_CARD, store: 'memory', logger: false });
    onUrl = (await on.listen(0, '127.0.0.1')).url;
    offUrl = (await off.listen(0, '127.0.0.1')).url;
  });
  after(async () => {
    await on.close();
    await off.close();
  });

  test('generation, waitPastGeneration and ifGenerationMatch', async () => {
    const client = await A2AClient.connect(onUrl);
    try {
      assert.equal(client.generation, true);
      const sent = await client.send({ text: 'ask' });
      assert.ok(sent.kind === 'task');
      const g = Number(sent.task.generation);
      assert.ok(g >= 1);
      // At the bound the task comes back as it is; after a change, with a newer generation.
      const same = await client.getTask(sent.task.id, { waitPastGeneration: g });
      assert.equal(Number(same.generation), g);
      await assert.rejects(
        client.send({ text: 'ask', taskId: sent.task.id }, { ifGenerationMatch: g + 3 }),
        (error: unknown) =>
          error instanceof TaskGenerationMismatchError && error.metadata.currentGeneration === String(g),
      );
      const polled = client.getTask(sent.task.id, { waitPastGeneration: g });
      await client.send({ text: 'ask', taskId: sent.task.id }, { ifGenerationMatch: g });
      assert.ok(Number((await polled).generation) > g);
    } finally {
      await client.close();
    }
  });

  test('against a server without the feature: no generation asked for, none seen', async () => {
    const client = await A2AClient.connect(offUrl);
    try {
      assert.equal(client.generation, false);
      const sent = await client.send({ text: 'ask' });
      assert.ok(sent.kind === 'task');
      assert.equal(sent.task.generation, undefined);
    } finally {
      await client.close();
    }
  });

  for (const binding of ['JSONRPC', 'HTTP+JSON', 'GRPC'] as const) {
    test(`a broken resilient stream resumes with Last-Event-ID (${binding}): every generation once, no GetTask`, async () => {
      const calls: { method: string; lastEventId: string | undefined }[] = [];
      // Cuts the first stream after two events, as a dropped connection would.
      const cut: ClientInterceptor = (next) => async (call) => {
        calls.push({ method: call.method, lastEventId: call.options.headers?.['last-event-id'] });
        const result = await next(call);
        if (call.method !== 'SendStreamingMessage') return result;
        const events = result as AsyncIterable<StreamResponse>;
        return (async function* () {
          let n = 0;
          for await (const event of events) {
            yield event;
            if (++n === 2) throw new A2ATransportError('connection reset (test)');
          }
        })() as never;
      };
      const client = await A2AClient.connect(onUrl, { interceptors: [cut], bindings: [binding] });
      try {
        const generations: number[] = [];
        for await (const event of client.streamResilient({ text: 'go' })) {
          const g =
            event.kind === 'task'
              ? event.task.generation
              : event.kind === 'statusUpdate'
                ? event.statusUpdate.generation
                : event.kind === 'artifactUpdate'
                  ? event.artifactUpdate.generation
                  : undefined;
          generations.push(Number(g));
        }
        assert.deepEqual(
          generations,
          generations.map((_, i) => i + 1),
        );
        assert.ok(generations.length >= 7, String(generations.length));
        assert.deepEqual(
          calls.map((c) => c.method),
          ['SendStreamingMessage', 'SubscribeToTask'],
        );
        assert.match(calls[1]!.lastEventId ?? '', /:2$/);
      } finally {
        await client.close();
      }
    });
  }
});
