/**
 * Event latency across replicas on PostgreSQL: replica A runs the agent, a subscriber is
 * attached through replica B (its own pool and LISTEN connection on the same schema). For
 * each artifact event, the time from the agent's call on A to its arrival in B's stream
 * (persisted, NOTIFY, delivered). BENCH_LATENCY_TASKS (20) tasks of BENCH_LATENCY_EVENTS (50)
 * events, one after another. Both replicas run in this process, so one clock times both.
 *
 * `A2A_BENCH_POSTGRES_URL=postgres://... node --import tsx bench/replica-latency.ts`
 */
import { performance } from 'node:perf_hooks';
import { createCallContext } from '../src/core/context.js';
import type { AgentExecutor } from '../src/core/executor.js';
import { DefaultRequestHandler } from '../src/core/handler/default-handler.js';
import { openStores, type OpenedStores } from '../src/core/stores/open.js';
import type { PostgresTaskStore } from '../src/core/stores/postgres/task-store.js';
import type { AgentCard } from '../src/model/schema.js';
import { benchPostgresUrl, withFreshSchema } from './postgres-url.js';

const TASKS = Number(process.env.BENCH_LATENCY_TASKS ?? 20);
const EVENTS = Number(process.env.BENCH_LATENCY_EVENTS ?? 50);

/** Milliseconds from A's agent to B's subscriber. */
export interface LatencyFigures {
  events: number;
  p50: number;
  p99: number;
  max: number;
}

const CARD: AgentCard = {
  name: 'bench',
  description: 'bench',
  version: '1',
  supportedInterfaces: [],
  capabilities: { streaming: true },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
};

/** When the agent emitted each event, by task id; and the gates that start each task. */
const sentAt = new Map<string, number[]>();
const gates = new Map<string, () => void>();

const agent: AgentExecutor = {
  async execute(ctx, task) {
    await task.working('started');
    await new Promise<void>((resolve) => gates.set(ctx.taskId, resolve));
    const times: number[] = [];
    sentAt.set(ctx.taskId, times);
    for (let i = 0; i < EVENTS; i++) {
      times.push(performance.now());
      await task.artifact({ artifactId: 'out', text: `${i};` }, { append: i > 0 });
    }
    await task.complete();
  },
};

function replica(stores: OpenedStores): DefaultRequestHandler {
  return new DefaultRequestHandler({
    executor: agent,
    card: () => CARD,
    taskStore: stores.taskStore,
    pushConfigStore: stores.pushConfigStore,
    ...(stores.eventBus ? { eventBus: stores.eventBus } : {}),
  });
}

/** Runs the tasks and returns the latency quantiles. */
export async function measureReplicaLatency(): Promise<LatencyFigures> {
  const base = benchPostgresUrl();
  const { url, schema } = withFreshSchema(base, 'bench_replicas');
  const storesA = openStores(url);
  await storesA.ready;
  const storesB = openStores(url);
  await storesB.ready;
  const a = replica(storesA);
  const b = replica(storesB);
  const ctx = createCallContext({ principal: { id: 'bench' }, tenant: '' });
  const samples: number[] = [];
  try {
    for (let n = 0; n < TASKS; n++) {
      const sent = await a.sendMessage(
        {
          message: { messageId: `m-${n}`, role: 'ROLE_USER', parts: [{ text: 'go' }] },
          configuration: { returnImmediately: true },
        },
        ctx,
      );
      const id = sent.task!.id;
      const stream = await b.subscribeToTask({ id }, ctx);
      // The agent may not have reached its gate yet.
      for (let i = 0; i < 1_000 && !gates.has(id); i++) await new Promise((r) => setTimeout(r, 1));
      gates.get(id)!();
      for await (const event of stream) {
        const text = event.artifactUpdate?.artifact.parts[0]?.text;
        if (text === undefined) continue;
        const emitted = sentAt.get(id)![Number(text.slice(0, -1))]!;
        samples.push(performance.now() - emitted);
      }
      gates.delete(id);
      sentAt.delete(id);
    }
  } finally {
    await Promise.all([a.close(), b.close()]);
    await Promise.all([storesA.close(), storesB.close()]);
    const dropper = openStores(base);
    await dropper.ready;
    await (dropper.taskStore as PostgresTaskStore).database.query(`DROP SCHEMA ${schema} CASCADE`);
    await dropper.close();
  }
  const sorted = samples.sort((x, y) => x - y);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { events: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1]! };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const f = await measureReplicaLatency();
  process.stdout.write(
    `replica A agent -> replica B subscriber, ${f.events} events: p50 ${f.p50.toFixed(2)} ms, p99 ${f.p99.toFixed(2)} ms, max ${f.max.toFixed(2)} ms\n`,
  );
}
