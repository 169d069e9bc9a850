/**
 * `a2a chat` in a real pseudo-terminal (util-linux `script` makes one; no native module),
 * against the deployer agent: the AUTH_REQUIRED round (`/token` with a stronger token), then
 * the INPUT_REQUIRED confirmation answered at the prompt, the deployment on disk. What is typed
 * is echoed beside the prompt, and Ctrl-C stops waiting for a turn without leaving the chat.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureSampleRepo } from '../../src/cli/demo/sample-repo.js';
import {
  exitCode,
  isRunning,
  spawnCli,
  waitForLine,
  watchOutput,
  type WatchedOutput,
} from '../support/cli.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;

/** Single-quotes `arg` for the shell `script -c` runs. */
const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;

/** `a2a <args>` on the slave side of a new pty; what is written to stdin is typed into it. */
function spawnInPty(args: string[]): ChildProcess {
  const command = [process.execPath, '--import', 'tsx', 'src/cli/main.ts', ...args].map(quote).join(' ');
  return spawn('script', ['-qfec', command, '/dev/null'], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', TERM: 'dumb' },
  });
}

/** Everything after `from` in the terminal's output (the pty ends lines with \r\n). */
const since = (out: WatchedOutput, from: number) => out.stdout.slice(from).replace(/\r/g, '');

/** Types `line` once the terminal has shown `ready` after `from`; returns the new position. */
async function typeWhen(
  child: ChildProcess,
  out: WatchedOutput,
  ready: RegExp,
  line: string,
): Promise<number> {
  await out.waitFor(ready);
  const at = out.stdout.length;
  child.stdin!.write(`${line}\r`);
  return at;
}

describe('a2a chat in a pseudo-terminal', () => {
  // A missing tool fails the run with the reason instead of skipping (Debian: bsdutils).
  test('util-linux script (the pseudo-terminal) is installed', () => {
    assert.ok(hasScript, "util-linux `script` is required for these tests: install Debian's bsdutils");
  });
  let dir: string;
  let server: ChildProcess;
  let url: string;
  let repo: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'a2a-chat-pty-'));
    repo = (await ensureSampleRepo(join(dir, 'payments-api'))).path;
    server = spawnCli([
      'serve',
      '--agent',
      'deployer',
      '--port',
      '0',
      '--store',
      'memory',
      '--data-dir',
      join(dir, 'deployer'),
      '--log-level',
      'silent',
    ]);
    url = (await waitForLine(server, /deployer agent at (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
  });
  after(async () => {
    if (isRunning(server)) server.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  test('auth-required, then input-required answered at the prompt: deployed to production', async (t) => {
    const chat = spawnInPty(['chat', url, '--token', 'demo-staging-token']);
    t.after(() => {
      if (isRunning(chat)) chat.kill('SIGKILL');
    });
    const out = watchOutput(chat);
    // The prompt appears only when stdin is a terminal: seeing it proves the pty.
    let at = await typeWhen(
      chat,
      out,
      /chatting with deployer[^\n]*\n> $/,
      `deploy ${repo} passing to production`,
    );
    await out.waitFor(/\/token T, then answer\)\r?\n> $/);
    const auth = since(out, at);
    assert.match(
      auth,
      new RegExp(`^deploy ${repo.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} passing to production\n`),
      'what was typed is echoed',
    );
    assert.match(
      auth,
      /task [0-9a-f-]{36}: auth-required: deploying to production needs scope deploy:production/,
    );
    const taskId = /task ([0-9a-f-]{36}): auth-required/.exec(auth)![1]!;

    at = await typeWhen(chat, out, /> $/, '/token demo-production-token');
    await out.waitFor(/token switched\r?\n> $/);
    at = await typeWhen(chat, out, /> $/, 'here is the stronger token');
    await out.waitFor(/your next line answers "deploy payments-api@[0-9a-f]{7} to production\?"\)\r?\n> $/);
    assert.match(since(out, at), /input-required: deploy payments-api@[0-9a-f]{7} to production\?/);

    at = await typeWhen(chat, out, /> $/, 'yes');
    await out.waitFor(/completed: deployed payments-api@[0-9a-f]{7} to production\r?\n> $/);
    const done = since(out, at);
    assert.match(done, /^yes\n/, 'the answer is echoed');
    assert.match(done, /\[deployment\.json\]/);
    assert.match(done, /"env":"production"/);

    chat.stdin!.write('/quit\r');
    assert.equal(await exitCode(chat), 0, out.stdout);
    const current = await readlink(join(dir, 'deployer', 'releases', 'production', 'current'));
    assert.match(current, /[0-9a-f]{40}$/, 'the release is switched on disk');
    assert.ok(out.stdout.includes(taskId));
  });

  test('Ctrl-C while a turn waits stops waiting and says how to reach the task; at the prompt it leaves', async (t) => {
    const bench = spawnCli([
      'serve',
      '--agent',
      'bench',
      '--port',
      '0',
      '--store',
      'memory',
      '--log-level',
      'silent',
    ]);
    t.after(() => {
      if (isRunning(bench)) bench.kill('SIGKILL');
    });
    const benchUrl = (await waitForLine(bench, /bench agent at (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
    const chat = spawnInPty(['chat', benchUrl]);
    t.after(() => {
      if (isRunning(chat)) chat.kill('SIGKILL');
    });
    const out = watchOutput(chat);
    await typeWhen(chat, out, /chatting with bench[^\n]*\n> $/, 'slow:600000');
    const taskId = (await out.waitFor(/task ([0-9a-f-]{36}): working/))[1]!;
    chat.stdin!.write('\x03');
    await out.waitFor(new RegExp(`a2a cancel ${benchUrl} ${taskId} [^\n]*\n> $`));
    const at = await typeWhen(chat, out, /> $/, 'echo:still here');
    await out.waitFor(/still here\r?\n> $/);
    assert.match(since(out, at), /^echo:still here\nstill here\n/);
    chat.stdin!.write('\x03');
    assert.equal(await exitCode(chat), 0, out.stdout);
  });
});
