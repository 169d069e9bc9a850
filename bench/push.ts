/**
 * `npm run bench:push` (issue 12): what push delivery costs the server. The server runs in this
 * process; the load generator and the webhook receiver (somebody else's server, answering 204)
 * each run in a child process, so what is measured here is the server's own work.
 *
 * The task scenario (SendMessage `task:x`, JSON-RPC, BENCH_CONNECTIONS in flight: three
 * notifications per task, WORKING, the artifact, COMPLETED) runs twice: without push, and with
 * one push config per task (in the SendMessage). Each prints tasks/s, the server process's CPU
 * per task (every thread: the sender thread that POSTs the webhooks included) and its main
 * thread's (the event loop that serves requests; Linux only). The push run then waits for the
 * backlog and prints deliveries/s over the whole run and the latency from an event (its status
 * timestamp) to its arrival at the receiver, p50 / p99.
 *
 * Knobs: BENCH_ROUND_SECONDS (5; a warm-up round of the same length comes first),
 * BENCH_CONNECTIONS (16), BENCH_SENDER_THREAD (`0`: push.senderThread false), BENCH_PUSH_SIGNED
 * (`0`: unsigned notifications, push.signingKey false), BENCH_STORE
 * (`memory`; `sqlite`: a new file per scenario; or a postgres:// URL: a new schema per
 * scenario, dropped after), which picks the store and so the outbox (memory, or the store's
 * durable one). The machine's other work shows in the figures: compare the two runs with each
 * other, not across machines; CPU per task is steadier than tasks/s on a shared machine.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { benchCard, benchExecutor } from '../src/agents/index.js';
import { createA2AServer } from '../src/server/http.js';
import { procCpuMicros } from './servers/control.js';

const SECONDS = Number(process.env.BENCH_ROUND_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const STORE = process.env.BENCH_STORE ?? 'memory';
const SENDER_THREAD = process.env.BENCH_SENDER_THREAD !== '0';
const SIGNED = process.env.BENCH_PUSH_SIGNED !== '0';

/** A fresh store of the BENCH_STORE kind, and how to remove it afterwards. */
function freshStore(): {
  spec: 'memory' | `sqlite:${string}` | `postgres://${string}`;
  remove(): Promise<void>;
} {
  if (STORE === 'memory') return { spec: 'memory', remove: () => Promise.resolve() };
  if (STORE === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-bench-push-'));
    return {
      spec: `sqlite:${join(dir, 'bench.sqlite')}`,
      remove: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
    };
  }
  if (STORE.startsWith('postgres://')) {
    const schema = `bench_push_${randomBytes(4).toString('hex')}`;
    const url = new URL(STORE);
    url.searchParams.set('schema', schema);
    return {
      spec: url.toString() as `postgres://${string}`,
      remove: async () => {
        const client = new pg.Client({ connectionString: STORE });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await client.end();
      },
    };
  }
  throw new Error(`BENCH_STORE must be memory, sqlite or a postgres:// URL, got ${STORE}`);
}

/** The receiver: counts notifications and their latencies; asked for them over IPC. */
const RECEIVER = `
const http = require('node:http');
let count = 0, latencies = [], cpu0 = process.cpuUsage();
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const now = Date.now();
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    count++;
    const at = (body.task ?? body.statusUpdate)?.status?.timestamp;
    if (at && latencies.length < 1000000) latencies.push(now - Date.parse(at));
    res.writeHead(204);
    res.end();
  });
});
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', (m) => {
  if (m === 'reset') { count = 0; latencies = []; cpu0 = process.cpuUsage(); process.send({ reset: true }); }
  else if (m === 'count') { const cpu = process.cpuUsage(cpu0); process.send({ count, cpuUs: cpu.user + cpu.system }); }
  else if (m === 'stats') process.send({ count, latencies });
});
process.on('disconnect', () => process.exit(0));
`;

