/** The test-runner agent on a real server: real git worktrees, real child processes. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  createTestRunnerExecutor,
  testRunnerCard,
  parseRunRequest,
} from '../../src/agents/test-runner/test-runner.js';
import type { Task } from '../../src/model/schema.js';
import { alive, eventually, hosted, sampleRepo } from '../support/demo.js';

const summaryOf = (task: Task) =>
  task.artifacts?.find((a) => a.name === 'summary.json')?.parts[0]?.data as Record<string, unknown>;

test('a passing commit completes with summary.json, the log as a file part, and per-test progress', async (t) => {
  const repo = await sampleRepo(t);
  const { client } = await hosted(t, createTestRunnerExecutor({ timeLimitMs: 60_000 }), testRunnerCard);
  const progress: string[] = [];
  let last: Task | undefined;
  for await (const event of client.stream({ data: { repo: repo.path, commit: 'passing' } })) {
    if (event.kind === 'statusUpdate' && event.statusUpdate.status.state === 'TASK_STATE_WORKING') {
      progress.push(event.statusUpdate.status.message?.parts[0]?.text ?? '');
    }
    if (event.kind === 'task') last = event.task;
  }
  const task = await client.getTask(last!.id);
  assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
  const summary = summaryOf(task);
  assert.equal(summary.passed, 4);
  assert.equal(summary.failed, 0);
  assert.equal(summary.skipped, 0);
  assert.equal(summary.commit, repo.passing);
  assert.equal(typeof summary.durationMs, 'number');
  const log = task.artifacts?.find((a) => a.name === 'test.log')?.parts[0];
  assert.equal(log?.mediaType, 'text/plain');
  assert.match(Buffer.from(log!.raw!, 'base64').toString(), /ok 1 - fees: 10\.00 costs 0\.59/);
  assert.ok(
    progress.some((p) => p.startsWith('✓ fees: 10.00 costs 0.59')),
    progress.join('\n'),
  );
  assert.ok(progress.some((p) => p.startsWith('✓ refunds: more than charged is refused')));
  // The temporary worktree is gone.
  const worktrees = await readdir(join(repo.path, '.git', 'worktrees')).catch(() => []);
  assert.deepEqual(worktrees, []);
});

test('a failing commit completes with the failures in the summary', async (t) => {
  const repo = await sampleRepo(t);
  const { client } = await hosted(t, createTestRunnerExecutor({ timeLimitMs: 60_000 }), testRunnerCard);
  const reply = await client.send({ text: `${repo.path} ${repo.failing.slice(0, 8)}` });
  assert.equal(reply.kind, 'task');
  const task = reply.kind === 'task' ? reply.task : undefined;
  assert.equal(task?.status.state, 'TASK_STATE_COMPLETED');
  const summary = summaryOf(task!);
  assert.equal(summary.failed, 2);
  assert.equal(summary.passed, 2);
  assert.deepEqual(summary.failedTests, ['fees: 10.00 costs 0.59', 'fees: zero still pays the fixed part']);
});

test('a missing commit or repository rejects the task', async (t) => {
  const repo = await sampleRepo(t);
  const { client } = await hosted(t, createTestRunnerExecutor(), testRunnerCard);
  const missing = await client.send({ data: { repo: repo.path, commit: 'deadbeef' } });
  assert.equal(missing.kind === 'task' && missing.task.status.state, 'TASK_STATE_REJECTED');
  const noRepo = await client.send({ data: { repo: join(repo.root, 'nope'), commit: 'main' } });
  assert.equal(noRepo.kind === 'task' && noRepo.task.status.state, 'TASK_STATE_REJECTED');
  assert.match(
    noRepo.kind === 'task' ? JSON.stringify(noRepo.task.status.message) : '',
    /not a git repository/,
  );
});

test('a test command past the time limit is killed and the task FAILED', async (t) => {
  const repo = await sampleRepo(t);
  const pidFile = join(repo.root, 'hang.pid');
  const command = `node -e "require('fs').writeFileSync('${pidFile}', String(process.pid)); setInterval(() => {}, 1000)"`;
  const { client } = await hosted(
    t,
    createTestRunnerExecutor({ command, timeLimitMs: 1_500 }),
    testRunnerCard,
  );
  const reply = await client.send({ data: { repo: repo.path, commit: 'passing' } });
  const task = reply.kind === 'task' ? reply.task : undefined;
  assert.equal(task?.status.state, 'TASK_STATE_FAILED');
  assert.match(JSON.stringify(task?.status.message), /did not finish within 1500 ms/);
  const pid = Number(await readFile(pidFile, 'utf8'));
  assert.ok(await eventually(() => !alive(pid)), 'the hanging process is gone');
});

test('CancelTask kills the test process tree and removes the worktree', async (t) => {
  const repo = await sampleRepo(t);
  const pidFile = join(repo.root, 'child.pid');
  // A shell whose grandchild hangs: the whole group must go.
  const command = `node -e "require('fs').writeFileSync('${pidFile}', String(process.pid)); setInterval(() => {}, 1000)" && true`;
  const { client } = await hosted(
    t,
    createTestRunnerExecutor({ command, timeLimitMs: 60_000 }),
    testRunnerCard,
  );
  const reply = await client.send({ data: { repo: repo.path, commit: 'passing' }, returnImmediately: true });
  assert.equal(reply.kind, 'task');
  const id = reply.kind === 'task' ? reply.task.id : '';
  assert.ok(await eventually(async () => (await readFile(pidFile, 'utf8').catch(() => '')) !== ''));
  const pid = Number(await readFile(pidFile, 'utf8'));
  assert.ok(alive(pid));
  const canceled = await client.cancelTask(id);
  assert.equal(canceled.status.state, 'TASK_STATE_CANCELED');
  assert.ok(await eventually(() => !alive(pid)), 'the test process is gone');
  assert.ok(
    await eventually(
      async () => (await readdir(join(repo.path, '.git', 'worktrees')).catch(() => [])).length === 0,
    ),
    'the worktree is removed',
  );
});

test('run requests: data part, "<repo> <commit>", "<repo>@<commit>", and a usage hint', () => {
  assert.deepEqual(parseRunRequest({ data: { repo: '/r', commit: 'c' }, text: '' }), {
    repo: '/r',
    commit: 'c',
  });
  assert.deepEqual(parseRunRequest({ data: undefined, text: '/r abc' }), { repo: '/r', commit: 'abc' });
  assert.deepEqual(parseRunRequest({ data: undefined, text: '/r@abc' }), { repo: '/r', commit: 'abc' });
  assert.deepEqual(parseRunRequest({ data: undefined, text: 'commit=abc repo=/r' }), {
    repo: '/r',
    commit: 'abc',
  });
  assert.equal(typeof parseRunRequest({ data: undefined, text: 'hello there you' }), 'string');
});
