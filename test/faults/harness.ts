/**
 * The fault suite's harness: runs the scenario against a real server process with a fault
 * planned at one write point (`A2A_FAULT_POINT`), restarts on the same store, and checks the
 * invariants of issue 26. Cases run two at a time (the machine has two cores).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FaultAction, WritePoint } from '../../src/core/stores/fault-points.js';
import { WRITE_POINTS } from '../../src/core/stores/fault-points.js';
import type { StoreSpec } from '../../src/core/stores/open.js';
import { TaskState } from '../../src/model/enums.js';
import { createA2AServer } from '../../src/server/http.js';
import { callAs } from '../support/handler.js';
import type { Webhook } from '../server/push/support.js';
import { dropSchema, freshSchema, postgresUrl } from '../support/postgres.js';
import {
  checkInvariants,
  emptyJournal,
  faultServerOptions,
  mergeJournals,
  runScenario,
  type Journal,
} from './scenario.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Short, so a case waits little for a dead worker's lease to run out. */
export const LEASE_MS = 300;

/** A store made for one case, and how to remove it. */
export interface CaseStore {
  readonly spec: StoreSpec;
  dispose(): Promise<void>;
}

export type StoreKind = 'sqlite' | 'postgres';

/** A fresh store of `kind`: a SQLite file in a temporary folder, or a PostgreSQL schema. */
export function freshStore(kind: StoreKind): CaseStore {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-faults-'));
    return {
      spec: `sqlite:${join(dir, 'a2a.sqlite')}`,
      dispose: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
    };
  }
  const schema = freshSchema('faults');
  const url = new URL(postgresUrl());
  url.searchParams.set('schema', schema);
  // Names the case's connections, so a test can find (and kill) their backends.
  url.searchParams.set('application_name', schema);
  return { spec: url.toString() as StoreSpec, dispose: () => dropSchema(schema) };
}

