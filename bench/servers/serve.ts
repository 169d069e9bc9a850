/**
 * `a2a serve --agent bench` exactly as a user starts it, as a bench child: the compiled CLI
 * (dist/cli/main.js) in a fresh working directory (so the default store is a new
 * ./a2a-data/a2a.sqlite there), its stderr (the logs) to a file, its stdout read for the URL.
 * BENCH_SERVE_ARGS is a JSON array of extra CLI arguments (e.g. ["--store","memory"]).
 * The CLI process is pinned to BENCH_SERVE_CPU, the core this wrapper was given.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runChild } from './child.js';
import { pin } from './control.js';

const cli = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

runChild(async () => {
  if (!existsSync(cli)) throw new Error('dist/ is missing: run `npm run build` first (`npm run bench` does)');
  const extra = JSON.parse(process.env.BENCH_SERVE_ARGS ?? '[]') as string[];
  const cwd = mkdtempSync(join(tmpdir(), 'a2a-bench-serve-'));
  const logs = openSync(join(cwd, 'serve.log'), 'w');
  const env = { ...process.env };
  // The bench children run with NODE_ENV=production; the CLI's own environment is the user's.
  delete env.NODE_ENV;
  delete env.A2A_STORE;
  const child = spawn(process.execPath, [cli, 'serve', '--agent', 'bench', '--port', '0', ...extra], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', logs],
  });
  if (process.env.BENCH_SERVE_CPU) pin(child.pid, Number(process.env.BENCH_SERVE_CPU));
  const url = await new Promise<string>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`a2a serve did not start: ${seen}`)), 30_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /agent at (http:\/\/[^\s]+) \(/.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`a2a serve exited with ${code}: ${seen}`));
    });
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    port: Number(new URL(url).port),
    close: async () => {
      child.kill('SIGTERM');
      const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(force);
      rmSync(cwd, { recursive: true, force: true });
    },
  };
});
