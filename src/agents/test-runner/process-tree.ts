/**
 * Child processes that can be stopped as a whole: spawned detached (their own process group),
 * killed by process-group id so grandchildren (a shell's `node --test` and its test files) go too.
 */
import { spawn, type ChildProcess } from 'node:child_process';

/** How long SIGTERM may take before the group gets SIGKILL. */
const KILL_GRACE_MS = 2_000;

/** A command run in its own process group. */
export interface GroupProcess {
  readonly child: ChildProcess;
  /** Resolves with the exit code (null when a signal ended it) once the process has exited. */
  readonly exited: Promise<number | null>;
  /** SIGTERM to the whole group, SIGKILL after a grace period; resolves once the leader exited. */
  kill(): Promise<void>;
}

/** Runs `command` through the shell in `cwd`, stdout and stderr piped. */
export function spawnGroup(
  command: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  stdin: 'ignore' | 'pipe' = 'ignore',
): GroupProcess {
  const child = spawn(command, { cwd, env, shell: true, detached: true, stdio: [stdin, 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => {
    child.once('error', () => resolve(null));
    child.once('close', (code) => resolve(code));
  });
  const signalGroup = (signal: NodeJS.Signals): void => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // The group is already gone.
    }
  };
  return {
    child,
    exited,
    async kill() {
      signalGroup('SIGTERM');
      const timer = setTimeout(() => signalGroup('SIGKILL'), KILL_GRACE_MS);
      await exited;
      clearTimeout(timer);
      // Stragglers that ignored SIGTERM while the leader exited.
      signalGroup('SIGKILL');
    },
  };
}
