/**
 * `a2a send ... --stream | head -2`: the reader closes the pipe early. The command must end
 * quietly (exit 0, no stack trace), not crash on EPIPE. The server (`a2a serve`) and the
 * client are real child processes; the test closes the client's stdout after two lines.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { exitCode, isRunning, spawnCli, waitForLine } from '../support/cli.js';

describe('a2a send --stream into a pipe closed early', () => {
  let server: ChildProcess;
  let url: string;
  before(async () => {
    server = spawnCli(['serve', '--agent', 'bench', '--port', '0']);
    url = (await waitForLine(server, /bench agent at (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
  });
  after(() => {
    if (isRunning(server)) server.kill('SIGKILL');
  });

  for (const json of [false, true]) {
    test(`exits 0 without a stack trace${json ? ' (--json)' : ''}`, async () => {
      const child = spawnCli(['send', url, 'stream:20000', '--stream', ...(json ? ['--json'] : [])]);
      const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      try {
        let stderr = '';
        child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        // Like `head -2`: read two lines, then close our end of the pipe.
        await new Promise<void>((resolve, reject) => {
          let lines = 0;
          child.stdout?.on('data', (chunk: Buffer) => {
            lines += chunk.toString().split('\n').length - 1;
            if (lines >= 2) {
              child.stdout?.destroy();
              resolve();
            }
          });
          child.once('exit', (code) => reject(new Error(`exited (${code}) before two lines: ${stderr}`)));
        });
        const code = await exitCode(child);
        assert.equal(stderr, '', 'nothing on stderr');
        assert.equal(code, 0);
      } finally {
        clearTimeout(killer);
        if (isRunning(child)) child.kill('SIGKILL');
      }
    });
  }
});
