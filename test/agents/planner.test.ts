/** The planner agent against a real test-runner and deployer, each on its own server. */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createTestRunnerExecutor, testRunnerCard } from '../../src/agents/test-runner/test-runner.js';
import { createDeployerExecutor, deployerCard } from '../../src/agents/deployer/deployer.js';
import {
  createPlannerExecutor,
  plannerCard,
  PROGRESS_KEY,
  type ProgressNote,
} from '../../src/agents/planner/planner.js';
import { PlannerWebhook } from '../../src/agents/planner/webhook.js';
import { createDemoAgent } from '../../src/agents/demo.js';
import type { StoreSpec } from '../../src/core/stores/open.js';
import { recordedSubtasks } from '../../src/agents/planner/subtasks.js';
import { statusOf, type A2AClient } from '../../src/client/client.js';
import { PUSH_SIGNING_EXTENSION_URI, pushJwksUrlOf } from '../../src/client/push-signature.js';
import { textOf } from '../../src/client/artifacts.js';
import type { Task } from '../../src/model/schema.js';
import { alive, eventually, hosted, sampleRepo, type Hosted } from '../support/demo.js';

/** Server options of the demo's test-runner: push delivery to loopback webhooks. */
const pushingRunner = createDemoAgent('test-runner', { dataDir: '' });

/** A planner with its own webhook, hosted like the demo hosts it. */
function plannerAgent(runnerUrl: string, deployerUrl: string) {
  const webhook = new PlannerWebhook();
  const executor = createPlannerExecutor({
    testRunnerUrl: runnerUrl,
    deployerUrl,
    deployerToken: 'demo-staging-token',
    webhook,
    follow: { pollMinMs: 20, pollMaxMs: 200 },
  });
  return {
    webhook,
    executor,
    agent: { server: { routes: webhook.routes }, listening: (url: string) => webhook.listening(url) },
  };
}

async function system(
  t: TestContext,
  options: { testCommand?: string; push?: boolean | 'https-only'; store?: StoreSpec } = {},
) {
  const repo = await sampleRepo(t);
  const dataDir = join(repo.root, 'data');
  const runner = await hosted(
    t,
    createTestRunnerExecutor({
      timeLimitMs: 60_000,
      ...(options.testCommand ? { command: options.testCommand } : {}),
    }),
    testRunnerCard,
    options.push === false
      ? {}
      : options.push === 'https-only'
        ? { agent: { server: { pushNotifications: true } } }
        : { agent: pushingRunner },
  );
  const deployer = await hosted(t, createDeployerExecutor({ dataDir }), deployerCard);
  const made = plannerAgent(runner.url, deployer.url);
  const planner = await hosted(t, made.executor, plannerCard, {
    agent: made.agent,
    ...(options.store ? { store: options.store, recovery: RECOVERY } : {}),
  });
  return { repo, dataDir, runner, deployer, planner, webhook: made.webhook };
}

/** Short leases, so a restarted planner takes its task over quickly. */
const RECOVERY = { leaseMs: 400, heartbeatMs: 50 };

/** The progress notes on the planner's status messages, as a stream shows them. */
async function shipStreamed(
  planner: Hosted,
  data: Record<string, unknown>,
): Promise<{ task: Task; notes: ProgressNote[] }> {
  const notes: ProgressNote[] = [];
  let id = '';
  for await (const event of planner.client.streamResilient({ data })) {
    if (event.kind === 'task') id = event.task.id;
    const note = statusOf(event)?.message?.metadata?.[PROGRESS_KEY] as ProgressNote | undefined;
    if (note) notes.push(note);
  }
  return { task: await planner.client.getTask(id), notes };
}

const asTask = (reply: Awaited<ReturnType<A2AClient['send']>>): Task => {
  assert.equal(reply.kind, 'task');
  return (reply as { task: Task }).task;
};

