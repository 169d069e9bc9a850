/** The deployer agent: confirmation, a real local deployment, production scopes, idempotency. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir, readlink, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { createDeployerExecutor, deployerCard } from '../../src/agents/deployer/deployer.js';
import {
  DEMO_TOKENS,
  DEMO_PRODUCTION_TOKEN,
  DEMO_TOKEN,
  demoTokenAuthenticate,
} from '../../src/agents/deployer/tokens.js';
import { A2AClient } from '../../src/client/client.js';
import { createA2AServer } from '../../src/server/http.js';
import { createCallContext } from '../../src/core/context.js';
import { textOf } from '../../src/client/artifacts.js';
import type { Task } from '../../src/model/schema.js';
import { createTestHandler, userMessage } from '../support/handler.js';
import { hosted, sampleRepo } from '../support/demo.js';

const deployments = async (dataDir: string) =>
  (await readFile(join(dataDir, 'deployments.log'), 'utf8').catch(() => '')).split('\n').filter(Boolean);

test('staging: asks to confirm, deploys into releases/staging/<commit>, switches current, completes with deployment.json', async (t) => {
  const repo = await sampleRepo(t);
  const dataDir = join(repo.root, 'deployer');
  const { client } = await hosted(t, createDeployerExecutor({ dataDir }), deployerCard);
  assert.deepEqual(Object.keys(client.card!.securitySchemes ?? {}), ['bearer']);
  assert.ok(client.card!.securityRequirements?.length);

  const asked = await client.send({
    data: { service: 'payments-api', repo: repo.path, commit: 'passing', env: 'staging' },
  });
  const task = asked.kind === 'task' ? asked.task : undefined;
  assert.equal(task?.status.state, 'TASK_STATE_INPUT_REQUIRED');
  assert.equal(textOf(task!.status.message), `deploy payments-api@${repo.passing.slice(0, 7)} to staging?`);

  const messageId = randomUUID();
  const answer = { taskId: task!.id, contextId: task!.contextId, text: 'yes', messageId };
  const done = await client.send(answer);
  const finished = done.kind === 'task' ? done.task : undefined;
  assert.equal(finished?.status.state, 'TASK_STATE_COMPLETED');
  const record = finished?.artifacts?.find((a) => a.name === 'deployment.json')?.parts[0]?.data as Record<
    string,
    string
  >;
  assert.equal(record.commit, repo.passing);
  assert.equal(record.env, 'staging');
  const release = join(dataDir, 'releases', 'staging', repo.passing);
  assert.equal(record.release, release);
  assert.ok((await stat(join(release, 'src', 'fees.js'))).isFile());
  assert.equal(await readlink(join(dataDir, 'releases', 'staging', 'current')), repo.passing);
  // No temporary symlink or half-copied release is left behind.
  assert.deepEqual(
    (await readdir(join(dataDir, 'releases', 'staging'))).sort(),
    ['current', repo.passing].sort(),
  );

  // The same answer again (a retry with the same messageId) never deploys twice.
  const again = await client.send(answer);
  assert.equal(again.kind === 'task' && again.task.id, task!.id);
  assert.equal((await deployments(dataDir)).length, 1);
});

test('"no" cancels without deploying; a missing commit rejects', async (t) => {
  const repo = await sampleRepo(t);
  const dataDir = join(repo.root, 'deployer');
  const { client } = await hosted(t, createDeployerExecutor({ dataDir }), deployerCard);
  const asked = await client.send({ text: `deploy ${repo.path} passing to staging` });
  const task = asked.kind === 'task' ? asked.task : undefined;
  assert.equal(task?.status.state, 'TASK_STATE_INPUT_REQUIRED');
  const declined = await client.send({ taskId: task!.id, text: 'no' });
  assert.equal(declined.kind === 'task' && declined.task.status.state, 'TASK_STATE_CANCELED');
  assert.deepEqual(await deployments(dataDir), []);
  const missing = await client.send({ data: { repo: repo.path, commit: 'deadbeef' } });
  assert.equal(missing.kind === 'task' && missing.task.status.state, 'TASK_STATE_REJECTED');
});

test('production: AUTH_REQUIRED for the demo token until the same task gets a message with a stronger one', async (t) => {
  const repo = await sampleRepo(t);
  const dataDir = join(repo.root, 'deployer');
  const { handler } = createTestHandler(createDeployerExecutor({ dataDir }));
  t.after(() => handler.close());
  const weak = createCallContext({ principal: DEMO_TOKENS.get(DEMO_TOKEN)! });
  const strong = createCallContext({ principal: DEMO_TOKENS.get(DEMO_PRODUCTION_TOKEN)! });
  const first = await handler.sendMessage(
    {
      message: userMessage('x', {
        parts: [{ data: { repo: repo.path, commit: 'passing', env: 'production' } }],
      }),
    },
    weak,
  );
  const task = first.task as Task;
  assert.equal(task.status.state, 'TASK_STATE_AUTH_REQUIRED');
  assert.match(textOf(task.status.message), /needs scope deploy:production/);
  // Still the weak token: still AUTH_REQUIRED.
  const retry = await handler.sendMessage({ message: userMessage('yes', { taskId: task.id }) }, weak);
  assert.equal(retry.task?.status.state, 'TASK_STATE_AUTH_REQUIRED');
  const upgraded = await handler.sendMessage(
    { message: userMessage('here is my token', { taskId: task.id }) },
    strong,
  );
  assert.equal(upgraded.task?.status.state, 'TASK_STATE_INPUT_REQUIRED');
  assert.equal(
    textOf(upgraded.task?.status.message),
    `deploy payments-api@${repo.passing.slice(0, 7)} to production?`,
  );
  const done = await handler.sendMessage({ message: userMessage('yes', { taskId: task.id }) }, strong);
  assert.equal(done.task?.status.state, 'TASK_STATE_COMPLETED');
  assert.equal(await readlink(join(dataDir, 'releases', 'production', 'current')), repo.passing);
});

test('the deployer server enforces bearer tokens over HTTP', async (t) => {
  const repo = await sampleRepo(t);
  const dataDir = join(repo.root, 'deployer');
  const server = createA2AServer({
    agent: createDeployerExecutor({ dataDir }),
    card: deployerCard,
    store: 'memory',
    authenticate: demoTokenAuthenticate,
  });
  const { url } = await server.listen(0, '127.0.0.1');
  const staging = await A2AClient.connect(url, { auth: { bearer: DEMO_TOKEN } });
  const production = await A2AClient.connect(url, { auth: { bearer: DEMO_PRODUCTION_TOKEN } });
  t.after(async () => {
    await staging.close();
    await production.close();
    await server.close();
  });
  const send = (headers: Record<string, string>) =>
    fetch(`${url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: userMessage(`deploy payments-api ${repo.path} passing staging`) },
      }),
    });

  // No token, or an unknown one: refused with the Bearer challenge, and nothing deployed.
  // Issue 27, finding 8: names an object inherits are not tokens.
  const attempts: Record<string, string>[] = [
    {},
    { authorization: 'Bearer not-a-demo-token' },
    ...['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'].map((name) => ({
      authorization: `Bearer ${name}`,
    })),
  ];
  for (const headers of attempts) {
    const refused = await send(headers);
    assert.equal(refused.status, 401);
    assert.match(refused.headers.get('www-authenticate') ?? '', /^Bearer realm="a2a-kit demo deployer"/);
    await refused.body?.cancel();
  }
  assert.deepEqual(await deployments(dataDir), []);

  // The staging token: a production deploy is AUTH_REQUIRED; the production token on the same
  // task upgrades it to the confirmation question, and yes deploys.
  const asked = await staging.send({
    data: { service: 'payments-api', repo: repo.path, commit: 'passing', env: 'production' },
  });
  const task = asked.kind === 'task' ? asked.task : undefined;
  assert.equal(task?.status.state, 'TASK_STATE_AUTH_REQUIRED');
  const upgraded = await production.send({ taskId: task!.id, text: 'here is a stronger token' });
  assert.equal(upgraded.kind === 'task' && upgraded.task.status.state, 'TASK_STATE_INPUT_REQUIRED');
  const done = await production.send({ taskId: task!.id, text: 'yes' });
  assert.equal(done.kind === 'task' && done.task.status.state, 'TASK_STATE_COMPLETED');
  assert.equal(await readlink(join(dataDir, 'releases', 'production', 'current')), repo.passing);
});
