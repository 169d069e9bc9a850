/** `a2a serve --store ...`: tasks on SQLite survive a kill -9 of the server; bad stores fail at start. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exitCode, isRunning, runCli, spawnCli, waitForLine } from '../support/cli.js';

const LISTENING = /^a2a-kit: bench agent at (http:\/\/127\.0\.0\.1:\d+) /m;

async function serve(
  t: { after: (fn: () => void) => void },
  store: string,
): Promise<{ url: string; kill: () => Promise<void> }> {
  const child = spawnCli(['serve', '--agent', 'bench', '--port', '0', '--store', store]);
  t.after(() => {
    if (isRunning(child)) child.kill('SIGKILL');
  });
  const [, url] = await waitForLine(child, LISTENING);
  return {
    url: url!,
    kill: async () => {
      child.kill('SIGKILL');
      await exitCode(child);
    },
  };
}

test('a2a serve --store sqlite:<path>: an acknowledged task survives kill -9', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-cli-store-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const store = `sqlite:${join(dir, 'data', 'a2a.sqlite')}`;
  const first = await serve(t, store);
  const sent = await runCli(['send', first.url, 'task:kept', '--json']);
  assert.equal(sent.code, 0, sent.stderr);
  const { task } = JSON.parse(sent.stdout.trim()) as { task: { id: string } };
  await first.kill();

  const second = await serve(t, store);
  const got = await runCli(['get', second.url, task.id, '--json']);
  assert.equal(got.code, 0, got.stderr);
  const { task: again } = JSON.parse(got.stdout.trim()) as {
    task: { status: { state: string }; artifacts: { parts: { text?: string }[] }[] };
  };
  assert.equal(again.status.state, 'TASK_STATE_COMPLETED');
  assert.equal(again.artifacts[0]?.parts[0]?.text, 'kept');
  await second.kill();
});

test('a2a serve with an unreachable PostgreSQL or an unknown store exits 1 and says why', async () => {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const down = await runCli([
    'serve',
    '--agent',
    'bench',
    '--port',
    '0',
    '--store',
    `postgres://x@127.0.0.1:${port}/db`,
  ]);
  assert.equal(down.code, 1);
  assert.match(
    down.stderr,
    new RegExp(`PostgreSQL store postgres://x@127.0.0.1:${port}/db cannot be used: .*ECONNREFUSED`),
  );
  const unknown = await runCli(['serve', '--agent', 'bench', '--port', '0', '--store', 'redis://x']);
  assert.equal(unknown.code, 2); // a usage error (a2a --help lists the exit codes)
  assert.match(
    unknown.stderr,
    /unsupported store "redis:\/\/x" \(supported: memory, sqlite:<path>, postgres:/,
  );
});
