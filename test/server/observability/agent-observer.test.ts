/**
 * observeExecutor with a logger and no live metrics or traces (what `a2a serve` runs at `info`):
 * the agent is called straight, and its failure is still logged once and passed on unchanged,
 * whether it throws before its first await, rejects, or a plain JS agent returns nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import type { AgentExecutor, RequestContext, TaskEventSink } from '../../../src/core/executor.js';
import { observeExecutor } from '../../../src/server/observability/agent.js';
import { serverInstruments } from '../../../src/server/observability/metrics.js';

function observed(execute: AgentExecutor['execute']): { executor: AgentExecutor; lines: string[] } {
  const lines: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
  const executor = observeExecutor(
    { execute },
    { logger, instruments: serverInstruments(), metricsLive: false },
  );
  return { executor, lines };
}

const ctx = { taskId: 't1', contextId: 'c1', tenant: '' } as RequestContext;
const sink = {} as TaskEventSink;

for (const [how, execute] of [
  [
    'throws before its first await',
    () => {
      throw new Error('refused at once');
    },
  ],
  ['rejects', () => Promise.reject(new Error('refused at once'))],
] as const) {
  test(`an agent that ${how}: one "agent failed" line, the same error passed on`, async () => {
    const { executor, lines } = observed(execute as AgentExecutor['execute']);
    await assert.rejects(executor.execute(ctx, sink), /refused at once/);
    const failures = lines.map((l) => JSON.parse(l) as { msg: string; taskId: string });
    assert.deepEqual(
      failures.map((f) => [f.msg, f.taskId]),
      [['agent failed', 't1']],
    );
  });
}

test('a plain JS agent that returns nothing succeeds and logs nothing', async () => {
  const { executor, lines } = observed((() => undefined) as unknown as AgentExecutor['execute']);
  await executor.execute(ctx, sink);
  assert.deepEqual(lines, []);
});
