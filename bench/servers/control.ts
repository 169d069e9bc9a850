/**
 * The parent's side of the benchmark servers (bench/servers/child.ts is the child's): starting
 * one pinned to a core, waiting for its next message, stopping it, and reading a process's or
 * thread's CPU time from /proc.
 */
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { ChildMessage, ParentMessage } from './child.js';

/** Whether processes are pinned to cores; BENCH_PIN=0 turns it off (e.g. where taskset is missing). */
const PIN = process.env.BENCH_PIN !== '0';

/** Pins process `pid` (all its threads) to core `cpu`; without taskset or a second core it runs unpinned. */
export function pin(pid: number | undefined, cpu: number): void {
  if (!PIN || pid === undefined) return;
  try {
    execFileSync('taskset', ['-a', '-cp', String(cpu), String(pid)], { stdio: 'ignore' });
  } catch {
    // No taskset or a single core: run unpinned.
  }
}

/** The child's next message; rejects when it exits first or says nothing for `timeoutMs`. */
export function nextMessage(child: ChildProcess, timeoutMs: number): Promise<ChildMessage> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error('child did not answer in time'));
    }, timeoutMs);
    const onMessage = (message: ChildMessage): void => {
      cleanup();
      resolve(message);
    };
    const onExit = (code: number | null): void => {
      cleanup();
      reject(new Error(`child exited with ${code}`));
    };
    const cleanup = (): void => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

/** A benchmark server started by {@link startChild}. */
export interface StartedChild {
  child: ChildProcess;
  port: number;
  grpcPort?: number;
}

/**
 * Forks the server script `file` (through tsx, with `execArgv` added), pins it to core `cpu` and
 * waits for it to say it is ready; `onFork` sees the child before that (to track it).
 */
export async function startChild(
  file: string,
  options: {
    execArgv: string[];
    env: NodeJS.ProcessEnv;
    cpu: number;
    onFork?: (child: ChildProcess) => void;
  },
): Promise<StartedChild> {
  const child = fork(file, [], {
    execArgv: ['--import', 'tsx', ...options.execArgv],
    env: { ...options.env, NODE_ENV: 'production' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  options.onFork?.(child);
  pin(child.pid, options.cpu);
  const message = await nextMessage(child, 30_000);
  if (message.type !== 'ready') {
    throw new Error(message.type === 'error' ? message.message : `unexpected ${message.type}`);
  }
  return {
    child,
    port: message.port,
    ...(message.grpcPort === undefined ? {} : { grpcPort: message.grpcPort }),
  };
}

/** Asks a child server to exit and waits for it; killed when it has not within 5 s. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    child.send({ type: 'exit' } satisfies ParentMessage);
  } catch {
    child.kill('SIGKILL');
  }
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

let tickMicros: number | undefined;

/**
 * User plus system CPU time in µs from a `/proc/.../stat` file: `/proc/<pid>/stat` for a
 * process, `/proc/<pid>/task/<tid>/stat` for one thread. Undefined where /proc cannot be read.
 */
export function procCpuMicros(statPath: string): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(statPath, 'utf8');
  } catch {
    return undefined;
  }
  tickMicros ??= 1e6 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
  // The fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * tickMicros;
}
