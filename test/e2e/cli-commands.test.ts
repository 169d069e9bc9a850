/**
 * Every client command of the real CLI against a running `a2a serve --agent bench`, in human
 * and `--json` output; exit codes; bad input as one line without a stack trace.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exitCode, isRunning, runCli, spawnCli, waitForLine } from '../support/cli.js';

const lines = (stdout: string) =>
  stdout
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { kind: string; [k: string]: unknown });

const noStack = (stderr: string) => assert.doesNotMatch(stderr, /\n\s+at .+:\d+:\d+/, stderr);

describe('client commands against a bench agent', () => {
  let server: ChildProcess;
  let url: string;
  let hostPort: string;
  before(async () => {
    server = spawnCli(['serve', '--agent', 'bench', '--port', '0']);
    url = (await waitForLine(server, /bench agent at (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
    hostPort = url.replace('http://', '');
  });
  after(() => {
    if (isRunning(server)) server.kill('SIGKILL');
  });

  test('card: human and --json; a URL without scheme means http://', async () => {
    const human = await runCli(['card', hostPort]);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /^bench /);
    assert.match(human.stdout, /skill slow: Slow/);
    const json = await runCli(['card', hostPort, '--json', '--header', 'x-demo:1']);
    assert.equal(json.code, 0, json.stderr);
    const [line] = lines(json.stdout);
    assert.equal(line?.kind, 'card');
    assert.equal((line?.card as { name: string }).name, 'bench');
  });

  test('send: a message, a task, a stream with artifact chunks assembled, in both modes', async () => {
    const echo = await runCli(['send', url, 'echo:hi']);
    assert.deepEqual([echo.code, echo.stdout.trim()], [0, 'hi']);
    const echoJson = await runCli(['send', url, 'echo:hi', '--json']);
    assert.equal(lines(echoJson.stdout)[0]?.kind, 'message');

    const task = await runCli(['send', url, 'task:done']);
    assert.equal(task.code, 0, task.stderr);
    assert.match(task.stdout, /completed/);
    assert.match(task.stdout, /artifact out:\n\s+done/);

    const stream = await runCli(['send', url, 'stream:3', '--stream']);
    assert.equal(stream.code, 0, stream.stderr);
    assert.match(stream.stdout, /\[out\] chunk-1chunk-2chunk-3\n/, 'chunks shown as one growing text');
    const streamJson = await runCli(['send', url, 'stream:3', '--stream', '--json']);
    assert.equal(streamJson.code, 0);
    const kinds = lines(streamJson.stdout).map((l) => l.kind);
    assert.deepEqual(kinds, ['task', 'artifactUpdate', 'artifactUpdate', 'artifactUpdate', 'statusUpdate']);
  });

  test('send waits for a long task, printing its id at once; --timeout stops waiting with exit 9 and a hint', async () => {
    const waited = await runCli(['send', url, 'slow:1500']);
    assert.equal(waited.code, 0, waited.stderr);
    assert.match(
      waited.stderr,
      /^task [0-9a-f-]{36} working; waiting for it to end \(Ctrl-C stops waiting\)/m,
    );
    assert.match(waited.stdout, /slept 1500/);
    // Long enough for the task to exist even on a loaded machine, short against the task.
    const timedOut = await runCli(['send', url, 'slow:60000', '--timeout', '4s']);
    assert.equal(timedOut.code, 9, timedOut.stderr);
    const id = /task ([0-9a-f-]{36}) working/.exec(timedOut.stderr)![1]!;
    assert.match(timedOut.stderr, new RegExp(`a2a cancel ${url.replace(/\./g, '\\.')} ${id}`));
    // get, list, subscribe, cancel on that still-running task.
    const got = await runCli(['get', url, id, '--json']);
    assert.equal(got.code, 0, got.stderr);
    assert.equal((lines(got.stdout)[0]?.task as { id: string }).id, id);
    const listed = await runCli(['list', url, '--state', 'working', '--json']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.ok(lines(listed.stdout).some((l) => (l.task as { id: string }).id === id));
    const listedHuman = await runCli(['list', url, '--all']);
    assert.match(listedHuman.stdout, new RegExp(`${id}  working`));
    const sub = await runCli(['subscribe', url, id, '--timeout', '500ms']);
    assert.equal(sub.code, 9, sub.stderr);
    const canceled = await runCli(['cancel', url, id]);
    assert.equal(canceled.code, 0, canceled.stderr);
    assert.match(canceled.stdout, /canceled/);
    const after = await runCli(['get', url, id]);
    assert.equal(after.code, 3, 'a canceled task exits 3');
  });

  test('--no-wait returns at once; input-required exits 5 with how to answer; the answer completes it', async () => {
    const quick = await runCli(['send', url, 'slow:60000', '--no-wait', '--json']);
    assert.equal(quick.code, 0, quick.stderr);
    const t = lines(quick.stdout)[0]?.task as { id: string };
    await runCli(['cancel', url, t.id]);
    const asked = await runCli(['send', url, 'input:your name?']);
    assert.equal(asked.code, 5);
    assert.match(asked.stderr, /the agent asks: your name\?/);
    const id = /--task ([0-9a-f-]{36})/.exec(asked.stderr)![1]!;
    const answered = await runCli(['send', url, 'Ada', '--task', id]);
    assert.equal(answered.code, 0, answered.stderr);
    assert.match(answered.stdout, /Ada/);
  });

  test('usage errors exit 2', async () => {
    const push = await runCli(['push', 'list', url]);
    assert.equal(push.code, 2, 'push list without a task id');
    const usage = await runCli(['send']);
    assert.equal(usage.code, 2);
    const badState = await runCli(['list', url, '--state', 'sleepy']);
    assert.equal(badState.code, 2);
    assert.match(badState.stderr, /^a2a: unknown state sleepy/);
  });

  test('help lists the exit codes and examples', async () => {
    const help = await runCli(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Exit codes:/);
    assert.match(help.stdout, /5 +the task needs input/);
    const sendHelp = await runCli(['send', '--help']);
    assert.match(sendHelp.stdout, /Examples:/);
    assert.match(sendHelp.stdout, /--token/);
  });

  test('an endpoint URL instead of the base URL gets a hint; a 404 names every path tried', async () => {
    const r = await runCli(['card', `${url}/a2a/jsonrpc`]);
    assert.equal(r.code, 7);
    assert.match(r.stderr, /hint: .* pass the agent's base URL instead: http:\/\/127\.0\.0\.1:\d+\n/);
    const missing = await runCli(['card', `${url}/nothing-here`]);
    assert.match(missing.stderr, /agent-card\.json/);
    assert.match(missing.stderr, /agent\.json/);
    noStack(missing.stderr);
  });
});

describe('bad input', () => {
  test('an agent that is down: one line, exit 7', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const r = await runCli(['send', `127.0.0.1:${port}`, 'hi']);
    assert.equal(r.code, 7);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /ECONNREFUSED.*is the agent running\?/);
  });

  test('a wrong URL: one line, exit 2; --debug adds the stack', async () => {
    const r = await runCli(['card', 'http://[bad']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^a2a: not a URL: http:\/\/\[bad\n$/);
    const debug = await runCli(['card', 'http://[bad', '--debug']);
    assert.equal(debug.code, 2);
    assert.match(debug.stderr, /^a2a: not a URL: http:\/\/\[bad\nUsageError: not a URL[^\n]*\n\s+at /);
  });

  test('test-runner: a missing commit exits 4 (rejected), a hanging test command with a time limit exits 1', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'a2a-cli-bad-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const { ensureSampleRepo } = await import('../../src/cli/demo/sample-repo.js');
    const repo = await ensureSampleRepo(join(dir, 'payments-api'));
    const server = spawnCli([
      'serve',
      '--agent',
      'test-runner',
      '--port',
      '0',
      '--test-command',
      'node -e "setInterval(() => {}, 1000)"',
      '--time-limit',
      '1000',
    ]);
    t.after(() => {
      if (isRunning(server)) server.kill('SIGKILL');
    });
    const url = (await waitForLine(server, /test-runner agent at (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
    const missing = await runCli([
      'send',
      url,
      '--data',
      JSON.stringify({ repo: repo.path, commit: 'deadbeef' }),
    ]);
    assert.equal(missing.code, 4, missing.stderr);
    assert.match(missing.stdout, /rejected: commit deadbeef does not exist/);
    const hanging = await runCli(['send', url, `${repo.path} passing`]);
    assert.equal(hanging.code, 1, hanging.stderr);
    assert.match(hanging.stdout, /failed: the test command did not finish within 1000 ms/);
    server.kill('SIGTERM');
    assert.equal(await exitCode(server), 0);
  });
});

test('a2a serve --exec: a script that streams, line by line, and its exit code as the state', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-exec-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const script = join(dir, 'shout.mjs');
  await writeFile(
    script,
    `import { createInterface } from 'node:readline';
for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'boom') { console.error('it blew up'); process.exit(3); }
  for (const word of line.split(' ')) { console.log(word.toUpperCase()); await new Promise((r) => setTimeout(r, 20)); }
}
`,
  );
  const server = spawnCli(['serve', '--exec', `node ${script}`, '--port', '0']);
  t.after(() => {
    if (isRunning(server)) server.kill('SIGKILL');
  });
  const url = (await waitForLine(server, /exec agent at (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
  const r = await runCli(['send', url, 'one two three', '--stream', '--json']);
  assert.equal(r.code, 0, r.stderr);
  const chunks = lines(r.stdout)
    .filter((l) => l.kind === 'artifactUpdate')
    .map((l) => (l.artifactUpdate as { artifact: { parts: { text: string }[] } }).artifact.parts[0]!.text);
  assert.deepEqual(chunks, ['ONE\n', 'TWO\n', 'THREE\n', '']);
  const human = await runCli(['send', url, 'a b']);
  assert.equal(human.code, 0);
  assert.match(human.stdout, /A\nB/);
  const failed = await runCli(['send', url, 'boom']);
  assert.equal(failed.code, 1);
  assert.match(failed.stdout, /failed: .* exited with 3: it blew up/);
  server.kill('SIGTERM');
  assert.equal(await exitCode(server), 0);
});

test('a2a chat: a question, its answer on the same task, then /quit', { timeout: 60_000 }, async (t) => {
  const server = spawnCli(['serve', '--agent', 'bench', '--port', '0']);
  t.after(() => {
    if (isRunning(server)) server.kill('SIGKILL');
  });
  const url = (await waitForLine(server, /bench agent at (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
  const { spawn } = await import('node:child_process');
  const chat = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'chat', url], {
    cwd: new URL('../../', import.meta.url),
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  t.after(() => {
    if (isRunning(chat)) chat.kill('SIGKILL');
  });
  let stdout = '';
  let stderr = '';
  chat.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  chat.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  chat.stdin.write('input:your name?\n');
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no question: ${stdout} ${stderr}`)), 30_000);
    const check = () => {
      if (/your next line answers "your name\?"/.test(stderr)) {
        clearTimeout(timer);
        resolve();
      }
    };
    chat.stderr.on('data', check);
  });
  // /quit leaves without end of input: the process must not wait on stdin.
  chat.stdin.write('Ada\n/quit\n');
  assert.equal(await exitCode(chat), 0, stderr);
  assert.match(stdout, /input-required: your name\?/);
  assert.match(stdout, /\[out\] Ada/);
  assert.match(stdout, /completed/);
});
