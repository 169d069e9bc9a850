/**
 * Metrics through @opentelemetry/api, read back with the SDK's metric reader: request count
 * and duration by operation and outcome, open streams, running executions, tasks by state.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import type { DataPoint, MetricData } from '@opentelemetry/sdk-metrics';
import { metricReader, shutdownTelemetry } from './otel-setup.js';
import { A2AClient } from '../../../src/client/index.js';
import { createA2AServer } from '../../../src/server/index.js';
import { pushInstruments } from '../../../src/server/observability/index.js';
import { TEST_CARD } from '../../support/handler.js';

after(() => shutdownTelemetry());

async function collect(): Promise<Map<string, MetricData>> {
  const { resourceMetrics } = await metricReader.collect();
  const byName = new Map<string, MetricData>();
  for (const scope of resourceMetrics.scopeMetrics)
    for (const m of scope.metrics) byName.set(m.descriptor.name, m);
  return byName;
}

function points(all: Map<string, MetricData>, name: string): DataPoint<unknown>[] {
  return (all.get(name)?.dataPoints ?? []) as DataPoint<unknown>[];
}

function sum(all: Map<string, MetricData>, name: string, match: Record<string, string>): number {
  return points(all, name)
    .filter((p) => Object.entries(match).every(([k, v]) => p.attributes[k] === v))
    .reduce((total, p) => total + (typeof p.value === 'number' ? p.value : 0), 0);
}

test('requests, durations, streams, executions and tasks by state', async (t) => {
  let release: (() => void) | undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  const server = createA2AServer({
    agent: async (ctx, task) => {
      if (ctx.text === 'fail') throw new Error('broken');
      await task.working();
      if (ctx.text === 'hold') await held;
      await task.complete('ok');
    },
    card: TEST_CARD,
    onError: () => undefined,
  });
  t.after(() => server.close());
  const { url } = await server.listen(0, '127.0.0.1');
  const client = await A2AClient.connect(url);
  t.after(() => client.close());

  await client.send({ text: 'hello' });
  await client.send({ text: 'fail' });
  await assert.rejects(client.getTask('no-such-task'));
  const holding = await client.send({ text: 'hold', returnImmediately: true });
  assert.equal(holding.kind, 'task');
  const stream = client.stream({ text: 'hold' });
  await stream.next();

  let all = await collect();
  assert.equal(sum(all, 'a2a.server.requests', { 'a2a.operation': 'SendMessage', 'a2a.outcome': 'ok' }), 3);
  assert.equal(
    sum(all, 'a2a.server.requests', { 'a2a.operation': 'GetTask', 'a2a.outcome': 'TaskNotFound' }),
    1,
  );
  assert.equal(sum(all, 'a2a.server.active_streams', {}), 1);
  assert.equal(sum(all, 'a2a.agent.executions.running', {}), 2);
  assert.equal(sum(all, 'a2a.tasks.active', { 'a2a.task.state': 'TASK_STATE_WORKING' }), 2);
  assert.equal(sum(all, 'a2a.agent.executions', { 'a2a.outcome': 'error' }), 1);
  const durations = points(all, 'a2a.server.request.duration').filter(
    (p) => p.attributes['a2a.operation'] === 'SendMessage',
  );
  assert.ok(durations.length > 0 && (durations[0]!.value as { count: number }).count >= 3);

  release!();
  for await (const _event of stream) {
    // drain to the end
  }
  await client.waitForTask(holding.kind === 'task' ? holding.task.id : '');
  all = await collect();
  assert.equal(sum(all, 'a2a.server.active_streams', {}), 0);
  assert.equal(sum(all, 'a2a.agent.executions.running', {}), 0);
  assert.equal(sum(all, 'a2a.tasks.active', {}), 0);
  assert.equal(sum(all, 'a2a.task.transitions', { 'a2a.task.state': 'TASK_STATE_COMPLETED' }), 3);
  assert.equal(sum(all, 'a2a.task.transitions', { 'a2a.task.state': 'TASK_STATE_FAILED' }), 1);
  assert.equal(
    sum(all, 'a2a.server.requests', { 'a2a.operation': 'SendStreamingMessage', 'a2a.outcome': 'ok' }),
    1,
  );
});

test('push instruments are exported for the push worker', async () => {
  const push = pushInstruments();
  push.deliveries.add(1, { 'a2a.outcome': 'delivered' });
  push.retries.add(2);
  push.deliveryDuration.record(0.01);
  const all = await collect();
  assert.equal(sum(all, 'a2a.push.deliveries', { 'a2a.outcome': 'delivered' }), 1);
  assert.equal(sum(all, 'a2a.push.retries', {}), 2);
});
