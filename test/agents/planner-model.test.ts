/**
 * The planner on a model: `a2a serve --agent planner --model-url URL --model NAME` (the real CLI)
 * against an OpenAI-compatible endpoint on loopback scripted to call the peers, and two peers
 * on loopback. The model is offered the peers as tools described by their cards; a peer's
 * question becomes the planner's INPUT_REQUIRED; the answer goes back to that peer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { A2AClient } from '../../src/client/client.js';
import { textOf } from '../../src/client/artifacts.js';
import { TaskState } from '../../src/model/enums.js';
import type { Task } from '../../src/model/schema.js';
import { isRunning, spawnCli, waitForLine } from '../support/cli.js';
import { serveAgent } from '../bridges/support.js';
import { startFakeOpenAI } from '../bridges/openai-fake.js';

test("the planner reads its peers' cards as tools and lets the model decide", async (t) => {
  const seen: { agent: string; text: string; data: unknown }[] = [];
  const runner = await serveAgent(
    {
      async execute(ctx, task) {
        seen.push({ agent: 'test-runner', text: ctx.text, data: ctx.data });
        await task.complete({ name: 'summary.json', data: { passed: 12, failed: 0 } });
      },
    },
    {
      name: 'test-runner',
      description: 'Runs the unit tests of a repository at a commit.',
      version: '1.0.0',
      skills: [
        {
          id: 'run-tests',
          name: 'Run tests',
          description: 'Runs the tests; data {repo, commit}.',
          tags: ['ci'],
        },
      ],
    },
  );
  t.after(() => runner.close());
  const deployer = await serveAgent(
    {
      async execute(ctx, task) {
        seen.push({ agent: 'deployer', text: ctx.text, data: ctx.data });
        if (!ctx.task) return task.requireInput('Deploy to production? (yes/no)');
        return task.complete(ctx.text === 'yes' ? 'deployed' : 'not deployed');
      },
    },
    {
      name: 'deployer',
      description: 'Deploys a service to an environment.',
      version: '1.0.0',
      skills: [
        { id: 'deploy', name: 'Deploy', description: 'Deploys; data {repo, commit, env}.', tags: ['deploy'] },
      ],
    },
  );
  t.after(() => deployer.close());

  const lastToolTaskId = (messages: { role: string; content?: unknown }[]): string =>
    /\\?"taskId\\?":\s*\\?"([^"\\]+)/.exec(
      JSON.stringify(messages.filter((m) => m.role === 'tool').at(-1)),
    )?.[1] ?? '';
  const fake = await startFakeOpenAI([
    {
      tool: 'test-runner',
      arguments: JSON.stringify({ message: 'run the tests', data: { repo: 'r', commit: 'c' } }),
    },
    {
      tool: 'deployer',
      arguments: JSON.stringify({ message: 'deploy', data: { repo: 'r', commit: 'c', env: 'production' } }),
    },
    {
      tool: 'askUser',
      arguments: JSON.stringify({ question: 'The deployer asks: Deploy to production? (yes/no)' }),
    },
    (request) => ({
      tool: 'deployer',
      arguments: JSON.stringify({ message: 'yes', taskId: lastToolTaskId(request.messages) }),
    }),
    { text: ['Tests passed (12); ', 'deployed r@c to production.'] },
  ]);
  t.after(() => fake.close());

  const child = spawnCli([
    'serve',
    '--agent',
    'planner',
    '--port',
    '0',
    '--store',
    'memory',
    '--log-level',
    'silent',
    '--model-url',
    fake.baseURL,
    '--model',
    'tiny',
    '--test-runner-url',
    runner.url,
    '--deployer-url',
    deployer.url,
  ]);
  t.after(() => {
    if (isRunning(child)) child.kill('SIGTERM');
  });
  const [, url] = await waitForLine(child, /^a2a-kit: planner agent at (http:\/\/127\.0\.0\.1:\d+) /m);
  const planner = await A2AClient.connect(url!);
  t.after(() => planner.close());

  const asked = (await planner.send({ text: 'ship r at c to production' })) as { task: Task };
  assert.equal(asked.task.status.state, TaskState.INPUT_REQUIRED, textOf(asked.task.status.message));
  assert.match(textOf(asked.task.status.message), /Deploy to production\?/);

  // The model was offered the peers, described by their own cards.
  const tools = (fake.requests[0]!.tools ?? []) as { function: { name: string; description: string } }[];
  const byName = Object.fromEntries(tools.map((x) => [x.function.name, x.function.description]));
  assert.deepEqual(Object.keys(byName).sort(), ['askUser', 'deployer', 'test-runner']);
  assert.match(
    byName['test-runner']!,
    /Runs the unit tests of a repository at a commit\..*Run tests: Runs the tests/s,
  );
  assert.match(byName.deployer!, /Deploys a service to an environment\./);
  assert.equal(fake.requests[0]!.model, 'tiny');

  const done = (await planner.send({
    text: 'yes',
    taskId: asked.task.id,
    contextId: asked.task.contextId,
  })) as { task: Task };
  assert.equal(done.task.status.state, TaskState.COMPLETED, textOf(done.task.status.message));
  assert.equal(
    textOf(done.task.artifacts!.find((a) => a.artifactId === 'report')),
    'Tests passed (12); deployed r@c to production.',
  );
  assert.deepEqual(seen, [
    { agent: 'test-runner', text: 'run the tests', data: { repo: 'r', commit: 'c' } },
    { agent: 'deployer', text: 'deploy', data: { repo: 'r', commit: 'c', env: 'production' } },
    { agent: 'deployer', text: 'yes', data: undefined },
  ]);
});
