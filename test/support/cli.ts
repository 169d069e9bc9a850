/**
 * Running the real CLI (`src/cli/main.ts` through tsx) in a child process, for the e2e tests.
 * Every wait is bounded; the test that spawns a child stops it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const STARTUP_TIMEOUT_MS = 30_000;
const COMMAND_TIMEOUT_MS = 30_000;

/** Starts `a2a <args>` with piped output; the caller stops it. */
export function spawnCli(args: string[]): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    // No colours, so readable output can be matched as text.
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
  });
}

/** Resolves with the first stdout match of `pattern`; rejects if the child exits or stays silent. */
export function waitForLine(child: ChildProcess, pattern: RegExp): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(
      () => reject(new Error(`no line matching ${pattern}; stdout: ${stdout}; stderr: ${stderr}`)),
      STARTUP_TIMEOUT_MS,
    );
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = pattern.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(match);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before printing; stdout: ${stdout}; stderr: ${stderr}`));
    });
  });
}

/** True while the child has neither exited nor been ended by a signal. */
export function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** The child's exit code once it has ended (null when a signal ended it). */
export function exitCode(child: ChildProcess): Promise<number | null> {
  if (!isRunning(child)) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** Runs one client command to its end (killed after {@link COMMAND_TIMEOUT_MS}). */
export async function runCli(
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnCli(args);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), COMMAND_TIMEOUT_MS);
  try {
    const code = await exitCode(child);
    return { code, stdout, stderr };
  } finally {
    clearTimeout(timer);
    if (isRunning(child)) child.kill('SIGKILL');
  }
}

/** A running child's output so far, and bounded waits for what it prints next. */
export interface WatchedOutput {
  readonly stdout: string;
  readonly stderr: string;
  /** Resolves with the first match of `pattern` in all of `stream` so far or later. */
  waitFor(pattern: RegExp, stream?: 'stdout' | 'stderr', timeoutMs?: number): Promise<RegExpMatchArray>;
}

/** Collects a spawned child's stdout and stderr from now on. */
export function watchOutput(child: ChildProcess): WatchedOutput {
  const text = { stdout: '', stderr: '' };
  const waiters = new Set<() => void>();
  const onData = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
    text[stream] += chunk.toString();
    for (const w of [...waiters]) w();
  };
  child.stdout?.on('data', onData('stdout'));
  child.stderr?.on('data', onData('stderr'));
  return {
    get stdout() {
      return text.stdout;
    },
    get stderr() {
      return text.stderr;
    },
    waitFor(pattern, stream = 'stdout', timeoutMs = STARTUP_TIMEOUT_MS) {
      return new Promise((resolve, reject) => {
        const done = () => {
          clearTimeout(timer);
          waiters.delete(check);
          child.off('exit', onExit);
        };
        const check = () => {
          const match = pattern.exec(text[stream]);
          if (match) {
            done();
            resolve(match);
          }
        };
        const onExit = () => {
          // Output may still be arriving after 'exit': the streams' 'close' is the last word.
          setImmediate(() => {
            check();
            if (!waiters.has(check)) return;
            done();
            reject(
              new Error(
                `exited before ${stream} matched ${pattern}; stdout: ${text.stdout}; stderr: ${text.stderr}`,
              ),
            );
          });
        };
        const timer = setTimeout(() => {
          done();
          reject(
            new Error(`no ${stream} match for ${pattern}; stdout: ${text.stdout}; stderr: ${text.stderr}`),
          );
        }, timeoutMs);
        waiters.add(check);
        child.on('exit', onExit);
        check();
        if (waiters.has(check) && !isRunning(child)) onExit();
      });
    },
  };
}
