/**
 * `a2a demo` end to end (what `npm start` runs), in a child process with stdin closed: it
 * answers the deployer's question itself, ships the passing commit, leaves the agents running
 * until SIGINT; the failing commit stops before deploy.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readlink, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exitCode, isRunning, runCli, spawnCli, waitForLine } from '../support/cli.js';

test('a2a demo ships the passing commit, prints the report, keeps the agents until Ctrl-C', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-demo-e2e-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const child = spawnCli(['demo', '--data-dir', dir, '--ports', '0,0,0']);
  t.after(() => {
    if (isRunning(child)) child.kill('SIGKILL');
  });
  let stdout = '';
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
  await waitForLine(child, /Ctrl-C stops the agents\./);
  assert.match(stdout, /stdin is not a terminal: answering yes/);
  // The planner follows the test run by push notification to its own webhook.
  assert.match(
    stdout,
    /test-runner [0-9a-f]{8}: working following task \S+ by push notification \(webhook http:\/\/127\.0\.0\.1:\d+\/planner\/push-notifications\)/,
  );
  assert.match(stdout, /test-runner [0-9a-f]{8}: \S+ .* \(push #\d+\)\n/);
  assert.match(stdout, /deploy payments-api@[0-9a-f]{7} to staging\?/);
  assert.match(stdout, /planner task \S+: completed: shipped payments-api@[0-9a-f]{7} to staging/);
  assert.match(stdout, /tests: test-runner task [0-9a-f-]{36} completed; artifacts summary\.json, test\.log/);
  assert.match(stdout, /deploy: deployer task [0-9a-f-]{36} completed; artifacts deployment\.json/);
  assert.match(stdout, /Try next/);
  const current = join(dir, 'deployer', 'releases', 'staging', 'current');
  const target = await readlink(current);
  assert.match(target, /^[0-9a-f]{40}$/);
  assert.ok((await stat(join(current, 'src', 'fees.js'))).isFile());
  // The agents are still up: the planner answers its card.
  const plannerUrl = /planner\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)![1]!;
  const card = await runCli(['card', plannerUrl, '--json']);
  assert.equal(card.code, 0, card.stderr);
  assert.equal((JSON.parse(card.stdout) as { card: { name: string } }).card.name, 'planner');
  child.kill('SIGINT');
  assert.equal(await exitCode(child), 0);
  assert.match(stdout, /stopping the agents/);
});

test('a2a demo --commit failing stops before the deployment', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-demo-e2e-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const r = await runCli(['demo', '--data-dir', dir, '--ports', '0,0,0', '--commit', 'failing', '--exit']);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stdout, /planner task \S+: failed: 2 tests failed at failing/);
  assert.match(r.stdout, /payments-api@failing → staging: not deployed/);
  assert.doesNotMatch(r.stdout, /deployer task/);
  await assert.rejects(stat(join(dir, 'deployer', 'releases')));
});
