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
import autocannon from 'autocannon';
import { benchPostgresUrl, withFreshSchema } from './postgres-url.js';
import { startChild, stopChild } from './servers/control.js';

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
const HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0' };
const BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'SendMessage',
  params: { message: { messageId: '[<id>]', role: 'ROLE_USER', parts: [{ text: 'task:hello' }] } },
});

async function load(
  urls: string[],
  seconds: number,
  connections: number,
): Promise<{ value: number; failures: number }> {
  const results = await Promise.all(
    urls.map((url) =>
      autocannon({
        url,
        method: 'POST',
        headers: HEADERS,
        body: BODY,
        idReplacement: true,
        connections: Math.max(1, Math.floor(connections / urls.length)),
        duration: seconds,
        verifyBody: (b: string) => b.includes('TASK_STATE_COMPLETED'),
      }),
    ),
  );
  return {
    value: results.reduce((sum, r) => sum + r.requests.total / r.duration, 0),
    failures: results.reduce((sum, r) => sum + r.errors + r.timeouts + r.non2xx + r.mismatches, 0),
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
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
