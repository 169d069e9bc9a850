/** `a2a inspect` as a user runs it: it prints the guarded address and stops on SIGTERM. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exitCode, isRunning, spawnCli, waitForLine } from '../support/cli.js';

test('a2a inspect prints the address with the token and the agent, and serves only with the token', async (t) => {
  const child = spawnCli(['inspect', '127.0.0.1:41999', '--port', '0']);
  t.after(() => {
    if (isRunning(child)) child.kill('SIGKILL');
  });
  const match = await waitForLine(
    child,
    /inspector at (http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+&agent=(\S+))\n/,
  );
  const address = new URL(match[1] as string);
  assert.equal(address.searchParams.get('agent'), 'http://127.0.0.1:41999');
  assert.equal((await fetch(address)).status, 200);
  assert.equal((await fetch(`${address.origin}/`)).status, 403);
  assert.equal((await fetch(`${address.origin}/api/wire`)).status, 403);
  child.kill('SIGTERM');
  assert.equal(await exitCode(child), 0);
});