test('ship: tests pass, the deployer question is forwarded, the answer deploys, the report cites every sub-task', async (t) => {
  const { repo, dataDir, runner, deployer, planner, webhook } = await system(t);
  const asked = asTask(await planner.client.send({ data: { repo: repo.path, commit: 'passing' } }));
  assert.equal(asked.status.state, 'TASK_STATE_INPUT_REQUIRED');
  assert.ok(webhook.received > 0, 'the test run reached the planner by push notification');
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

test('ship: the test run is followed by push notifications to the planner webhook', async (t) => {
  const { repo, runner, planner, webhook } = await system(t);
  const { task, notes } = await shipStreamed(planner, { repo: repo.path, commit: 'passing' });
  assert.equal(task.status.state, 'TASK_STATE_INPUT_REQUIRED');
  const tests = recordedSubtasks(task).tests!;
  const announced = notes.find(
    (n) => n.step === 'tests' && n.via === 'push' && /by push notification/.test(n.text ?? ''),
  );
  assert.ok(announced, 'the planner says it follows the test run by push');
  assert.ok(announced.text!.includes(webhook.url!));
  const pushed = notes.filter((n) => n.step === 'tests' && n.via === 'push' && (n.notifications ?? 0) > 0);
  assert.ok(pushed.length > 0, 'progress of the test run came from notifications');
  // The planner's webhook is registered on the test run, with its token (not shown here).
  const { configs } = await runner.client.listTaskPushNotificationConfigs(tests.taskId);
  assert.deepEqual(
    configs?.map((c) => [c.id, c.url]),
    [['planner', webhook.url]],
  );
});

test('the planner webhook refuses notifications without its token or without the test-runner signature', async (t) => {
  const { repo, runner, planner, webhook } = await system(t);
  const { task } = await shipStreamed(planner, { repo: repo.path, commit: 'passing' });
  const tests = recordedSubtasks(task).tests!;
  // Follow the finished run again, so the webhook expects it while we post forged notifications.
  const watch = webhook.watch(tests.taskId, undefined);
  t.after(() => watch?.close());
  const body = JSON.stringify({
    statusUpdate: { taskId: tests.taskId, contextId: '', status: { state: 'TASK_STATE_FAILED' } },
  });
  const post = (headers: Record<string, string>) =>
    fetch(webhook.url!, {
      method: 'POST',
      headers: { 'content-type': 'application/a2a+json', ...headers },
      body,
    });
  assert.equal((await post({ 'x-a2a-notification-token': 'wrong' })).status, 401);
  const seen = webhook.received;
  // The right token is not enough while the test-runner's JWKS is known: it must be signed.
  const signedWatch = webhook.watch(tests.taskId, pushJwksUrlOf(runner.client.card!));
  t.after(() => signedWatch?.close());
  const unsigned = await post({ 'x-a2a-notification-token': webhook.token });
  assert.equal(unsigned.status, 401);
  assert.match(await unsigned.text(), /not signed/);
  assert.equal(webhook.received, seen);
});

test('ship: a test-runner whose card offers no push is followed by polling, and the planner says so', async (t) => {
  const { repo, planner, webhook } = await system(t, { push: false });
  const { task, notes } = await shipStreamed(planner, { repo: repo.path, commit: 'passing' });
  assert.equal(task.status.state, 'TASK_STATE_INPUT_REQUIRED');
  assert.ok(
    notes.some(
      (n) =>
        n.via === 'poll' &&
        /offers no push notifications: following task \S+ by polling GetTask/.test(n.text ?? ''),
    ),
  );
  assert.equal(webhook.received, 0);
});

test('ship: a test-runner whose card names a push JWKS off its origin is followed by polling, never fetched', async (t) => {
  const repo = await sampleRepo(t);
  let fetched = 0;
  const { createServer } = await import('node:http');
  const jwksHost = createServer((_req, res) => {
    fetched++;
    res.end('{"keys":[]}');
  });
  await new Promise<void>((resolve) => jwksHost.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => jwksHost.close(() => resolve())));
  const { port } = jwksHost.address() as { port: number };
  // The card names a JWKS on another origin than the agent's own (127.0.0.1:<other port>).
  const card = {
    ...testRunnerCard,
    extensions: [
      { uri: PUSH_SIGNING_EXTENSION_URI, params: { jwksUrl: `http://127.0.0.1:${port}/jwks.json` } },
    ],
  };
  const runner = await hosted(t, createTestRunnerExecutor({ timeLimitMs: 60_000 }), card, {
    agent: pushingRunner,
  });
  assert.equal(pushJwksUrlOf(runner.client.card!), `http://127.0.0.1:${port}/jwks.json`);
  const deployer = await hosted(
    t,
    createDeployerExecutor({ dataDir: join(repo.root, 'data') }),
    deployerCard,
  );
  const made = plannerAgent(runner.url, deployer.url);
  const planner = await hosted(t, made.executor, plannerCard, { agent: made.agent });
  const { task, notes } = await shipStreamed(planner, { repo: repo.path, commit: 'passing' });
  assert.equal(task.status.state, 'TASK_STATE_INPUT_REQUIRED');
  assert.ok(
    notes.some((n) => n.via === 'poll' && /is not on the agent's origin/.test(n.text ?? '')),
    JSON.stringify(notes.map((n) => n.text)),
  );
  assert.equal(fetched, 0);
  assert.equal(made.webhook.received, 0);
});

test('ship: a test-runner that refuses the webhook address is followed by polling, and the planner says why', async (t) => {
  const { repo, runner, planner, webhook } = await system(t, { push: 'https-only' });
  const { task, notes } = await shipStreamed(planner, { repo: repo.path, commit: 'passing' });
  assert.equal(task.status.state, 'TASK_STATE_INPUT_REQUIRED');
  const tests = recordedSubtasks(task).tests!;
  assert.ok(
    notes.some(
      (n) =>
        n.via === 'poll' &&
        /test-runner refused the webhook \(.+\): following task \S+ by polling GetTask/.test(n.text ?? ''),
    ),
  );
  assert.equal(webhook.received, 0);
  // One test run: the start was sent again without the webhook, under the same messageId.
  const runs = await runner.client.listTasks({});
  assert.deepEqual(
    runs.tasks.map((r) => r.id),
    [tests.taskId],
  );
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
  const { repo, runner, planner } = await system(t, {
    testCommand: `node -e "require('fs').writeFileSync('${pidFile}', String(process.pid)); setInterval(() => {}, 1000)"`,
  });
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

/** A SQLite file for the planner, in the test's temp dir. */
const plannerStore = (root: string): StoreSpec => `sqlite:${join(root, 'planner', 'a2a.sqlite')}`;

test('the planner restarted while it waits for the test run resumes following it from its store and completes', async (t) => {
  const repo0 = await sampleRepo(t);
  const gate = join(repo0.root, 'gate');
  const store = plannerStore(repo0.root);
  // The suite waits for the gate file, so the test run is still going when the planner stops.
  const { repo, dataDir, runner, deployer, planner, webhook } = await system(t, {
    testCommand: `sh -c 'i=0; while [ ! -f "${gate}" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done; node --test'`,
    store,
  });
  const started = asTask(
    await planner.client.send({ data: { repo: repo.path, commit: 'passing' }, returnImmediately: true }),
  );
  let tests: string | undefined;
  const registeredAt = async (url: string | undefined) => {
    tests ??= recordedSubtasks(await planner.client.getTask(started.id)).tests?.taskId;
    if (!tests) return false;
    const { configs } = await runner.client.listTaskPushNotificationConfigs(tests);
    return configs?.some((c) => c.url === url) ?? false;
  };
  assert.ok(
    await eventually(() => registeredAt(webhook.url)),
    'the first planner follows the test run by push',
  );
  await planner.server.close();

  // A new planner process on the same SQLite file, at another port.
  const next = plannerAgent(runner.url, deployer.url);
  const planner2 = await hosted(t, next.executor, plannerCard, {
    agent: next.agent,
    store,
    recovery: RECOVERY,
  });
  assert.notEqual(planner2.url, planner.url);
  assert.ok(
    await eventually(() => registeredAt(next.webhook.url)),
    'the restarted planner re-registers its webhook on the recorded test run',
  );
  await writeFile(gate, '');
  let asked: Task | undefined;
  assert.ok(
    await eventually(async () => {
      asked = await planner2.client.getTask(started.id);
      return asked.status.state !== 'TASK_STATE_WORKING';
    }, 400),
  );
  assert.equal(asked!.status.state, 'TASK_STATE_INPUT_REQUIRED', textOf(asked!.status.message));
  assert.equal(recordedSubtasks(asked).tests?.taskId, tests, 'the same test run, not a second one');
  assert.ok(next.webhook.received > 0, 'the test run reached the restarted planner by push');
  assert.ok(
    asked!.history?.some((m) => textOf(m) === `[planner] resumed after a restart: following ${tests} again`),
    'the planner says it resumed',
  );

  const done = asTask(await planner2.client.send({ taskId: started.id, text: 'yes' }));
  assert.equal(done.status.state, 'TASK_STATE_COMPLETED', textOf(done.status.message));
  assert.equal(await readlink(join(dataDir, 'releases', 'staging', 'current')), repo.passing);
});

test('the planner restarted while it waits for the deployer confirmation completes when answered after the restart', async (t) => {
  const repo0 = await sampleRepo(t);
  const store = plannerStore(repo0.root);
  const { repo, dataDir, runner, deployer, planner } = await system(t, { store });
  const asked = asTask(await planner.client.send({ data: { repo: repo.path, commit: 'passing' } }));
  assert.equal(asked.status.state, 'TASK_STATE_INPUT_REQUIRED');
  await planner.server.close();

  const next = plannerAgent(runner.url, deployer.url);
  const planner2 = await hosted(t, next.executor, plannerCard, {
    agent: next.agent,
    store,
    recovery: RECOVERY,
  });
  const done = asTask(await planner2.client.send({ taskId: asked.id, text: 'yes' }));
  assert.equal(done.status.state, 'TASK_STATE_COMPLETED', textOf(done.status.message));
  const { tests, deploy } = recordedSubtasks(done);
  assert.equal(tests?.taskId, recordedSubtasks(asked).tests?.taskId);
  assert.equal(deploy?.taskId, recordedSubtasks(asked).deploy?.taskId);
  assert.equal((await deployer.client.getTask(deploy!.taskId)).status.state, 'TASK_STATE_COMPLETED');
  assert.equal(await readlink(join(dataDir, 'releases', 'staging', 'current')), repo.passing);
});
