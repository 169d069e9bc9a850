/**
 * Issue 26, defect 5: on PostgreSQL the INPUT_REQUIRED wait of a task whose replica died for
 * good is enforced by a surviving replica. The survivor starts first (so the task is not among
 * the waits it read at start); the other replica, a process of its own, leaves the task
 * waiting and is killed with SIGKILL; the survivor fails the task once its wait is over.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { A2AClient } from '../../src/client/client.js';
import { createA2AServer } from '../../src/server/http.js';
import { exitCode, isRunning, waitForLine } from '../support/cli.js';
import { INTERRUPTING_AGENT, INTERRUPTING_CARD } from '../support/interrupting-agent.js';
import { dropSchema, freshSchema, postgresUrl } from '../support/postgres.js';
import { until } from '../server/push/support.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TIMEOUT_MS = 1000;

test('defect 5 (PostgreSQL): a surviving replica fails the INPUT_REQUIRED task of a replica killed for good', async (t) => {
  const schema = freshSchema('interrupted_replicas');
  const cleanup: (() => unknown)[] = [() => dropSchema(schema)];
  t.after(async () => {
    for (const step of cleanup.reverse()) await step();
  });
  const store = `${postgresUrl()}?schema=${schema}` as `postgres://${string}`;
  const survivor = createA2AServer({
    agent: INTERRUPTING_AGENT,
    card: INTERRUPTING_CARD,
    store,
    interruptedTimeoutMs: TIMEOUT_MS,
  });
  const { url: survivorUrl } = await survivor.listen(0, '127.0.0.1');
  cleanup.push(() => survivor.close());

  const doomed = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/support/interrupted-child.ts', store, String(TIMEOUT_MS)],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  cleanup.push(() => (isRunning(doomed) ? doomed.kill('SIGKILL') : undefined));
  const [, doomedUrl] = await waitForLine(doomed, /^listening (\S+)$/m);
  const toDoomed = await A2AClient.connect(doomedUrl!);
  const reply = await toDoomed.send({ text: 'start' });
  await toDoomed.close();
  assert.equal(reply.kind, 'task');
  const taskId = reply.kind === 'task' ? reply.task.id : '';
  assert.equal(reply.kind === 'task' && reply.task.status.state, 'TASK_STATE_INPUT_REQUIRED');
  doomed.kill('SIGKILL');
  await exitCode(doomed);

  const client = await A2AClient.connect(survivorUrl);
  cleanup.push(() => client.close());
  assert.equal((await client.getTask(taskId)).status.state, 'TASK_STATE_INPUT_REQUIRED');
  let state = '';
  await until(
    async () => (state = (await client.getTask(taskId)).status.state) !== 'TASK_STATE_INPUT_REQUIRED',
    'the survivor to end the wait',
    30_000,
  );
  const task = await client.getTask(taskId);
  assert.equal(state, 'TASK_STATE_FAILED');
  const text = task.status.message?.parts.map((part) => part.text ?? '').join('') ?? '';
  assert.match(text, /waited for input .* longer than this server allows/);
});
