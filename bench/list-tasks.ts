/**
 * ListTasks of one page at many stored tasks, per store: fills a store with BENCH_LIST_TASKS
 * (100000) tasks of one caller, then times the handler's ListTasks (first page, a page deep
 * in the walk via its token, and with a status filter), median and p99 of BENCH_LIST_REPEAT
 * (200) calls each. Stores: BENCH_LIST_STORES (`memory,sqlite,postgres`); PostgreSQL needs
 * A2A_BENCH_POSTGRES_URL (or scripts/bench.sh's throwaway server).
 *
 * `node --import tsx bench/list-tasks.ts`
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { TaskState } from '../src/model/enums.js';
import { createCallContext } from '../src/core/context.js';
import { DefaultRequestHandler } from '../src/core/handler/default-handler.js';
import { openStores, type OpenedStores } from '../src/core/stores/open.js';
import type { PostgresTaskStore } from '../src/core/stores/postgres/task-store.js';
import type { StoredTask } from '../src/core/stores/task-store.js';
import { benchPostgresUrl, withFreshSchema } from './postgres-url.js';

const TASKS = Number(process.env.BENCH_LIST_TASKS ?? 100_000);
const REPEAT = Number(process.env.BENCH_LIST_REPEAT ?? 200);
const STORES = (process.env.BENCH_LIST_STORES ?? 'memory,sqlite,postgres').split(',');

/** Result of one store: milliseconds per ListTasks call. */
export interface ListFigures {
  store: string;
  tasks: number;
  firstPage: { p50: number; p99: number };
  deepPage: { p50: number; p99: number };
  statusFilter: { p50: number; p99: number };
}

function quantiles(samples: number[]): { p50: number; p99: number } {
  const sorted = samples.slice().sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { p50: at(0.5), p99: at(0.99) };
}

const STATES = [
  TaskState.COMPLETED,
  TaskState.COMPLETED,
  TaskState.COMPLETED,
  TaskState.FAILED,
  TaskState.WORKING,
];

function task(i: number): StoredTask {
  const ms = 1_700_000_000_000 + i * 10;
  const id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
  return {
    tenant: '',
    owner: 'bench',
    version: 1,
    statusTimeMs: ms,
    task: {
      id,
      contextId: `ctx-${i % 1000}`,
      status: { state: STATES[i % STATES.length]!, timestamp: new Date(ms).toISOString() },
      history: [
        { messageId: `m-${i}`, role: 'ROLE_USER', parts: [{ text: `task number ${i}` }], taskId: id },
      ],
      artifacts: [{ artifactId: 'out', name: 'out', parts: [{ text: `result ${i}` }] }],
    },
  };
}

async function fill(stores: OpenedStores): Promise<void> {
  const chunk = 2_000;
  for (let i = 0; i < TASKS; i += chunk) {
    const saves: Promise<void>[] = [];
    for (let j = i; j < Math.min(TASKS, i + chunk); j++) saves.push(stores.taskStore.save(task(j), 0));
    await Promise.all(saves);
  }
}

async function time(fn: () => Promise<unknown>): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < 20; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < REPEAT; i++) {
    const start = performance.now();
    await fn();
    samples.push(performance.now() - start);
  }
  return quantiles(samples);
}

/** Fills and measures one store (`memory`, `sqlite` or `postgres`). */
export async function measureList(kind: string): Promise<ListFigures> {
  let spec: string;
  let cleanup = (): Promise<void> => Promise.resolve();
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-bench-list-'));
    spec = `sqlite:${join(dir, 'bench.sqlite')}`;
    cleanup = () => Promise.resolve(rmSync(dir, { recursive: true, force: true }));
  } else if (kind === 'postgres') {
    const base = benchPostgresUrl();
    const fresh = withFreshSchema(base);
    const schema = fresh.schema;
    spec = fresh.url;
    cleanup = async () => {
      const dropper = openStores(base);
      await dropper.ready;
      await (dropper.taskStore as PostgresTaskStore).database.query(`DROP SCHEMA ${schema} CASCADE`);
      await dropper.close();
    };
  } else {
    spec = 'memory';
  }
  const stores = openStores(spec);
  await stores.ready;
  try {
    await fill(stores);
    if (kind === 'postgres') {
      await (stores.taskStore as PostgresTaskStore).database.query('VACUUM ANALYZE a2a_tasks');
    }
    const handler = new DefaultRequestHandler({
      executor: { execute: async () => {} },
      card: () => ({
        name: 'bench',
        description: 'bench',
        version: '1',
        supportedInterfaces: [],
        capabilities: {},
        defaultInputModes: ['text/plain'],
        defaultOutputModes: ['text/plain'],
        skills: [],
      }),
      taskStore: stores.taskStore,
      pushConfigStore: stores.pushConfigStore,
    });
    const ctx = createCallContext({ principal: { id: 'bench' }, tenant: '' });
    let token = '';
    for (let page = 0; page < 100; page++) {
      token = (await handler.listTasks({ pageSize: 50, ...(token ? { pageToken: token } : {}) }, ctx))
        .nextPageToken;
    }
    const figures: ListFigures = {
      store: kind,
      tasks: TASKS,
      firstPage: await time(() => handler.listTasks({ pageSize: 50 }, ctx)),
      deepPage: await time(() => handler.listTasks({ pageSize: 50, pageToken: token }, ctx)),
      statusFilter: await time(() => handler.listTasks({ pageSize: 50, status: TaskState.WORKING }, ctx)),
    };
    await handler.close();
    return figures;
  } finally {
    await stores.close();
    await cleanup();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const kind of STORES) {
    const f = await measureList(kind);
    const fmt = (q: { p50: number; p99: number }): string =>
      `p50 ${q.p50.toFixed(2)} ms, p99 ${q.p99.toFixed(2)} ms`;
    process.stdout.write(
      `${f.store} at ${f.tasks} tasks: first page ${fmt(f.firstPage)}; page 101 ${fmt(f.deepPage)}; status filter ${fmt(f.statusFilter)}\n`,
    );
  }
}
