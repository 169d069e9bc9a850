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
