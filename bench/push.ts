/**
 * `npm run bench:push` (issue 12): push delivery on one machine, everything in one process on
 * 127.0.0.1 (server, load, receiver), with the memory outbox.
 *
 * - deliveries/s to a local receiver answering 204, and the latency from an event (its status
 *   timestamp) to its arrival at the receiver, p50 / p99;
 * - the task scenario (SendMessage `task:x`, JSON-RPC, BENCH_CONNECTIONS in flight) with one
 *   push config per task vs without.
 *
 * Knobs: BENCH_ROUND_SECONDS (5), BENCH_CONNECTIONS (16), BENCH_STORE (`memory`; `sqlite`: a
 * new file per scenario; or a postgres:// URL: a new schema per scenario, dropped after), which
 * picks the store and so the outbox (memory, or the store's durable one). Figures share the
 * machine with whatever else runs: compare the two task figures with each other, not across
 * machines.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { benchCard, benchExecutor } from '../src/agents/index.js';
import { createA2AServer } from '../src/server/http.js';

const SECONDS = Number(process.env.BENCH_ROUND_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const STORE = process.env.BENCH_STORE ?? 'memory';

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

interface Receiver {
  url: string;
  count: number;
  latencies: number[];
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = { url: '', count: 0, latencies: [], close: async () => {} };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const now = Date.now();
      receiver.count++;
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        task?: { status: { timestamp?: string } };
        statusUpdate?: { status: { timestamp?: string } };
      };
      const at = (body.task ?? body.statusUpdate)?.status.timestamp;
      if (at && receiver.latencies.length < 1_000_000) receiver.latencies.push(now - Date.parse(at));
      res.writeHead(204);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  receiver.close = () => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  };
  return receiver;
}

/** Sends `task:x` messages for SECONDS with CONNECTIONS in flight; returns tasks per second. */
async function load(url: string, webhook: string | undefined): Promise<number> {
  const end = Date.now() + SECONDS * 1000;
  let done = 0;
  let n = 0;
  const worker = async () => {
    while (Date.now() < end) {
      const body = {
        jsonrpc: '2.0',
        id: ++n,
        method: 'SendMessage',
        params: {
          message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'task:x' }] },
          ...(webhook ? { configuration: { taskPushNotificationConfig: { url: webhook } } } : {}),
        },
      };
      const res = await fetch(`${url}/a2a/jsonrpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as { error?: unknown };
      if (json.error) throw new Error(JSON.stringify(json.error));
      done++;
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  return done / SECONDS;
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0
    ? NaN
    : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function scenario(push: boolean): Promise<void> {
  const receiver = await startReceiver();
  const store = freshStore();
  const server = createA2AServer({
    agent: benchExecutor,
    card: benchCard,
    store: store.spec,
    pushNotifications: push,
    ...(push ? { push: { allowHosts: ['127.0.0.1'], allowHttp: true, concurrency: 32 } } : {}),
  });
  const { url } = await server.listen(0, '127.0.0.1');
  try {
    await load(url, push ? receiver.url : undefined); // warm-up round, same length
    receiver.count = 0;
    receiver.latencies.length = 0;
    const started = Date.now();
    const tasksPerSecond = await load(url, push ? receiver.url : undefined);
    if (!push) {
      console.log(`task scenario without push (${STORE} store): ${tasksPerSecond.toFixed(0)} tasks/s`);
      return;
    }
    const sent = receiver.count;
    // Drain: wait (bounded) for the backlog, to count deliveries/s over the whole run.
    let last = -1;
    while (receiver.count !== last) {
      last = receiver.count;
      await new Promise((r) => setTimeout(r, 500));
    }
    const seconds = (Date.now() - started - 500) / 1000;
    const sorted = receiver.latencies.slice().sort((a, b) => a - b);
    console.log(
      `task scenario with one push config per task (${STORE} store and outbox): ${tasksPerSecond.toFixed(0)} tasks/s`,
    );
    console.log(
      `push: ${receiver.count} deliveries (${sent} during the load) in ${seconds.toFixed(1)} s = ${(receiver.count / seconds).toFixed(0)} deliveries/s; ` +
        `event to webhook p50 ${percentile(sorted, 50)} ms, p99 ${percentile(sorted, 99)} ms`,
    );
  } finally {
    await server.close();
    await receiver.close();
    await store.remove();
  }
}

await scenario(false);
await scenario(true);
