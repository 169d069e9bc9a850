/**
 * Crash recovery: a server process is killed (SIGKILL) while its agent runs; the next server on
 * the same store finds the expired lease, fails the task with a "worker lost" message, and
 * every event a client saw streamed before the kill is in the task.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { A2AClient } from '../../src/client/client.js';
import { TaskState } from '../../src/model/enums.js';
import { createA2AServer } from '../../src/server/http.js';
import type { StoreSpec } from '../../src/core/stores/open.js';
import { exitCode, isRunning, waitForLine } from '../support/cli.js';
import { callAs, TEST_CARD, testExecutor } from '../support/handler.js';
import { dropSchema, freshSchema, postgresUrl } from '../support/postgres.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LEASE_MS = 400;

async function crashAndRecover(t: { after: (fn: () => unknown) => void }, store: StoreSpec): Promise<void> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/support/lease-child.ts', store, String(LEASE_MS)],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  t.after(() => {
    if (isRunning(child)) child.kill('SIGKILL');
  });
  const [, url] = await waitForLine(child, /^listening (\S+)$/m);
  const client = await A2AClient.connect(url!);
  const seen: string[] = [];
  let taskId = '';
  for await (const event of client.stream({ text: 'work' })) {
    if (event.kind === 'task') {
      taskId = event.task.id;
      seen.push(`task:${event.task.status.state}`);
    }
    if (event.kind === 'statusUpdate') seen.push(`status:${event.statusUpdate.status.state}`);
    if (event.kind === 'artifactUpdate') {
      seen.push(`artifact:${event.artifactUpdate.artifact.parts[0]?.text}`);
      break;
    }
  }
  assert.ok(taskId);
  child.kill('SIGKILL');
  await exitCode(child);

  const next = createA2AServer({
    agent: testExecutor,
    card: TEST_CARD,
    store,
    recovery: { leaseMs: LEASE_MS, heartbeatMs: 50 },
  });
  t.after(() => next.close());
  await next.listen(0, '127.0.0.1');
  const ctx = callAs('anonymous');
  let task = await next.handler.getTask({ id: taskId }, ctx);
  // Every event the client saw before the kill is in the stored task.
  assert.deepEqual(seen, ['task:TASK_STATE_WORKING', 'artifact:half done']);
  assert.equal(task.artifacts?.[0]?.parts[0]?.text, 'half done');
  for (let i = 0; i < 200 && task.status.state === TaskState.WORKING; i++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    task = await next.handler.getTask({ id: taskId }, ctx);
  }
  assert.equal(task.status.state, TaskState.FAILED);
  assert.match(task.status.message?.parts[0]?.text ?? '', /worker running this task was lost/);
}

test(
  'SQLite: a task whose process was killed is failed by the next start',
  { timeout: 60_000 },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-recovery-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    await crashAndRecover(t, `sqlite:${join(dir, 'a2a.sqlite')}`);
  },
);

test(
  'PostgreSQL: a task whose replica was killed is failed by another replica',
  { timeout: 60_000 },
  async (t) => {
    const schema = freshSchema('recovery');
    t.after(() => dropSchema(schema));
    const url = new URL(postgresUrl());
    url.searchParams.set('schema', schema);
    await crashAndRecover(t, url.toString() as StoreSpec);
  },
);
