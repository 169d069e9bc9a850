/**
 * The fault suite's harness: a fresh store per case, the server process (fault-server.ts,
 * bundled once) with a fault planned at one write point (`A2A_FAULT_POINT`), and the trace
 * of the points one run of the scenario passes. The cases themselves are in cases.ts.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import Database from 'better-sqlite3';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WritePoint } from '../../src/core/stores/fault-points.js';
import { WRITE_POINTS } from '../../src/core/stores/fault-points.js';
import type { StoreSpec } from '../../src/core/stores/open.js';
import { dropSchema, freshSchema, postgresUrl } from '../support/postgres.js';
import { checkTrace, COUNTS_EVERY_MS, type StoreKind } from './points.js';
import { runScenario } from './scenario.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Short, so a case waits little for a dead worker's lease to run out. */
export const LEASE_MS = 300;
/**
 * The bound on a wait for input in the cases that check it: short, so a case waits little for
 * a task left waiting to be ended, and long enough that the scenario's answer, sent right after
 * its question, comes well within it on a busy machine.
 */
export const WAIT_BOUND_MS = 2000;

/** A store made for one case, and how to remove it. */
export interface CaseStore {
  readonly spec: StoreSpec;
  dispose(): Promise<void>;
}

export type { StoreKind } from './points.js';

/** Where {@link freshStore} makes a store, when not where it would. */
export interface StorePlace {
  /** The PostgreSQL server of the schema (default: the shared test server). */
  readonly postgres?: string;
  /**
   * The SQLite file's page size (default SQLite's 4096): 512, the smallest, leaves a full
   * disk little room inside pages already allocated, so most writes after it need a new one.
   */
  readonly sqlitePageSize?: number;
}

/**
 * A fresh store of `kind`: a SQLite file in a temporary folder, or a PostgreSQL schema (on the
 * shared test server unless `place` names another).
 */
export function freshStore(kind: StoreKind, place: StorePlace = {}): CaseStore {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-faults-'));
    if (place.sqlitePageSize !== undefined) {
      // An empty file of that page size (VACUUM writes the header); the server migrates it.
      const db = new Database(join(dir, 'a2a.sqlite'));
      db.pragma(`page_size = ${place.sqlitePageSize}`);
      db.exec('VACUUM');
      db.close();
    }
    return {
      spec: `sqlite:${join(dir, 'a2a.sqlite')}`,
      dispose: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
    };
  }
  const server = place.postgres ?? postgresUrl();
  const schema = freshSchema('faults');
  const url = new URL(server);
  url.searchParams.set('schema', schema);
  // Names the case's connections, so a test can find (and kill) their backends.
  url.searchParams.set('application_name', schema);
  return { spec: url.toString() as StoreSpec, dispose: () => dropSchema(schema, server) };
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

/**
 * Starts fault-server.ts on `store` with `env` added (and the bound of a wait for input, when
 * given); resolves once it listens (or was killed by its fault).
 */
export async function startChild(
  store: StoreSpec,
  env: Record<string, string>,
  interruptedTimeoutMs?: number,
): Promise<Child> {
  const args = [await serverBundle(), store, String(LEASE_MS)];
  if (interruptedTimeoutMs !== undefined) args.push(String(interruptedTimeoutMs));
  const child = spawn(process.execPath, args, {
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
    const started = Date.now();
    try {
      await runScenario(child.url!, 'trace', webhook);
      // Let the push worker deliver and the heartbeat renew before the count is taken, and on
      // PostgreSQL the task counts be folded once.
      const until = kind === 'postgres' ? started + COUNTS_EVERY_MS + LEASE_MS : Date.now() + LEASE_MS;
      await new Promise((resolve) => setTimeout(resolve, Math.max(LEASE_MS, until - Date.now())));
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
    checkTrace(kind, counts);
    return counts;
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await store.dispose();
  }
}

/** True when a process's stderr shows an unhandled error (it must never have one). */
export function unhandled(stderr: string): boolean {
  return /Unhandled|unhandledRejection|uncaught/i.test(stderr);
}
