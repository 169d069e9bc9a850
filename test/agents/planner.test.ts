/** The planner agent against a real test-runner and deployer, each on its own server. */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { createTestRunnerExecutor, testRunnerCard } from '../../src/agents/test-runner/test-runner.js';
import { createDeployerExecutor, deployerCard } from '../../src/agents/deployer/deployer.js';
import { createPlannerExecutor, plannerCard } from '../../src/agents/planner/planner.js';
import { recordedSubtasks } from '../../src/agents/planner/subtasks.js';
import type { A2AClient } from '../../src/client/client.js';
import { textOf } from '../../src/client/artifacts.js';
import type { Task } from '../../src/model/schema.js';
import { alive, eventually, hosted, sampleRepo } from '../support/demo.js';

async function system(t: TestContext, testCommand?: string) {
  const repo = await sampleRepo(t);
  const dataDir = join(repo.root, 'data');
  const runner = await hosted(
    t,
    createTestRunnerExecutor({ timeLimitMs: 60_000, ...(testCommand ? { command: testCommand } : {}) }),
    testRunnerCard,
  );
  const deployer = await hosted(t, createDeployerExecutor({ dataDir }), deployerCard);
  const planner = await hosted(
    t,
    createPlannerExecutor({
      testRunnerUrl: runner.url,
      deployerUrl: deployer.url,
      deployerToken: 'demo-staging-token',
    }),
    plannerCard,
  );
  return { repo, dataDir, runner, deployer, planner };
}

const asTask = (reply: Awaited<ReturnType<A2AClient['send']>>): Task => {
  assert.equal(reply.kind, 'task');
  return (reply as { task: Task }).task;
};

test('ship: tests pass, the deployer question is forwarded, the answer deploys, the report cites every sub-task', async (t) => {
  const { repo, dataDir, runner, deployer, planner } = await system(t);
  const asked = asTask(await planner.client.send({ data: { repo: repo.path, commit: 'passing' } }));
  assert.equal(asked.status.state, 'TASK_STATE_INPUT_REQUIRED');
  assert.equal(textOf(asked.status.message), `deploy payments-api@${repo.passing.slice(0, 7)} to staging?`);
  const subtasks = recordedSubtasks(asked);
  assert.ok(subtasks.tests && subtasks.deploy, 'both sub-task ids are recorded on the planner task');
  assert.equal((await runner.client.getTask(subtasks.tests.taskId)).status.state, 'TASK_STATE_COMPLETED');
  assert.equal(
    (await deployer.client.getTask(subtasks.deploy.taskId)).status.state,
    'TASK_STATE_INPUT_REQUIRED',
  );

  const done = asTask(await planner.client.send({ taskId: asked.id, text: 'yes' }));
  assert.equal(done.status.state, 'TASK_STATE_COMPLETED');
  const report = done.artifacts?.find((a) => a.name === 'report.json');
  const data = report?.parts.find((p) => p.data !== undefined)?.data as {
    outcome: string;
    subtasks: { step: string; taskId: string; artifacts: { name?: string }[] }[];
  };
  assert.equal(data.outcome, 'deployed');
  assert.deepEqual(
    data.subtasks.map((s) => [s.step, s.taskId, s.artifacts.map((a) => a.name)]),
    [
      ['tests', subtasks.tests.taskId, ['summary.json', 'test.log']],
      ['deploy', subtasks.deploy.taskId, ['deployment.json']],
    ],
  );
  assert.match(textOf(report), new RegExp(subtasks.deploy.taskId));
  assert.equal(await readlink(join(dataDir, 'releases', 'staging', 'current')), repo.passing);
});

test('ship: a failing commit stops before the deployment', async (t) => {
  const { repo, dataDir, planner } = await system(t);
  const task = asTask(await planner.client.send({ text: `ship ${repo.path} failing` }));
  assert.equal(task.status.state, 'TASK_STATE_FAILED');
  assert.match(textOf(task.status.message), /2 tests failed .*not deployed/);
  const subtasks = recordedSubtasks(task);
  assert.ok(subtasks.tests);
  assert.equal(subtasks.deploy, undefined);
  const report = task.artifacts?.find((a) => a.name === 'report.json');
  assert.match(textOf(report), /not deployed/);
  assert.equal(await readFile(join(dataDir, 'deployments.log'), 'utf8').catch(() => 'none'), 'none');
});

test('canceling the planner task cancels its test run (the test process is gone)', async (t) => {
  const repo0 = await sampleRepo(t);
  const pidFile = join(repo0.root, 'child.pid');
  const { repo, runner, planner } = await system(
    t,
    `node -e "require('fs').writeFileSync('${pidFile}', String(process.pid)); setInterval(() => {}, 1000)"`,
  );
  const started = asTask(
    await planner.client.send({ data: { repo: repo.path, commit: 'passing' }, returnImmediately: true }),
  );
  let tests: string | undefined;
  assert.ok(
    await eventually(async () => {
      tests = recordedSubtasks(await planner.client.getTask(started.id)).tests?.taskId;
      return tests !== undefined && (await readFile(pidFile, 'utf8').catch(() => '')) !== '';
    }),
  );
  const pid = Number(await readFile(pidFile, 'utf8'));
  const canceled = await planner.client.cancelTask(started.id);
  assert.equal(canceled.status.state, 'TASK_STATE_CANCELED');
  assert.equal((await runner.client.getTask(tests!)).status.state, 'TASK_STATE_CANCELED');
  assert.ok(await eventually(() => !alive(pid)), 'the test process is gone');
});

test('canceling the planner task while it waits for confirmation cancels the deployment', async (t) => {
  const { repo, deployer, planner } = await system(t);
  const asked = asTask(await planner.client.send({ data: { repo: repo.path, commit: 'passing' } }));
  assert.equal(asked.status.state, 'TASK_STATE_INPUT_REQUIRED');
  const { deploy } = recordedSubtasks(asked);
  await planner.client.cancelTask(asked.id);
  assert.equal((await deployer.client.getTask(deploy!.taskId)).status.state, 'TASK_STATE_CANCELED');
});

test('ship: a peer whose card offers no deploy skill fails the task with a one-line reason', async (t) => {
  const repo = await sampleRepo(t);
  const runner = await hosted(t, createTestRunnerExecutor({ timeLimitMs: 60_000 }), testRunnerCard);
  const { echoCard, echoExecutor } = await import('../../src/agents/echo.js');
  const echo = await hosted(t, echoExecutor, echoCard);
  const planner = await hosted(
    t,
    createPlannerExecutor({ testRunnerUrl: runner.url, deployerUrl: echo.url }),
    plannerCard,
  );
  const task = asTask(await planner.client.send({ data: { repo: repo.path, commit: 'passing' } }));
  assert.equal(task.status.state, 'TASK_STATE_FAILED');
  assert.match(textOf(task.status.message), /the card of echo at http:\S+ offers no skill to deploy/);
});