/** A running fault-server.ts process. */
export interface Child {
  readonly process: ChildProcess;
  /** Undefined when its planned fault killed it before it listened. */
  readonly url: string | undefined;
  stderr(): string;
  /** Resolves with the exit code and signal. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

let bundled: Promise<string> | undefined;

/**
 * fault-server.ts bundled once into one ES module (packages stay imports, by absolute URL):
 * a case's process then starts in a fraction of the time tsx takes to compile the sources,
 * which was most of a case. Removed when this process exits.
 */
function serverBundle(): Promise<string> {
  bundled ??= (async () => {
    const { build } = await import('esbuild');
    const dir = mkdtempSync(join(tmpdir(), 'a2a-fault-server-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    // The push sender's worker thread is loaded from beside its importer: bundled beside it.
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
    await build({
      entryPoints: [
        join(ROOT, 'test/faults/fault-server.ts'),
        join(ROOT, 'src/server/push/webhook-sender-thread.ts'),
      ],
      entryNames: '[name]',
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      outdir: dir,
      logLevel: 'error',
      plugins: [
        {
          name: 'packages-by-url',
          setup(plugin) {
            plugin.onResolve({ filter: /^[^./]/ }, (args) =>
              args.path.startsWith('node:')
                ? { external: true }
                : { path: import.meta.resolve(args.path), external: true },
            );
          },
        },
      ],
    });
    return join(dir, 'fault-server.js');
  })();
  return bundled;
}

/** Starts fault-server.ts on `store` with `env` added; resolves once it listens (or was killed by its fault). */
export async function startChild(store: StoreSpec, env: Record<string, string>): Promise<Child> {
  const child = spawn(process.execPath, [await serverBundle(), store, String(LEASE_MS)], {
    cwd: ROOT,
    // The stores load their drivers with require(): found from the bundle's folder through NODE_PATH.
    env: { ...process.env, NODE_PATH: join(ROOT, 'node_modules'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = await new Promise<string | undefined>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /^listening (\S+)/m.exec(out);
      if (match) resolve(match[1]!);
    });
    void exited.then(({ code, signal }) => {
      // Killed by its planned fault while starting (retention, the push worker's first claim).
      if (signal === 'SIGKILL' && env.A2A_FAULT_POINT) resolve(undefined);
      else reject(new Error(`fault server exited (${code ?? signal}) before listening: ${err}`));
    });
  });
  return { process: child, url, stderr: () => err, exited };
}

/** Stops a child that is still running: SIGTERM (graceful), then SIGKILL if it does not exit. */
export async function stopChild(
  child: Child,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill('SIGTERM');
  const timer = setTimeout(() => child.process.kill('SIGKILL'), 10_000);
  try {
    return await child.exited;
  } finally {
    clearTimeout(timer);
  }
}

/** The write points one run of the scenario passes, with how often (from `A2A_FAULT_TRACE`). */
export async function tracePoints(kind: StoreKind, webhook: string): Promise<Map<WritePoint, number>> {
  const store = freshStore(kind);
  const dir = mkdtempSync(join(tmpdir(), 'a2a-trace-'));
  const trace = join(dir, 'trace');
  try {
    const child = await startChild(store.spec, { A2A_FAULT_TRACE: trace });
    try {
      await runScenario(child.url!, 'trace', webhook);
      // Let the push worker deliver and the heartbeat renew before the count is taken.
      await new Promise((resolve) => setTimeout(resolve, LEASE_MS));
    } finally {
      const end = await stopChild(child);
      assert.equal(end.code, 0, `the traced server exited with ${end.code ?? end.signal}: ${child.stderr()}`);
    }
    const counts = new Map<WritePoint, number>();
    for (const line of readFileSync(trace, 'utf8').split('\n')) {
      if (!line) continue;
      assert.ok((WRITE_POINTS as readonly string[]).includes(line), `unknown write point ${line}`);
      counts.set(line as WritePoint, (counts.get(line as WritePoint) ?? 0) + 1);
    }
    return counts;
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await store.dispose();
  }
}

/** One fault: the n-th hit of a point, and what happens there. */
export interface FaultCase {
  readonly point: WritePoint;
  readonly hit: number;
  readonly action: FaultAction;
}

/**
 * The restart after a fault, itself faulted at `fault` (the points only a restart passes:
 * retaking an abandoned claim, taking over a dead worker's lease): it sends every step again
 * and recovers, then stops or is killed. Returns what the client has been told in all.
 */
async function faultedRestart(
  store: StoreSpec,
  prefix: string,
  webhook: Webhook,
  fault: FaultCase,
  told: Journal,
): Promise<Journal> {
  const child = await startChild(store, { A2A_FAULT_POINT: `${fault.point}:${fault.hit}:${fault.action}` });
  let second: Journal | undefined;
  try {
    if (child.url) second = await runScenario(child.url, prefix, webhook.url, told);
    // Recovery runs at each heartbeat: give the fault its chance to be hit (a kill is
    // expected: waited for up to ten lease times).
    const wait = fault.action === 'kill' ? 10 * LEASE_MS : LEASE_MS;
    await Promise.race([child.exited, new Promise((resolve) => setTimeout(resolve, wait))]);
  } finally {
    const end = await stopChild(child);
    assert.ok(
      !unhandled(child.stderr()),
      `the restarted server reported an unhandled error: ${child.stderr()}`,
    );
    if (fault.action === 'kill') {
      assert.equal(end.signal, 'SIGKILL', `the restart never reached ${fault.point}: ${child.stderr()}`);
    } else assert.equal(end.code, 0, child.stderr());
  }
  await new Promise((resolve) => setTimeout(resolve, LEASE_MS + 50));
  return second ? mergeJournals(told, second) : told;
}

/**
 * Something done to the store while the scenario runs (a killed PostgreSQL backend); returns
 * the function that stops it.
 */
export type Disturbance = (store: StoreSpec) => () => Promise<void>;

/**
 * Points hit on a timer rather than by a step of the scenario (a heartbeat, the delivery
 * worker's polls): their first two hits stand for the rest.
 */
const TIMED_POINTS: ReadonlySet<WritePoint> = new Set([
  'lease.renew',
  'push.outbox.claim',
  'push.outbox.settle',
]);

/**
 * The cases of a trace: every point it passed, at each of its first `maxHits` hits (five: one
 * per step of the scenario; two for points hit on a timer).
 */
export function casesOf(counts: Map<WritePoint, number>, action: FaultAction, maxHits = 5): FaultCase[] {
  const cases: FaultCase[] = [];
  for (const point of WRITE_POINTS) {
    const n = Math.min(counts.get(point) ?? 0, TIMED_POINTS.has(point) ? 2 : maxHits);
    for (let hit = 1; hit <= n; hit++) cases.push({ point, hit, action });
  }
  return cases;
}

function unhandled(stderr: string): boolean {
  return /Unhandled|unhandledRejection|uncaught/i.test(stderr);
}

/**
 * Runs one case: the scenario against a server faulted at `fault`, then the invariants on a
 * restarted server (in this process) on the same store.
 */
export async function runCase(
  kind: StoreKind,
  fault: FaultCase | undefined,
  webhook: Webhook,
  disturb?: Disturbance,
  restartFault?: FaultCase,
): Promise<void> {
  const store = freshStore(kind);
  const prefix = fault ? `${fault.point}-${fault.hit}-${fault.action}` : 'disturbed';
  try {
    const child = await startChild(
      store.spec,
      fault ? { A2A_FAULT_POINT: `${fault.point}:${fault.hit}:${fault.action}` } : {},
    );
    let told: Journal;
    try {
      const stop = disturb ? disturb(store.spec) : undefined;
      try {
        told = child.url ? await runScenario(child.url, prefix, webhook.url) : emptyJournal();
      } finally {
        await stop?.();
      }
      if (fault?.action === 'kill') {
        // A point hit after the scenario (a heartbeat, a delivery) still kills it soon.
        await Promise.race([child.exited, new Promise((resolve) => setTimeout(resolve, LEASE_MS))]);
      }
    } finally {
      const end = await stopChild(child);
      const stderr = child.stderr();
      assert.ok(!unhandled(stderr), `the faulted server reported an unhandled error: ${stderr}`);
      if (end.signal !== 'SIGKILL') {
        assert.equal(end.code, 0, `the faulted server exited with ${end.code ?? end.signal}: ${stderr}`);
      }
    }
    // Past the lease time of everything the dead process held.
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS + 50));
    if (restartFault) told = await faultedRestart(store.spec, prefix, webhook, restartFault, told);
    const server = createA2AServer(faultServerOptions(store.spec, LEASE_MS));
    try {
      const { url } = await server.listen(0, '127.0.0.1');
      const ctx = callAs('anonymous');
      const listActive = async () => {
        const page = await server.handler.listTasks({ pageSize: 100 }, ctx);
        return page.tasks.filter(
          (t) => t.status.state === TaskState.SUBMITTED || t.status.state === TaskState.WORKING,
        );
      };
      // Recovery runs at start and at each heartbeat: expired leases are ended within a few.
      for (let i = 0; i < 40 && (await listActive()).length > 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, LEASE_MS / 4));
      }
      await checkInvariants(url, prefix, webhook.url, told, listActive, () =>
        webhook.received.map((r) => r.json),
      );
    } finally {
      await server.close();
    }
  } finally {
    await store.dispose();
  }
}