/** The load generator: SendMessage for the given seconds, then prints the tasks done. */
const LOADER = `
const [url, webhook, seconds, connections] = process.argv.slice(1);
const end = Date.now() + Number(seconds) * 1000;
let done = 0, n = 0;
async function worker() {
  while (Date.now() < end) {
    const body = { jsonrpc: '2.0', id: ++n, method: 'SendMessage', params: {
      message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'task:x' }] },
      ...(webhook !== '-' ? { configuration: { taskPushNotificationConfig: { url: webhook } } } : {}) } };
    const res = await fetch(url + '/a2a/jsonrpc', { method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' }, body: JSON.stringify(body) });
    const json = await res.json();
    if (json.error) throw new Error(JSON.stringify(json.error));
    done++;
  }
}
const cpu0 = process.cpuUsage();
Promise.all(Array.from({ length: Number(connections) }, worker)).then(() => {
  const cpu = process.cpuUsage(cpu0);
  console.log(done, cpu.user + cpu.system);
});
`;

interface ReceiverStats {
  count: number;
  latencies: number[];
}

/** Starts the receiver process; `ask` sends it a request and resolves with its answer. */
async function startReceiver(): Promise<{ url: string; ask<T>(what: string): Promise<T>; stop(): void }> {
  const child = spawn(process.execPath, ['-e', RECEIVER], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { port: number }).port));
    child.once('exit', () => reject(new Error('the receiver exited')));
  });
  return {
    url: `http://127.0.0.1:${port}/hook`,
    ask: <T>(what: string) =>
      new Promise<T>((resolve) => {
        child.once('message', (m) => resolve(m as T));
        child.send(what);
      }),
    stop: () => child.disconnect(),
  };
}

/** Runs the load generator for SECONDS; resolves with the tasks done and its own CPU time (µs). */
function load(url: string, webhook: string | undefined): Promise<{ tasks: number; cpuUs: number }> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['-e', LOADER, url, webhook ?? '-', String(SECONDS), String(CONNECTIONS)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) =>
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`the load generator exited with ${code}`));
      const [tasks, cpuUs] = out.trim().split(' ').map(Number);
      resolve({ tasks: tasks!, cpuUs: cpuUs! });
    }),
  );
}

