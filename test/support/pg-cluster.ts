/**
 * A PostgreSQL cluster of a test's own, for a test that restarts the server: the suite's
 * shared cluster (scripts/services.sh) serves other test files at the same time, so it is
 * never restarted. Made like services.sh makes the shared one (the same binaries, run by the
 * unprivileged `postgres` user when we are root, 127.0.0.1 only), but durable as a restart
 * needs: commits are acknowledged once their log is written.
 * A test that cannot make one fails with the reason.
 */
import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A running cluster of this test's own. */
export interface PgCluster {
  /** `postgres://postgres@127.0.0.1:<port>/a2a_test`. */
  readonly url: string;
  /** Restarts the server: `immediate` is a crash (recovery on start), `fast` a clean stop. */
  restart(mode?: 'immediate' | 'fast'): Promise<void>;
  /** Stops it and removes its files. */
  stop(): Promise<void>;
}

function binDir(): string {
  const root = '/usr/lib/postgresql';
  let versions: string[] = [];
  try {
    versions = readdirSync(root).sort((a, b) => Number(a) - Number(b));
  } catch {
    // none installed: reported below
  }
  const version = versions[versions.length - 1];
  if (version === undefined) {
    throw new Error(`PostgreSQL binaries not found under ${root} (scripts/services.sh installs them)`);
  }
  return join(root, version, 'bin');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Starts a new cluster in a temporary directory (about two seconds). */
export async function startPgCluster(): Promise<PgCluster> {
  const bin = binDir();
  const root = process.getuid?.() === 0;
  // PostgreSQL refuses to run as root: the system user services.sh made runs it.
  const as = (command: string, args: string[]) =>
    root
      ? run('runuser', ['-u', 'postgres', '--', join(bin, command), ...args])
      : run(join(bin, command), args);
  const dir = mkdtempSync('/tmp/a2a-pg-own-');
  const data = join(dir, 'data');
  try {
    if (root) chownSync(dir, Number((await run('id', ['-u', 'postgres'])).stdout.trim()), -1);
    await as('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync']);
    const port = await freePort();
    // synchronous_commit stays on: a commit is acknowledged once its log is written, so an
    // immediate stop (which drops the log buffers) loses nothing acknowledged; fsync may be off,
    // since the machine itself does not crash (the written log is in the OS's cache).
    const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c full_page_writes=off -c max_connections=100`;
    await as('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '60', '-o', options, 'start']);
    await as('createdb', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', 'a2a_test']);
    return {
      url: `postgres://postgres@127.0.0.1:${port}/a2a_test`,
      restart: async (mode = 'immediate') => {
        // -o again: a restart after an immediate stop keeps the options, but say them anyway.
        await as('pg_ctl', [
          '-D',
          data,
          '-l',
          join(dir, 'server.log'),
          '-w',
          '-t',
          '60',
          '-m',
          mode,
          '-o',
          options,
          'restart',
        ]);
      },
      stop: async () => {
        try {
          await as('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    await as('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => {});
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`could not start a PostgreSQL cluster of this test's own: ${String(error)}`, {
      cause: error,
    });
  }
}
