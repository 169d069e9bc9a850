/**
 * Starting an example (`npm start` in `examples/<name>`) on a real runtime, and the checks run
 * against it from Node with a2a-kit's client: card, SendMessage, SendStreamingMessage (SSE),
 * GetTask, CancelTask. The examples import the built package: `npm run build` comes first.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { A2AClient, ArtifactAssembler, textOf, type StreamEvent } from '../../src/client/index.js';
import { openHeldStream } from '../server/adapters/host-checks.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const STARTUP_TIMEOUT_MS = 120_000;

/** Fails (with the reason) unless dist/ is built and examples/node_modules/a2a-kit links to it. */
export async function requireBuiltPackage(): Promise<void> {
  assert.ok(
    existsSync(`${ROOT}dist/server/index.js`),
    'the examples import the built package: run `npm run build` first',
  );
  await import(`${ROOT}examples/link.mjs`);
}

/** A free loopback port (for hosts that cannot listen on port 0 and say which they got). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** A running example: its URL, and stop() (the whole process group). */
export interface RunningExample {
  url: string;
  stop(): Promise<void>;
}

/**
 * `npm start` in `examples/<name>` with PORT (0 unless given) and `env`: resolves once the
 * example prints its URL (`... at http://127.0.0.1:<port>`), or `urlOf(port)` for a host that
 * prints none.
 */
