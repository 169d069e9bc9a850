/**
 * `npm run bench:compare -- <dist> [<dist>...]`: server CPU per request of builds of a2a-kit,
 * side by side. Every build's bench server (bench/servers/kit.ts serving that dist/) is up at
 * once, all pinned to one core, and the load (autocannon, pinned to the other core) goes to one
 * server at a time in bursts of a fixed number of requests, the order alternating each round.
 * Each server's CPU is read from /proc over its own bursts only, so the drift of a shared
 * virtual machine (a quarter within an hour here) falls on every build alike, where throughput
 * runs (`npm run bench`) cannot separate a few percent. Two processes of one build differ by up
 * to 5-7% (memory layout, JIT timing), so each build gets several, and its figure is their sum.
 *
 * Knobs: BENCH_COMPARE_TEXT (`task:hello`; `echo:hello` for the echo), BENCH_COMPARE_PATH
 * (`jsonrpc`, or `rest`), BENCH_COMPARE_BURST (3000 requests), BENCH_COMPARE_ROUNDS (10),
 * BENCH_COMPARE_PROCESSES (3 servers per build), BENCH_COMPARE_STORE (`memory`, or `sqlite`: a file
 * per server in a temporary directory), BENCH_CONNECTIONS (32),
 * BENCH_COMPARE_NODE_ARGS (node options for every server, e.g. a V8 flag under test),
 * BENCH_COMPARE_PROFILE_DIR (each server writes a CPU profile there, see bench/profile-summary.ts).
 * Linux only (taskset, /proc).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { pin, procCpuMicros, startChild, stopChild, type StartedChild } from './servers/control.js';

const env = process.env;
const TEXT = env.BENCH_COMPARE_TEXT ?? 'task:hello';
const BINDING = env.BENCH_COMPARE_PATH ?? 'jsonrpc';
const BURST = Number(env.BENCH_COMPARE_BURST ?? 3_000);
const ROUNDS = Number(env.BENCH_COMPARE_ROUNDS ?? 10);
const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 32);
/** Extra node options for every server (e.g. V8 flags to test a hypothesis on). */
const NODE_ARGS = env.BENCH_COMPARE_NODE_ARGS ? env.BENCH_COMPARE_NODE_ARGS.split(' ') : [];
/** Where each server writes a CPU profile when it exits (`--cpu-prof`), when set. */
const PROFILE_DIR = env.BENCH_COMPARE_PROFILE_DIR;
const KIT_SERVER = fileURLToPath(new URL('./servers/kit.ts', import.meta.url));
const PROCESSES = Number(env.BENCH_COMPARE_PROCESSES ?? 3);
/** `memory` (default) or `sqlite` (a file per server, in a temporary directory). */
const STORE = env.BENCH_COMPARE_STORE ?? 'memory';
/** The SQLite servers' directories, removed at the end. */
const storeDirs: string[] = [];
/** Every server forked (also one that failed to start), stopped at the end. */
const children: ChildProcess[] = [];

const dists = [...new Set(process.argv.slice(2).map((dir) => resolve(dir)))];
if (dists.length < 1) {
  process.stderr.write('usage: npm run bench:compare -- <dist> [<dist>...]\n');
  process.exit(2);
}

/** CPU time (µs) of a server process or of its main thread; this tool needs /proc. */
function cpuMicros(statPath: string): number {
  const micros = procCpuMicros(statPath);
  if (micros === undefined) throw new Error(`cannot read ${statPath}: bench:compare needs Linux's /proc`);
  return micros;
}

interface Build {
  dist: string;
  child: ChildProcess;
  url: string;
  cpu: number;
  mainThread: number;
  requests: number;
  failures: number;
}

async function start(dist: string): Promise<Build> {
  // SQLite: each server its own file in a fresh directory.
  let store = {};
  if (STORE === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-compare-'));
    storeDirs.push(dir);
    store = { BENCH_KIT_STORE: `sqlite:${join(dir, 'a2a.sqlite')}` };
  }
  let started: StartedChild;
  try {
    started = await startChild(KIT_SERVER, {
      execArgv: [...NODE_ARGS, ...(PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [])],
      env: { ...env, ...store, BENCH_KIT_DIST: dist },
      cpu: 0,
      onFork: (child) => children.push(child),
    });
  } catch (err) {
    throw new Error(`${dist}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const path = BINDING === 'rest' ? '/a2a/rest/message:send' : '/a2a/jsonrpc';
  return {
    dist,
    child: started.child,
    url: `http://127.0.0.1:${started.port}${path}`,
    cpu: 0,
    mainThread: 0,
    requests: 0,
    failures: 0,
  };
}

const BODY = ((): string => {
  const message = { messageId: '[<id>]', role: 'ROLE_USER', parts: [{ text: TEXT }] };
  return BINDING === 'rest'
    ? JSON.stringify({ message })
    : JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message } });
})();

async function burst(build: Build, count: boolean): Promise<void> {
  const pid = build.child.pid!;
  const cpuBefore = cpuMicros(`/proc/${pid}/stat`);
  const mainBefore = cpuMicros(`/proc/${pid}/task/${pid}/stat`);
  const result = await autocannon({
    url: build.url,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: BODY,
    idReplacement: true,
    connections: CONNECTIONS,
    amount: BURST,
  });
  if (!count) return;
  build.cpu += cpuMicros(`/proc/${pid}/stat`) - cpuBefore;
  build.mainThread += cpuMicros(`/proc/${pid}/task/${pid}/stat`) - mainBefore;
  build.requests += result.requests.total;
  build.failures += result.errors + result.timeouts + result.non2xx;
}

pin(process.pid, 1);
const builds: Build[] = [];
try {
  // Each build's servers interleaved (A B A B ...), so no build always starts first.
  for (let copy = 0; copy < PROCESSES; copy++) for (const dist of dists) builds.push(await start(dist));
  for (const build of builds) await burst(build, false);
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? builds : [...builds].reverse();
    for (const build of order) await burst(build, true);
  }
  report();
} finally {
  await Promise.all(children.map(stopChild));
  for (const dir of storeDirs) rmSync(dir, { recursive: true, force: true });
}

/** Per process, then per build (its processes summed), each against the first build. */
function report(): void {
  const out = process.stdout;
  out.write(
    `${TEXT} over ${BINDING} on ${STORE}: ${ROUNDS} bursts of ${BURST} requests per server, ${PROCESSES} server(s) per build\n`,
  );
  const perRequest = (cpu: number, requests: number): string => (cpu / requests).toFixed(1).padStart(7);
  for (const build of builds) {
    out.write(
      `  process ${perRequest(build.cpu, build.requests)} µs/request (main thread ${perRequest(build.mainThread, build.requests)})  ${build.dist}` +
        (build.failures ? `  ${build.failures} failures` : '') +
        '\n',
    );
  }
  let first: number | undefined;
  for (const dist of dists) {
    const mine = builds.filter((b) => b.dist === dist);
    const cpu = mine.reduce((sum, b) => sum + b.cpu, 0);
    const main = mine.reduce((sum, b) => sum + b.mainThread, 0);
    const requests = mine.reduce((sum, b) => sum + b.requests, 0);
    first ??= cpu / requests;
    out.write(
      `build   ${perRequest(cpu, requests)} µs/request (main thread ${perRequest(main, requests)})  ` +
        `${(cpu / requests / first).toFixed(3)}x the first  ${dist}\n`,
    );
  }
}
