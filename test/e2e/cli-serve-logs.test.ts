/** `a2a serve` logs: JSON lines with `--log-format json`, readable lines with `pretty`. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { exitCode, isRunning, spawnCli, waitForLine } from '../support/cli.js';

/** Resolves with stderr once it matches `pattern` (rejects after 20 s or when the child exits). */
function waitForStderr(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let stderr = '';
    const timer = setTimeout(() => reject(new Error(`stderr never matched ${pattern}: ${stderr}`)), 20_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (pattern.test(stderr)) {
        clearTimeout(timer);
        resolve(stderr);
      }
    });
    child.once('exit', () => reject(new Error(`exited before logging: ${stderr}`)));
  });
}

async function sendOne(child: ChildProcess): Promise<void> {
  const [, url] = await waitForLine(child, /echo agent at (http:\/\/127\.0\.0\.1:\d+)/);
  const reply = await fetch(`${url}/a2a/jsonrpc`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'a2a-version': '1.0',
      authorization: 'Bearer top-secret-1',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
    }),
  });
  assert.equal(reply.status, 200);
}

test('a2a serve --log-format json writes one JSON line per request on stderr', async (t) => {
  const child = spawnCli(['serve', '--agent', 'echo', '--port', '0', '--log-format', 'json']);
  t.after(() => {
    if (isRunning(child)) child.kill('SIGKILL');
  });
  const logged = waitForStderr(child, /"msg":"request"/);
  await sendOne(child);
  const line = (await logged).split('\n').find((l) => l.includes('"msg":"request"'))!;
  const entry = JSON.parse(line) as Record<string, unknown>;
  assert.equal(entry.op, 'SendMessage');
  assert.equal(entry.status, 'message');
  assert.equal(entry.principal, 'anonymous');
  assert.equal(entry.level, 30);
  assert.ok(!line.includes('top-secret-1'));
  child.kill('SIGTERM');
  assert.equal(await exitCode(child), 0);
});

test('a2a serve --log-format pretty writes readable lines', async (t) => {
  const child = spawnCli(['serve', '--agent', 'echo', '--port', '0', '--log-format', 'pretty']);
  t.after(() => {
    if (isRunning(child)) child.kill('SIGKILL');
  });
  const logged = waitForStderr(child, /INFO +request op=SendMessage/);
  await sendOne(child);
  assert.match(
    await logged,
    /^\d\d:\d\d:\d\d\.\d{3} INFO +request op=SendMessage binding=JSONRPC principal=anonymous .*ms=/m,
  );
  child.kill('SIGTERM');
  assert.equal(await exitCode(child), 0);
});
