/**
 * `a2a push deliveries` and `a2a push replay` as real processes, reading the SQLite store of a
 * running server: a notification the receiver refused is dead and listed with its attempt; the
 * replay makes it pending again and the server's worker delivers it once the receiver answers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { A2AClient } from '../../src/client/client.js';
import { runCli } from '../support/cli.js';
import { LOOPBACK_PUSH, pushAgent, startPushServer, startWebhook, until } from '../server/push/support.js';

interface DeliveryLine {
  kind: string;
  pushDelivery: {
    id: string;
    taskId: string;
    state: string;
    attempts: number | unknown[];
    lastError?: string;
  };
}

const deliveries = (stdout: string): DeliveryLine['pushDelivery'][] =>
  stdout
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => (JSON.parse(l) as DeliveryLine).pushDelivery);

test('a2a push deliveries lists a dead delivery from the store; a2a push replay sends it again', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-push-ops-'));
  const store = `sqlite:${join(dir, 'a2a.sqlite')}` as const;
  let accept = false;
  let refusals = 0;
  const hook = await startWebhook(() => (accept ? 200 : (refusals++, 500)));
  const { agent } = pushAgent();
  const { server, url } = await startPushServer(
    agent,
    { ...LOOPBACK_PUSH, maxAttempts: 1, pollMs: 100, signingKey: false },
    { store },
  );
  const client = await A2AClient.connect(url);
  t.after(async () => {
    client.close();
    await server.close();
    await hook.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const reply = await client.send({
    text: 'steps:0',
    pushNotificationConfig: { url: hook.url, id: 'ops' },
  });
  assert.equal(reply.kind, 'task');
  const taskId = reply.kind === 'task' ? reply.task.id : '';

  // Each notification gets one attempt, answered 500: all of them end dead. The CLI is asked
  // once the receiver has refused one (the worker settles it right after).
  await until(() => refusals > 0, 'the receiver to refuse a notification');
  let dead: DeliveryLine['pushDelivery'][] = [];
  for (let i = 0; i < 10 && dead.length === 0; i++) {
    const listed = await runCli(['push', 'deliveries', '--store', store, '--state', 'dead', '--json']);
    assert.equal(listed.code, 0, listed.stderr);
    dead = deliveries(listed.stdout);
    if (dead.length === 0) await new Promise((r) => setTimeout(r, 300));
  }
  assert.ok(dead.length > 0, 'the refused notification is listed as dead');
  const first = dead[dead.length - 1]!;
  assert.equal(first.taskId, taskId);
  assert.equal(first.state, 'dead');
  assert.match(first.lastError ?? '', /500/);
  assert.equal(hook.received.length, 0);

  const withAttempts = await runCli(['push', 'deliveries', '--store', store, '--task', taskId, '--attempts']);
  assert.equal(withAttempts.code, 0, withAttempts.stderr);
  assert.match(withAttempts.stdout, new RegExp(`${first.id} .*dead.*task ${taskId}`));
  assert.match(withAttempts.stdout, /ms {2}.*500/, 'the attempt and its answer are shown');

  accept = true;
  const replayed = await runCli(['push', 'replay', first.id, '--store', store]);
  assert.equal(replayed.code, 0, replayed.stderr);
  assert.match(replayed.stdout, /pending again/);
  await until(() => hook.received.length > 0, 'the replayed notification to arrive');
  assert.equal(hook.received[0]!.headers['x-a2a-notification-id'], first.id);

  const again = await runCli(['push', 'replay', first.id, '--store', store]);
  assert.equal(again.code, 1, 'a delivered notification cannot be replayed');
  assert.match(
    again.stderr,
    /^a2a: push delivery .* is (pending|delivered): only a dead one can be replayed\n$/,
  );
});

test('a2a push deliveries: bad input is one line with the usage exit code', async () => {
  const memory = await runCli(['push', 'deliveries', '--store', 'memory']);
  assert.equal(memory.code, 2);
  assert.match(memory.stderr, /memory outbox lives inside its server process/);
  const badState = await runCli([
    'push',
    'deliveries',
    '--store',
    'sqlite:/nonexistent-dir-a2a/x.sqlite',
    '--state',
    'lost',
  ]);
  assert.equal(badState.code, 2, badState.stderr);
  const badLimit = await runCli(['push', 'deliveries', '--store', 'memory', '--limit', '0']);
  assert.equal(badLimit.code, 2);
  const notAStore = await runCli(['push', 'replay', 'x', '--store', 'redis://nope']);
  assert.equal(notAStore.code, 2);
  assert.match(notAStore.stderr, /use sqlite:<path> or a postgres:\/\/ URL/);
});
