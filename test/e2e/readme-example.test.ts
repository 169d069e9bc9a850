/** The README's two examples, run as written (imports point at src instead of the package). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { A2AClient } from '../../src/client/index.js';
import { createA2AServer, type AgentExecutor } from '../../src/server/index.js';

test('README: publish an agent, then call it', async (t) => {
  const agent: AgentExecutor = {
    async execute(ctx, task) {
      if (!ctx.text) return task.requireInput('Which repository?');
      await task.working('running the tests');
      await task.artifact({ name: 'summary.json', data: { passed: 42, failed: 0 } });
      await task.complete();
    },
  };
  const server = createA2AServer({
    agent,
    card: {
      name: 'test-runner',
      description: "Runs a repository's unit tests at a commit",
      version: '1.0.0',
      skills: [{ id: 'run-tests', name: 'Run tests', description: 'Runs the suite', tags: ['ci'] }],
    },
    grpc: { port: 0 },
  });
  const { url } = await server.listen(0, '127.0.0.1');
  t.after(() => server.close());

  const runner = await A2AClient.connect(url, { auth: { bearer: 'token' } });
  t.after(() => runner.close());
  const reply = await runner.send({
    text: 'run the tests',
    data: { repo: 'payments-api', commit: '9f3c2e1' },
  });
  assert.equal(reply.kind, 'task');
  if (reply.kind !== 'task') return;
  const done = await runner.waitForTask(reply.task.id, { deadline: 10_000 });
  assert.equal(done.status.state, 'TASK_STATE_COMPLETED');
  assert.deepEqual(done.artifacts?.[0]?.parts, [{ data: { passed: 42, failed: 0 } }]);
  assert.equal(done.artifacts?.[0]?.name, 'summary.json');

  // The task exists from the agent's first event (WORKING), so the stream opens with it.
  const kinds: string[] = [];
  for await (const event of runner.stream({ text: 'again' })) kinds.push(event.kind);
  assert.deepEqual(kinds, ['task', 'artifactUpdate', 'statusUpdate']);

  const question = await runner.send({ data: { repo: 'payments-api' } });
  assert.equal(question.kind === 'task' && question.task.status.state, 'TASK_STATE_INPUT_REQUIRED');
});

test('README: an agent can be just its execute function', async (t) => {
  const server = createA2AServer({
    agent: async (ctx, task) => task.complete(`you said ${ctx.text}`),
    card: {
      name: 'parrot',
      description: 'Repeats',
      version: '1.0.0',
      skills: [{ id: 'repeat', name: 'Repeat', description: 'Repeats', tags: ['demo'] }],
    },
  });
  const { url } = await server.listen(0, '127.0.0.1');
  t.after(() => server.close());
  const client = await A2AClient.connect(url);
  t.after(() => client.close());
  const reply = await client.send({ text: 'hi' });
  assert.equal(reply.kind, 'task');
  if (reply.kind !== 'task') return;
  assert.deepEqual(reply.task.artifacts?.[0]?.parts, [{ text: 'you said hi' }]);
});
