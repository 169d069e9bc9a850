/**
 * Resumable executors (issue 10): a task cut off while its agent ran (the process killed, or
 * the server closed) is handed back to the agent on the next start, with `context.resumed` and
 * the stored task, instead of being failed.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { A2AClient } from '../../src/client/client.js';
import type { AgentExecutor, RequestContext } from '../../src/core/executor.js';
import { TaskState } from '../../src/model/enums.js';
import type { Task } from '../../src/model/schema.js';
import { createA2AServer, type A2AServer } from '../../src/server/http.js';
import type { StoreSpec } from '../../src/core/stores/open.js';
import { exitCode, isRunning, waitForLine } from '../support/cli.js';
import { callAs, TEST_CARD } from '../support/handler.js';
import { dropSchema, freshSchema, postgresUrl } from '../support/postgres.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LEASE_MS = 400;

function sqliteFile(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-resume-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return `sqlite:${join(dir, 'a2a.sqlite')}`;
}

/** A resumable agent: a fresh task works until stopped; a resumed one completes, citing what it found. */
function resumingAgent(seen: RequestContext[]): AgentExecutor {
  return {
    resumable: true,
    async execute(ctx, task) {
      seen.push(ctx);
      if (ctx.resumed) {
        const found = ctx.task?.artifacts?.[0]?.parts[0]?.text ?? 'nothing';
        return task.complete(`resumed after "${found}"`);
      }
      await task.working('started');
      await task.artifact({ artifactId: 'progress', name: 'progress', text: 'half done' });
      await new Promise<void>((resolve) => {
        if (ctx.signal.aborted) resolve();
        ctx.signal.addEventListener('abort', () => resolve(), { once: true });
      });
    },
  };
}

async function startServer(t: TestContext, store: string, agent: AgentExecutor): Promise<A2AServer> {
  const server = createA2AServer({
    agent,
    card: TEST_CARD,
    store: store as StoreSpec,
    recovery: { leaseMs: LEASE_MS, heartbeatMs: 50 },
  });
  t.after(() => server.close());
  await server.listen(0, '127.0.0.1');
  return server;
}

async function settled(server: A2AServer, taskId: string): Promise<Task> {
  const ctx = callAs('anonymous');
  let task = await server.handler.getTask({ id: taskId }, ctx);
  for (let i = 0; i < 400 && task.status.state === TaskState.WORKING; i++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    task = await server.handler.getTask({ id: taskId }, ctx);
  }
  return task;
}

/** Kills a server process mid-task, then checks the next start on `store` resumes the task. */
async function killAndResume(t: TestContext, store: string): Promise<void> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/support/lease-child.ts', store, String(LEASE_MS), 'resumable'],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  t.after(() => {
    if (isRunning(child)) child.kill('SIGKILL');
  });
  const [, url] = await waitForLine(child, /^listening (\S+)$/m);
  const client = await A2AClient.connect(url!);
  let taskId = '';
  for await (const event of client.stream({ text: 'work' })) {
    if (event.kind === 'task') taskId = event.task.id;
    if (event.kind === 'artifactUpdate') break;
  }
  await client.close();
  child.kill('SIGKILL');
  await exitCode(child);

  const seen: RequestContext[] = [];
  const next = await startServer(t, store, resumingAgent(seen));
  const task = await settled(next, taskId);
  assert.equal(task.status.state, TaskState.COMPLETED);
  assert.equal(task.artifacts?.at(-1)?.parts[0]?.text, 'resumed after "half done"');
  assert.equal(seen.length, 1);
  assert.equal(seen[0]!.resumed, true);
  assert.equal(seen[0]!.taskId, taskId);
  assert.equal(seen[0]!.text, 'work', "the context carries the task's latest user message");
  assert.equal(seen[0]!.principal.id, 'anonymous');
}

test('SQLite: a resumable task whose process was killed is handed back to the agent by the next start', async (t) => {
  await killAndResume(t, sqliteFile(t));
});

test('PostgreSQL: a resumable task whose replica was killed is handed back by another replica', async (t) => {
  const schema = freshSchema('resume');
  t.after(() => dropSchema(schema));
  const url = new URL(postgresUrl());
  url.searchParams.set('schema', schema);
  await killAndResume(t, url.toString());
});

test('a server that closes while a resumable agent runs leaves the task for the next start', async (t) => {
  const store = sqliteFile(t);
  const first: RequestContext[] = [];
  const server = await startServer(t, store, resumingAgent(first));
  const ctx = callAs('anonymous');
  const reply = await server.handler.sendMessage(
    {
      message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'work' }] },
      configuration: { returnImmediately: true },
    },
    ctx,
  );
  assert.ok('task' in reply && reply.task);
  const taskId = reply.task.id;
  for (let i = 0; i < 200; i++) {
    const task = await server.handler.getTask({ id: taskId }, ctx);
    if (task.artifacts?.length) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await server.close();

  const seen: RequestContext[] = [];
  const next = await startServer(t, store, resumingAgent(seen));
  // Not failed by the close: still WORKING until the next start's agent completes it.
  const task = await settled(next, taskId);
  assert.equal(task.status.state, TaskState.COMPLETED);
  assert.equal(task.artifacts?.at(-1)?.parts[0]?.text, 'resumed after "half done"');
  assert.deepEqual(
    seen.map((c) => c.resumed),
    [true],
  );
});

test('without resumable, a close still fails the unfinished task (server stopped)', async (t) => {
  const store = sqliteFile(t);
  const agent = resumingAgent([]);
  const server = await startServer(t, store, { execute: agent.execute });
  const ctx = callAs('anonymous');
  const reply = await server.handler.sendMessage(
    {
      message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'work' }] },
      configuration: { returnImmediately: true },
    },
    ctx,
  );
  assert.ok('task' in reply && reply.task);
  await server.close();
  const next = await startServer(t, store, agent);
  const task = await next.handler.getTask({ id: reply.task.id }, ctx);
  assert.equal(task.status.state, TaskState.FAILED);
  assert.match(task.status.message?.parts[0]?.text ?? '', /server stopped/);
});
