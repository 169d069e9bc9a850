/**
 * createLogger's default destination buffers JSON lines on fd 2 (issue 28): a lone line still
 * reaches stderr while the process goes on, and every line is written when it exits.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('../../support/logger-child.ts', import.meta.url));

function run(mode: 'idle' | 'exit') {
  return spawn(process.execPath, ['--import', 'tsx', CHILD, mode], { stdio: ['ignore', 'ignore', 'pipe'] });
}

test('a lone line reaches stderr while the process keeps running (the buffer is flushed by a timer)', async (t) => {
  const child = run('idle');
  t.after(() => child.kill('SIGKILL'));
  const line = await new Promise<string>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`no line within 30 s: ${seen}`)), 30_000);
    child.stderr.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes('\n')) {
        clearTimeout(timer);
        resolve(seen.split('\n')[0]!);
      }
    });
  });
  assert.equal((JSON.parse(line) as { msg: string }).msg, 'alone');
  assert.equal(child.exitCode, null, 'the process is still running: the line was not flushed by an exit');
});

test('every buffered line is written when the process exits', async () => {
  const child = run('exit');
  let seen = '';
  child.stderr.on('data', (chunk: Buffer) => (seen += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  assert.equal(code, 0);
  const lines = seen
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { n: number });
  assert.equal(lines.length, 1000);
  assert.deepEqual(
    lines.map((l) => l.n),
    Array.from({ length: 1000 }, (_, i) => i),
  );
});
