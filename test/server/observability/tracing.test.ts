/**
 * Traces across agent hops: a client call to a planner server whose agent calls a deployer
 * server is one trace, on each binding (the client injects `traceparent`, the bindings record
 * it, the server spans continue it); agent executions and store calls are child spans; a
 * failing agent gives an error span; stream events are span events.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { shutdownTelemetry, spans } from './otel-setup.js';
import { A2AClient } from '../../../src/client/index.js';
import type { BindingName } from '../../../src/client/binding-selection.js';
import { createA2AServer, type A2AServer } from '../../../src/server/index.js';
import { TEST_CARD } from '../../support/handler.js';

after(() => shutdownTelemetry());

const BINDINGS: BindingName[] = ['JSONRPC', 'HTTP+JSON', 'GRPC'];
const SERVER_SPAN = 'lf.a2a.v1.A2AService/SendMessage';

async function start(
  agent: Parameters<typeof createA2AServer>[0]['agent'],
): Promise<{ server: A2AServer; url: string }> {
  const server = createA2AServer({
    agent,
    card: TEST_CARD,
    grpc: { port: 0, host: '127.0.0.1' },
    onError: () => undefined,
  });
  const { url } = await server.listen(0, '127.0.0.1');
  return { server, url };
}

function byId(all: ReadableSpan[], id: string | undefined): ReadableSpan | undefined {
  return all.find((s) => s.spanContext().spanId === id);
}

/** The chain of spans from `span` up to the root, by parent ids. */
function ancestry(all: ReadableSpan[], span: ReadableSpan): ReadableSpan[] {
  const chain = [span];
  for (let s = span, i = 0; i < 20; i++) {
    const parent = byId(all, s.parentSpanContext?.spanId);
    if (!parent) break;
    chain.push(parent);
    s = parent;
  }
  return chain;
}

for (const binding of BINDINGS) {
  describe(`one trace across two hops over ${binding}`, () => {
    test('client -> planner -> deployer share one trace, parent by parent', async (t) => {
      const deployer = await start(async (_ctx, task) => {
        await task.complete('deployed');
      });
      t.after(() => deployer.server.close());
      const deployerClient = await A2AClient.connect(deployer.url, { bindings: [binding] });
      t.after(() => deployerClient.close());
      const planner = await start(async (ctx, task) => {
        const answer = await deployerClient.send({ text: `deploy ${ctx.text}` });
        assert.equal(answer.kind, 'task');
        await task.complete(`planned and ${answer.kind === 'task' ? answer.task.status.state : '?'}`);
      });
      t.after(() => planner.server.close());
      const client = await A2AClient.connect(planner.url, { bindings: [binding] });
      t.after(() => client.close());

      spans.reset();
      // The operator's own span is the root of the trace.
      let traceId = '';
      const result = await trace.getTracer('test').startActiveSpan('operator-call', async (span) => {
        traceId = span.spanContext().traceId;
        try {
          return await client.send({ text: 'release 1.2' });
        } finally {
          span.end();
        }
      });
      assert.equal(result.kind, 'task');

      const all = spans.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
      const servers = all.filter((s) => s.name === SERVER_SPAN && s.kind === SpanKind.SERVER);
      assert.equal(servers.length, 2, `two server spans in the trace: ${all.map((s) => s.name).join(', ')}`);
      const [inner, outer] = servers.sort((a, b) => ancestry(all, b).length - ancestry(all, a).length);
      // The planner's server span continues the operator's call...
      assert.ok(ancestry(all, outer!).includes(all.find((s) => s.name === 'operator-call')!));
      // ... and the deployer's is below the planner's agent execution, below the planner's server span.
      const chain = ancestry(all, inner!).map((s) => s.name);
      assert.deepEqual(chain.slice(0, 4), [SERVER_SPAN, 'a2a.agent.execute', SERVER_SPAN, 'operator-call']);
      assert.equal(outer!.attributes['rpc.method'], 'SendMessage');
      assert.equal(outer!.attributes['a2a.task.id'], result.kind === 'task' ? result.task.id : '');
      assert.equal(outer!.attributes['a2a.context.id'], result.kind === 'task' ? result.task.contextId : '');
      assert.equal(outer!.attributes['a2a.task.state'], 'TASK_STATE_COMPLETED');
      // Store calls are children of the spans they serve.
      const stores = all.filter((s) => s.name.startsWith('a2a.store.'));
      assert.ok(stores.length >= 2, 'store spans recorded');
      assert.ok(stores.every((s) => byId(all, s.parentSpanContext?.spanId) !== undefined));
    });
  });
}

describe('failures and streams', () => {
  test('a failing agent gives an error span with the exception; the task fails with its message only', async (t) => {
    const { server, url } = await start(async () => {
      throw new Error('deployer timed out after 30s');
    });
    t.after(() => server.close());
    const client = await A2AClient.connect(url);
    t.after(() => client.close());
    spans.reset();
    const result = await client.send({ text: 'go' });
    assert.equal(result.kind, 'task');
    const task = result.kind === 'task' ? result.task : undefined;
    assert.equal(task?.status.state, 'TASK_STATE_FAILED');
    const statusText = task?.status.message?.parts.map((p) => p.text ?? '').join('') ?? '';
    assert.match(statusText, /deployer timed out after 30s/);
    assert.doesNotMatch(JSON.stringify(task), /at .*\.ts:\d+/, 'no stack reaches the client');
    const agentSpan = spans.getFinishedSpans().find((s) => s.name === 'a2a.agent.execute');
    assert.ok(agentSpan);
    assert.equal(agentSpan.status.code, SpanStatusCode.ERROR);
    const exception = agentSpan.events.find((e) => e.name === 'exception');
    assert.match(
      String(exception?.attributes?.['exception.stacktrace']),
      /deployer timed out after 30s\n\s+at /,
    );
  });

  test('a stream is one span ending with the stream, its events as span events', async (t) => {
    const { server, url } = await start(async (_ctx, task) => {
      await task.working('thinking');
      await task.complete('done');
    });
    t.after(() => server.close());
    const client = await A2AClient.connect(url);
    t.after(() => client.close());
    spans.reset();
    let events = 0;
    for await (const _event of client.stream({ text: 'go' })) events++;
    assert.ok(events >= 2);
    const span = spans.getFinishedSpans().find((s) => s.name === 'lf.a2a.v1.A2AService/SendStreamingMessage');
    assert.ok(span, 'stream span ended');
    assert.equal(span.events.length, events);
    assert.equal(span.attributes['a2a.task.state'], 'TASK_STATE_COMPLETED');
  });
});
