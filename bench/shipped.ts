/**
 * The `shipped` scenario of `npm run bench`: JSON-RPC SendMessage `task:hello` against
 * `a2a serve --agent bench` as users start it, beside the same command made quiet and the
 * official SDK's server, in alternating rounds of one run. Every figure is printed with its
 * ratio to the quiet memory server and to the SDK measured in the same run.
 *
 * Servers (each a fresh `a2a serve` in its own working directory, logs to a file there):
 * - quiet memory: `--store memory --no-push --log-level silent` (the reference);
 * - memory + info logs: `--store memory --no-push` (what logging costs);
 * - memory + push: `--store memory --log-level silent` (push on, no config on any task);
 * - shipped: no flags (SQLite in ./a2a-data, push on, info logs);
 * - SQLite quiet: `--no-push --log-level silent` (the store alone);
 * - PostgreSQL as shipped: `--store <url>` (push on, info logs), when a PostgreSQL is there;
 * - the SDK's bench server (memory only).
 */
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { benchPostgresUrl, withFreshSchema } from './postgres-url.js';
import { startChild, stopChild } from './servers/control.js';
import { median, taskLoad } from './task-load.js';

/** Settings of one run, from bench/run.ts. */
export interface ShippedSettings {
  rounds: number;
  roundSeconds: number;
  warmupSeconds: number;
  connections: number;
  serverCpu: number;
  /** Tracks every forked child so the parent can kill them all on exit. */
  onFork: (child: ChildProcess) => void;
}

/** One server's median throughput and its ratios. */
export interface ShippedFigure {
  label: string;
  value?: number;
  toQuiet?: number;
  toSdk?: number;
  failures: number;
  error?: string;
}

interface Variant {
  label: string;
  /** CLI arguments after `a2a serve --agent bench --port 0`; undefined for the SDK. */
  args?: string[];
}

const SERVE_FILE = fileURLToPath(new URL('./servers/serve.ts', import.meta.url));
const SDK_FILE = fileURLToPath(new URL('./servers/sdk.ts', import.meta.url));
function variants(): Variant[] {
  const list: Variant[] = [
    {
      label: 'a2a serve, memory, quiet (reference)',
      args: ['--store', 'memory', '--no-push', '--log-level', 'silent'],
    },
    { label: 'a2a serve, memory, info logs', args: ['--store', 'memory', '--no-push'] },
    { label: 'a2a serve, memory, push on', args: ['--store', 'memory', '--log-level', 'silent'] },
    { label: 'a2a serve as shipped (SQLite, push, info logs)', args: [] },
    { label: 'a2a serve, SQLite, quiet', args: ['--no-push', '--log-level', 'silent'] },
  ];
  try {
    list.push({
      label: 'a2a serve, PostgreSQL, push, info logs',
      args: ['--store', withFreshSchema(benchPostgresUrl()).url],
    });
  } catch {
    // No PostgreSQL: the row says so below.
    list.push({ label: 'a2a serve, PostgreSQL, push, info logs (no PostgreSQL)', args: ['--store', ''] });
  }
  list.push({ label: 'official SDK server (memory)' });
  return list;
}

/** Runs the scenario; one figure per server, in the order listed in the header comment. */
export async function shippedScenario(settings: ShippedSettings): Promise<ShippedFigure[]> {
  const started: {
    variant: Variant;
    child?: ChildProcess;
    url?: string;
    error?: string;
    values: number[];
    failures: number;
  }[] = [];
  try {
    for (const variant of variants()) {
      const entry: (typeof started)[number] = { variant, values: [], failures: 0 };
      started.push(entry);
      if (variant.args?.includes('')) {
        entry.error = 'no PostgreSQL (set A2A_BENCH_POSTGRES_URL or run through npm run bench)';
        continue;
      }
      try {
        const env: NodeJS.ProcessEnv = { ...process.env };
        if (variant.args) {
          env.BENCH_SERVE_ARGS = JSON.stringify(variant.args);
          env.BENCH_SERVE_CPU = String(settings.serverCpu);
        }
        const child = await startChild(variant.args ? SERVE_FILE : SDK_FILE, {
          execArgv: [],
          env,
          cpu: settings.serverCpu,
          onFork: settings.onFork,
        });
        entry.child = child.child;
        entry.url = `http://127.0.0.1:${child.port}/a2a/jsonrpc`;
      } catch (err) {
        entry.error = err instanceof Error ? err.message : String(err);
      }
    }
    const live = started.filter((s) => s.url);
    for (const server of live) await taskLoad(server.url!, settings.warmupSeconds, settings.connections);
    for (let round = 0; round < settings.rounds; round++) {
      for (const server of round % 2 === 0 ? live : [...live].reverse()) {
        const { value, failures } = await taskLoad(server.url!, settings.roundSeconds, settings.connections);
        server.values.push(value);
        server.failures += failures;
        process.stdout.write(`  round ${round + 1} ${server.variant.label}: ${value.toFixed(0)} req/s\n`);
      }
    }
  } finally {
    await Promise.all(started.flatMap((s) => (s.child ? [stopChild(s.child)] : [])));
  }
  const quiet = started[0]?.values.length ? median(started[0].values) : undefined;
  const sdkEntry = started[started.length - 1];
  const sdk = sdkEntry?.values.length ? median(sdkEntry.values) : undefined;
  return started.map((s) => {
    const value = s.values.length ? median(s.values) : undefined;
    return {
      label: s.variant.label,
      failures: s.failures,
      ...(value !== undefined ? { value } : {}),
      ...(value !== undefined && quiet ? { toQuiet: value / quiet } : {}),
      ...(value !== undefined && sdk ? { toSdk: value / sdk } : {}),
      ...(s.error ? { error: s.error } : {}),
    };
  });
}
