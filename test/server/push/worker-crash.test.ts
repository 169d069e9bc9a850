/**
 * Issue 26, defect 4: the push delivery worker never takes the process down. With a receiver
 * that answers 503 and retries due at once, deliveries cycle between settle and claim while
 * new tasks keep the store busy (SQLite with a slow disk; PostgreSQL); the server runs in its
 * own process, so the test sees its exit code and stderr. (The worker once died here of an
 * unhandled TypeError when a retry's settlement and its next claim shared a SQLite batch; since
 * claims run first in their batch that order is gone, and worker-claims.test.ts makes the
 * interleaving deterministic.) Also: after a receiver outage every notification still arrives,
 * in order.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { A2AClient } from '../../../src/client/client.js';
import { exitCode, isRunning, waitForLine } from '../../support/cli.js';
import { dropSchema, freshSchema, postgresUrl } from '../../support/postgres.js';
import { kindOf, startWebhook, until, type Received } from './support.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Starts the child server on a fresh SQLite file; its stderr is collected in `stderr()`. */
async function startChild(t: TestContext, baseDelayMs: number, syncDelayMs = 0, store?: string) {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-push-crash-'));
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'test/support/push-retry-child.ts',
      store ?? join(dir, 'a2a.sqlite'),
      String(baseDelayMs),
      String(syncDelayMs),
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  t.after(() => {
    if (isRunning(child)) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  const [, url] = await waitForLine(child, /^listening (\S+)$/m);
  return { child, url: url!, stderr: () => stderr };
}

async function retryStorm(t: TestContext, store?: string): Promise<void> {
  let attempts = 0;
  const hook = await startWebhook((n) => {
    attempts = n + 1;
    return 503;
  });
  t.after(() => hook.close());
  const server = await startChild(t, 1, 15, store);
  const client = await A2AClient.connect(server.url);
  t.after(() => client.close());
  // New tasks keep the disk busy (their saves wait for a sync, and the claims and settlements
  // queued meanwhile share the next batch) while every delivery cycles between settle and claim.
  let sent = 0;
  while (sent < 400 && (attempts < 1500 || sent < 20) && isRunning(server.child)) {
    await Promise.all(
      Array.from({ length: 4 }, () =>
        client.send({ text: 'steps:1', pushNotificationConfig: { url: hook.url } }).catch(() => undefined),
      ),
    );
    sent += 4;
  }
  await until(() => attempts >= 1500 || !isRunning(server.child), '1500 failed attempts', 60_000);
  assert.ok(isRunning(server.child), `the server died: ${server.stderr()}`);
  server.child.kill('SIGTERM');
  const code = await exitCode(server.child);
  assert.equal(code, 0, `exit code (stderr: ${server.stderr()})`);
  assert.doesNotMatch(server.stderr(), /unhandled|TypeError|push outbox error/i);
}

test('defect 4 (SQLite, slow disk): a 503 receiver with retries due at once never crashes the server process', (t) =>
  retryStorm(t));

test('defect 4 (PostgreSQL): a 503 receiver with retries due at once never crashes the server process', async (t) => {
  const schema = freshSchema('push_crash');
  try {
    await retryStorm(t, `${postgresUrl()}?schema=${schema}`);
  } finally {
    t.after(() => dropSchema(schema)); // after the child and the receiver are gone
  }
});

test('defect 4: after a receiver outage every notification arrives, each task in order', async (t) => {
  // The outage: the receiver answers 503 until enough attempts failed, then 200.
  let attempts = 0;
  let down = true;
  const hook = await startWebhook((n) => {
    attempts = n + 1;
    return down ? 503 : 200;
  });
  t.after(() => hook.close());
  const server = await startChild(t, 5, 15);
  const client = await A2AClient.connect(server.url);
  t.after(() => client.close());
  const taskIds: string[] = [];
  for (let i = 0; i < 12; i++) {
    const reply = await client.send({ text: 'steps:2', pushNotificationConfig: { url: hook.url } });
    assert.equal(reply.kind, 'task');
    if (reply.kind === 'task') taskIds.push(reply.task.id);
  }
  await until(() => attempts >= 400 || !isRunning(server.child), '400 failed attempts', 60_000);
  down = false;
  // Bounded well below the lease (120 s): a delivery whose answer was lost would stall past it.
  await until(
    () => hook.received.length >= taskIds.length * 4 || !isRunning(server.child),
    'every notification after the outage',
    60_000,
  );
  assert.ok(isRunning(server.child), `the server died: ${server.stderr()}`);
  const byTask = new Map<string, string[]>();
  for (const r of hook.received as Received[]) {
    const id = taskIdOf(r.json);
    byTask.set(id, [...(byTask.get(id) ?? []), kindOf(r.json)]);
  }
  for (const id of taskIds) {
    assert.deepEqual(byTask.get(id), ['task:WORKING', 'artifact:a0', 'artifact:a1', 'status:COMPLETED'], id);
  }
  server.child.kill('SIGTERM');
  assert.equal(await exitCode(server.child), 0, server.stderr());
});

function taskIdOf(json: Record<string, unknown>): string {
  const inner = (json.task ?? json.statusUpdate ?? json.artifactUpdate) as { id?: string; taskId?: string };
  return String(inner.taskId ?? inner.id);
}
