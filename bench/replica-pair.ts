/**
 * The `replicas-throughput` scenario of `npm run bench`: JSON-RPC SendMessage `task:hello`
 * against one `a2a serve --store <postgres>` and then against two of them on the same schema
 * (two replicas sharing tasks and live events, as users run them), each replica pinned to a
 * core of its own, the load split evenly between them. Prints the total req/s of each setup,
 * in alternating rounds. On this 2-core machine PostgreSQL and the load generator share the
 * replicas' cores, so the figure says what the second replica adds here, not on a real cluster.
 */
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { benchPostgresUrl, withFreshSchema } from './postgres-url.js';
import { startChild, stopChild } from './servers/control.js';
import { median, taskLoad } from './task-load.js';

/** Settings of one run, from bench/run.ts. */
export interface ReplicaPairSettings {
  rounds: number;
  roundSeconds: number;
  warmupSeconds: number;
  connections: number;
  onFork: (child: ChildProcess) => void;
}

/** Median total req/s with one replica and with two, and the failures seen. */
export interface ReplicaPairFigure {
  one: number;
  two: number;
  failures: number;
}

const SERVE_FILE = fileURLToPath(new URL('./servers/serve.ts', import.meta.url));
/** All `urls` loaded at once, the connections split between them: total req/s and failures. */
async function load(
  urls: string[],
  seconds: number,
  connections: number,
): Promise<{ value: number; failures: number }> {
  const share = Math.max(1, Math.floor(connections / urls.length));
  const results = await Promise.all(urls.map((url) => taskLoad(url, seconds, share)));
  return {
    value: results.reduce((sum, r) => sum + r.value, 0),
    failures: results.reduce((sum, r) => sum + r.failures, 0),
  };
}

/** Runs the scenario; throws when there is no PostgreSQL. */
export async function replicaPairScenario(settings: ReplicaPairSettings): Promise<ReplicaPairFigure> {
  const { url } = withFreshSchema(benchPostgresUrl(), 'pair');
  const children: ChildProcess[] = [];
  try {
    const urls: string[] = [];
    for (const cpu of [0, 1]) {
      const started = await startChild(SERVE_FILE, {
        execArgv: [],
        env: {
          ...process.env,
          BENCH_SERVE_ARGS: JSON.stringify(['--store', url]),
          BENCH_SERVE_CPU: String(cpu),
        },
        cpu,
        onFork: settings.onFork,
      });
      children.push(started.child);
      urls.push(`http://127.0.0.1:${started.port}/a2a/jsonrpc`);
    }
    await load(urls, settings.warmupSeconds, settings.connections);
    const one: number[] = [];
    const two: number[] = [];
    let failures = 0;
    for (let round = 0; round < settings.rounds; round++) {
      for (const setup of round % 2 === 0 ? [1, 2] : [2, 1]) {
        const result = await load(urls.slice(0, setup), settings.roundSeconds, settings.connections);
        (setup === 1 ? one : two).push(result.value);
        failures += result.failures;
        process.stdout.write(`  round ${round + 1} ${setup} replica(s): ${result.value.toFixed(0)} req/s\n`);
      }
    }
    return { one: median(one), two: median(two), failures };
  } finally {
    await Promise.all(children.map((child) => stopChild(child)));
  }
}