/** CPU time of this process's main thread in µs (Linux), or undefined elsewhere. */
function mainThreadCpuUs(): number | undefined {
  return procCpuMicros(`/proc/self/task/${process.pid}/stat`);
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0
    ? NaN
    : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Waits until the receiver's count stops growing for 500 ms (the backlog is delivered). */
async function drained(receiver: Awaited<ReturnType<typeof startReceiver>>): Promise<void> {
  let count = -1;
  for (;;) {
    const now = (await receiver.ask<{ count: number }>('count')).count;
    if (now === count) return;
    count = now;
    await new Promise((r) => setTimeout(r, 500));
  }
}

interface Round {
  tasksPerSecond: number;
  cpuPerTaskUs: number;
  mainPerTaskUs: number | undefined;
  /** The load generator's and the receiver's CPU per task, µs: the machine's other work. */
  loaderPerTaskUs: number;
  receiverPerTaskUs: number;
}

/** One scenario: a warm-up round, then the measured one (and for push, the drain). */
async function scenario(push: boolean, receiver: Awaited<ReturnType<typeof startReceiver>>): Promise<Round> {
  const store = freshStore();
  const server = createA2AServer({
    agent: benchExecutor,
    card: benchCard,
    store: store.spec,
    pushNotifications: push,
    ...(push
      ? {
          push: {
            allowHosts: ['127.0.0.1'],
            allowHttp: true,
            concurrency: 32,
            senderThread: SENDER_THREAD,
            ...(SIGNED ? {} : { signingKey: false as const }),
          },
        }
      : {}),
  });
  const { url } = await server.listen(0, '127.0.0.1');
  const webhook = push ? receiver.url : undefined;
  try {
    await load(url, webhook);
    if (push) await drained(receiver); // the warm-up's backlog is not the measured round's work
    await receiver.ask('reset');
    const cpu0 = process.cpuUsage();
    const main0 = mainThreadCpuUs();
    const started = Date.now();
    const { tasks, cpuUs: loaderUs } = await load(url, webhook);
    const cpu = process.cpuUsage(cpu0);
    const main1 = mainThreadCpuUs();
    const atEnd = await receiver.ask<{ count: number; cpuUs: number }>('count');
    const round: Round = {
      tasksPerSecond: tasks / SECONDS,
      cpuPerTaskUs: (cpu.user + cpu.system) / tasks,
      mainPerTaskUs: main0 !== undefined && main1 !== undefined ? (main1 - main0) / tasks : undefined,
      loaderPerTaskUs: loaderUs / tasks,
      receiverPerTaskUs: atEnd.cpuUs / tasks,
    };
    const mainText =
      round.mainPerTaskUs === undefined ? '' : `, main thread ${round.mainPerTaskUs.toFixed(0)}`;
    const what = push
      ? `with one push config per task (${STORE} store and outbox, sender ${SENDER_THREAD ? 'thread' : 'inline'})`
      : `without push (${STORE} store)`;
    console.log(
      `task scenario ${what}: ${round.tasksPerSecond.toFixed(0)} tasks/s; server CPU µs/task: process ${round.cpuPerTaskUs.toFixed(0)}${mainText}; ` +
        `load generator ${round.loaderPerTaskUs.toFixed(0)}, receiver ${round.receiverPerTaskUs.toFixed(0)}`,
    );
    if (push) {
      const sent = atEnd.count;
      await drained(receiver);
      const stats = await receiver.ask<ReceiverStats>('stats');
      const all = process.cpuUsage(cpu0);
      const mainAll = mainThreadCpuUs();
      console.log(
        `server CPU µs/task with the backlog's delivery: process ${((all.user + all.system) / tasks).toFixed(0)}` +
          (main0 !== undefined && mainAll !== undefined
            ? `, main thread ${((mainAll - main0) / tasks).toFixed(0)}`
            : ''),
      );
      const seconds = (Date.now() - started - 500) / 1000;
      const sorted = stats.latencies.slice().sort((a, b) => a - b);
      console.log(
        `push: ${stats.count} deliveries (${sent} during the load) in ${seconds.toFixed(1)} s = ${(stats.count / seconds).toFixed(0)} deliveries/s; ` +
          `event to webhook p50 ${percentile(sorted, 50)} ms, p99 ${percentile(sorted, 99)} ms`,
      );
    }
    return round;
  } finally {
    await server.close();
    await store.remove();
  }
}

const receiver = await startReceiver();
try {
  const without = await scenario(false, receiver);
  const withPush = await scenario(true, receiver);
  console.log(
    `with push / without: ${(withPush.tasksPerSecond / without.tasksPerSecond).toFixed(2)}x tasks/s; ` +
      `server CPU +${(withPush.cpuPerTaskUs - without.cpuPerTaskUs).toFixed(0)} µs/task` +
      (withPush.mainPerTaskUs !== undefined && without.mainPerTaskUs !== undefined
        ? `, main thread +${(withPush.mainPerTaskUs - without.mainPerTaskUs).toFixed(0)} µs/task`
        : ''),
  );
  // The three processes share this machine's cores, which both rounds keep busy: tasks/s then
  // follows the CPU the whole machine spends per task. The receiver's share is no work of the
  // server's, so even a push that cost the server nothing could not beat this ratio here.
  const machine = (r: Round): number => r.cpuPerTaskUs + r.loaderPerTaskUs + r.receiverPerTaskUs;
  const bound =
    machine(without) / (machine(without) + withPush.receiverPerTaskUs - without.receiverPerTaskUs);
  console.log(
    `machine CPU µs/task (server + load generator + receiver): without push ${machine(without).toFixed(0)}, ` +
      `with push ${machine(withPush).toFixed(0)} (${(machine(without) / machine(withPush)).toFixed(2)}x, steadier than tasks/s); ` +
      `the receiver alone caps the ratio near ${bound.toFixed(2)}x on this machine`,
  );
} finally {
  receiver.stop();
}
