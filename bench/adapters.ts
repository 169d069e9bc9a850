/**
 * `npm run bench:adapters`: server CPU per request of the bench agent behind each host
 * (bench/servers/host.ts), against a2a-kit's own node:http listener. One host at a time, the
 * server pinned to core 0 and the load (autocannon, this process) to core 1; a warm-up burst,
 * then the server's CPU over BENCH_ADAPTERS_REQUESTS SendMessage calls (JSON-RPC, `echo:hello`,
 * a message per call) from /proc, for BENCH_ADAPTERS_ROUNDS rounds (1: about 40 s) in
 * alternating order. BENCH_ADAPTERS_HOSTS picks hosts (`listen,express,fastify,hono,fetch`).
 * Linux only (taskset, /proc). Needs dist/ (`npm run build`).
 */
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { pin, procCpuMicros, startChild, stopChild } from './servers/control.js';

const HOSTS = (process.env.BENCH_ADAPTERS_HOSTS ?? 'listen,express,fastify,hono,fetch').split(',');
const REQUESTS = Number(process.env.BENCH_ADAPTERS_REQUESTS ?? 4_000);
const ROUNDS = Number(process.env.BENCH_ADAPTERS_ROUNDS ?? 1);
const SERVER = fileURLToPath(new URL('./servers/host.ts', import.meta.url));
const BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'SendMessage',
  params: { message: { messageId: '[<id>]', role: 'ROLE_USER', parts: [{ text: 'echo:hello' }] } },
});

pin(process.pid, 1);
const totals = new Map<string, { cpu: number; requests: number }>();
const children: ChildProcess[] = [];
try {
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? HOSTS : [...HOSTS].reverse();
    for (const host of order) {
      const started = await startChild(SERVER, {
        execArgv: [],
        env: { ...process.env, BENCH_HOST: host },
        cpu: 0,
        onFork: (child) => children.push(child),
      });
      const url = `http://127.0.0.1:${started.port}/a2a/jsonrpc`;
      const load = (amount: number) =>
        autocannon({
          url,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
          body: BODY,
          idReplacement: true,
          connections: 16,
          amount,
        });
      await load(1_000);
      const stat = `/proc/${started.child.pid}/stat`;
      const before = procCpuMicros(stat) ?? 0;
      const result = await load(REQUESTS);
      const cpu = (procCpuMicros(stat) ?? 0) - before;
      const total = totals.get(host) ?? { cpu: 0, requests: 0 };
      total.cpu += cpu;
      total.requests += result['2xx'];
      totals.set(host, total);
      await stopChild(started.child);
    }
  }
} finally {
  for (const child of children) await stopChild(child);
}
const base = totals.get('listen');
const baseline = base ? base.cpu / base.requests : undefined;
console.log('host      CPU µs/request  vs listen');
for (const host of HOSTS) {
  const t = totals.get(host);
  if (!t) continue;
  const perRequest = t.cpu / t.requests;
  const ratio = baseline ? `${(perRequest / baseline).toFixed(2)}x` : '';
  console.log(`${host.padEnd(9)} ${perRequest.toFixed(1).padStart(14)}  ${ratio}`);
}