export async function startExample(
  name: string,
  options: { port?: number; ready?: RegExp; env?: Record<string, string> } = {},
): Promise<RunningExample> {
  await requireBuiltPackage();
  const child = spawn('npm', ['start', '--silent'], {
    cwd: `${ROOT}examples/${name}`,
    env: {
      ...process.env,
      PORT: String(options.port ?? 0),
      NO_COLOR: '1',
      NEXT_TELEMETRY_DISABLED: '1',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const stop = (): Promise<void> => stopGroup(child);
  try {
    const url = await waitForUrl(child, options.ready ?? /(http:\/\/127\.0\.0\.1:\d+)/, options.port);
    // A host that names its port before it listens (workerd's start script): wait for it.
    if (options.port !== undefined) await waitForPort(options.port);
    return { url, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Resolves once 127.0.0.1:`port` accepts a connection (at most 200 tries, 100 ms apart). */
export async function waitForPort(port: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => resolve(socket.end() !== undefined));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`nothing listens on 127.0.0.1:${port}`);
}

function waitForUrl(child: ChildProcess, pattern: RegExp, port: number | undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(
      () => reject(new Error(`no ${pattern} within ${STARTUP_TIMEOUT_MS} ms: ${output}`)),
      STARTUP_TIMEOUT_MS,
    );
    const read = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = pattern.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1] ?? `http://127.0.0.1:${port}`);
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before it was ready: ${output}`));
    });
  });
}

/**
 * Ends the process group of `child` (spawned `detached`: npm, its shell and the runtime) with
 * `signal`, SIGKILL after 5 s, and waits for `child`.
 */
export async function stopGroup(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    process.kill(-child.pid, signal);
  } catch {
    return;
  }
  const killer = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }, 5_000);
  await exited;
  clearTimeout(killer);
}

/** Card, SendMessage, SSE, GetTask and CancelTask against an example's agent at `url`. */
export async function checkExampleAgent(url: string): Promise<void> {
  const card = await fetch(`${url}/.well-known/agent-card.json`, { headers: { 'a2a-version': '1.0' } });
  assert.equal(card.status, 200);
  const body = (await card.json()) as { name: string; supportedInterfaces: { url: string }[] };
  assert.equal(body.name, 'anywhere');
  for (const i of body.supportedInterfaces)
    assert.ok(i.url.startsWith(`${url}/`), `${i.url} is under ${url}`);
  const client = await A2AClient.connect(url);
  try {
    const sent = await client.send({ text: 'hello there' });
    assert.equal(sent.kind, 'task');
    const task = sent.kind === 'task' ? sent.task : undefined;
    assert.equal(task?.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(textOf(task?.artifacts?.[0]), 'you said: hello there');
    const events: StreamEvent[] = [];
    for await (const event of client.stream({ text: 'one two three' })) events.push(event);
    // Streamed: chunks as they come (the first may ride in the task snapshot), assembled whole.
    const assembler = new ArtifactAssembler();
    for (const e of events) {
      if (e.kind === 'task') assembler.seed(e.task);
      if (e.kind === 'artifactUpdate') assembler.apply(e.artifactUpdate);
    }
    assert.ok(events.filter((e) => e.kind === 'artifactUpdate').length >= 2, 'artifact chunks streamed');
    assert.equal(textOf(assembler.get('answer')), 'you said: one two three');
    const last = events.at(-1);
    assert.equal(last?.kind === 'statusUpdate' && last.statusUpdate.status.state, 'TASK_STATE_COMPLETED');
    const taskId = last?.kind === 'statusUpdate' ? last.statusUpdate.taskId : '';
    const got = await client.getTask(taskId);
    assert.equal(textOf(got.artifacts?.[0]), 'you said: one two three');
    const waiting = await client.send({ text: 'wait', returnImmediately: true });
    assert.equal(waiting.kind, 'task');
    const canceled = await client.cancelTask(waiting.kind === 'task' ? waiting.task.id : '');
    assert.equal(canceled.status.state, 'TASK_STATE_CANCELED');
  } finally {
    await client.close();
  }
}

/** What test/runtimes/client-script.mjs reports against {@link hostTestServer}'s agent. */
export const EXPECTED_CLIENT_SUMMARY = {
  card: 'host-test',
  sent: 'TASK_STATE_COMPLETED',
  streamed: 'one two three',
  streamEnd: 'TASK_STATE_COMPLETED',
  got: 'TASK_STATE_COMPLETED',
  canceled: 'TASK_STATE_CANCELED',
};

/** Runs `command args` to its end (at most a minute); resolves with its stdout. */
export function runToEnd(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(stdout);
      else reject(new Error(`${command} exited with ${code}: ${stderr}`));
    });
  });
}

/** A process started `detached` (its own group) whose stdout and stderr a test watches. */
export interface WatchedProcess {
  /** Resolves with the first match of `pattern` in all output so far or to come (at most 60 s). */
  seen(pattern: RegExp): Promise<RegExpMatchArray>;
  /** All output so far. */
  output(): string;
  /** Ends the whole group with `signal` (SIGTERM unless given; SIGKILL after 5 s) and waits for it. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts `command args` in ROOT as its own process group, its output watched. */
export function spawnWatched(command: string, args: string[], env?: NodeJS.ProcessEnv): WatchedProcess {
  const child = spawn(command, args, {
    cwd: ROOT,
    env: env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  const append = (chunk: Buffer): void => {
    output += chunk.toString();
  };
  child.stdout.on('data', append);
  child.stderr.on('data', append);
  return {
    output: () => output,
    stop: (signal) => stopGroup(child, signal),
    seen: (pattern) =>
      new Promise((resolve, reject) => {
        const check = (): boolean => {
          const match = pattern.exec(output);
          if (match) {
            clearTimeout(timer);
            child.stdout.off('data', check);
            child.stderr.off('data', check);
            resolve(match);
          }
          return match !== null;
        };
        const timer = setTimeout(() => reject(new Error(`no ${pattern} within 60 s: ${output}`)), 60_000);
        if (check()) return;
        // Added after `append`, so `output` already holds the chunk when this runs.
        child.stdout.on('data', check);
        child.stderr.on('data', check);
        child.once('exit', (code) => {
          clearTimeout(timer);
          if (!check()) reject(new Error(`exited with ${code}: ${output}`));
        });
      }),
  };
}

/** What {@link checkStreamDrop} expects of the server once the client has gone. */
export interface StreamDropExpectation {
  /** The server's signal of the call is aborted (`stream-aborted`); else not, by the time GetTask answers. */
  signalAborted: boolean;
  /** The server stops streaming (`stream-ended`); else it has not, by the time GetTask answers. */
  streamEnded: boolean;
  /** How long to wait after the drop before checking what did not happen (0 unless given). */
  quietMs?: number;
}

/**
 * A client drops a SendStreamingMessage of `hold` at `url`, served by test/runtimes/
 * disconnect-agent.mjs in `server` (whose lines carry `label`): the server notices as
 * `expected` says, and the task is still WORKING (a dropped stream never cancels its task:
 * docs/protocol-behaviour.md, "Executors run detached").
 */
export async function checkStreamDrop(
  url: string,
  server: WatchedProcess,
  label = '',
  expected: StreamDropExpectation = { signalAborted: true, streamEnded: true },
): Promise<void> {
  assert.match(label, /^[\w ]*$/, 'a label of words (it goes into a pattern as is)');
  const abortedLine = new RegExp(`^stream-aborted${label}$`, 'm');
  const endedLine = new RegExp(`^stream-ended${label}$`, 'm');
  const client = await A2AClient.connect(url);
  try {
    const { taskId, drop } = await openHeldStream(client);
    await drop();
    if (expected.streamEnded) await server.seen(endedLine);
    if (expected.signalAborted) await server.seen(abortedLine);
    if (expected.quietMs) await new Promise((resolve) => setTimeout(resolve, expected.quietMs));
    const task = await client.getTask(taskId);
    assert.equal(task.status.state, 'TASK_STATE_WORKING', 'the dropped stream left its task running');
    if (!expected.streamEnded) assert.doesNotMatch(server.output(), endedLine, 'the server still streams');
    if (!expected.signalAborted)
      assert.doesNotMatch(server.output(), abortedLine, 'the signal is not aborted');
  } finally {
    await client.close();
  }
}

/**
 * A streaming client that goes away on a server run by `command args`
 * (test/runtimes/disconnect-server.mjs, which prints its URL): the server's signal of the call
 * is aborted, it stops streaming, and the task runs on.
 */
export async function checkDisconnect(command: string, args: string[]): Promise<void> {
  await requireBuiltPackage();
  const server = spawnWatched(command, args);
  try {
    const url = (await server.seen(/listening at (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
    await checkStreamDrop(url, server);
  } finally {
    await server.stop();
  }
}
