/**
 * Issue 27, finding 1: what an anonymous 1 MiB `[[[...]]]` body costs a server that requires a
 * credential, and what an authenticated caller sees while two anonymous clients send them.
 * The server runs on this thread (its event-loop delay is measured here); the clients run in a
 * child process, so their own work does not count as the server's.
 *
 * Usage: node --import tsx bench/deep-body.ts [seconds per phase, default 5]
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { request } from 'node:http';

interface ClientPlan {
  port: number;
  seconds: number;
  attackers: number;
}

interface ClientReport {
  listMs: number[];
  attacks: number;
  attackMs: number[];
  statuses: Record<string, number>;
}

const DEEP = '['.repeat(512 * 1024) + ']'.repeat(512 * 1024);

function post(
  port: number,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/a2a/jsonrpc',
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          ...headers,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function clients(plan: ClientPlan): Promise<ClientReport> {
  const report: ClientReport = { listMs: [], attacks: 0, attackMs: [], statuses: {} };
  const until = performance.now() + plan.seconds * 1000;
  const attacker = async (): Promise<void> => {
    while (performance.now() < until) {
      const r = await post(plan.port, DEEP, {}).catch(() => ({ status: -1, ms: 0 }));
      report.attacks++;
      report.attackMs.push(r.ms);
      report.statuses[String(r.status)] = (report.statuses[String(r.status)] ?? 0) + 1;
    }
  };
  const list = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} });
  const lister = async (): Promise<void> => {
    while (performance.now() < until) {
      const r = await post(plan.port, list, { 'x-api-key': 'bench-key', 'a2a-version': '1.0' });
      report.listMs.push(r.ms);
    }
  };
  await Promise.all([lister(), ...Array.from({ length: plan.attackers }, attacker)]);
  return report;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : (sorted[Math.floor(sorted.length / 2)] as number);
}

async function main(): Promise<void> {
  const seconds = Number(process.argv[2] ?? 5);
  const { createA2AServer } = await import('../src/server/http.js');
  const { createApiKeyAuthenticator } = await import('../src/server/auth/index.js');
  const server = createA2AServer({
    agent: async (_ctx, task) => task.complete('ok'),
    card: {
      name: 'bench',
      description: 'Deep-body bench',
      version: '1.0.0',
      skills: [{ id: 's', name: 'S', description: 'S', tags: ['t'] }],
    },
    store: 'memory',
    security: { authenticators: [createApiKeyAuthenticator({ keys: { 'bench-key': 'bench' } })] },
  });
  const { port } = await server.listen(0, '127.0.0.1');
  const run = async (attackers: number) => {
    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    const cpu = process.cpuUsage();
    const child = fork(fileURLToPath(import.meta.url), [JSON.stringify({ port, seconds, attackers })], {
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, DEEP_BODY_ROLE: 'clients' },
    });
    const report = await new Promise<ClientReport>((resolve, reject) => {
      child.once('message', (m) => resolve(m as ClientReport));
      child.once('error', reject);
    });
    child.kill();
    delay.disable();
    const used = process.cpuUsage(cpu);
    return {
      attackers,
      listMedianMs: Number(median(report.listMs).toFixed(2)),
      lists: report.listMs.length,
      attacks: report.attacks,
      attackStatuses: report.statuses,
      attackMedianMs: Number(median(report.attackMs).toFixed(2)),
      serverCpuMsPerAttack:
        report.attacks === 0 ? 0 : Number(((used.user + used.system) / 1000 / report.attacks).toFixed(2)),
      loopDelayP99Ms: Number((delay.percentile(99) / 1e6).toFixed(2)),
      loopDelayMaxMs: Number((delay.max / 1e6).toFixed(2)),
    };
  };
  const results = [await run(0), await run(2)];
  await server.close();
  console.log(JSON.stringify(results, null, 2));
}

if (process.env.DEEP_BODY_ROLE === 'clients') {
  process.send!(await clients(JSON.parse(process.argv[2] as string) as ClientPlan));
  process.disconnect();
} else await main();
