/**
 * The fault suite's invariants (issue 26), checked against a server on the faulted store once
 * the lease time has passed: what the client and the webhook were told is in the store, no
 * task is left SUBMITTED or WORKING, waits are bounded, every step sent again gets its
 * original outcome (or, where nothing was recorded, runs) and never "retry later", the
 * retries' streams end, and push delivered each durable event at least once, in order.
 */
import assert from 'node:assert/strict';
import type { ConnectedA2AClient } from '../../src/client/client.js';
import { isTerminalState, TaskState } from '../../src/model/enums.js';
import type { StreamResponse, Task } from '../../src/model/schema.js';
import { TaskNotFoundError } from '../../src/errors/a2a-error.js';
import { connect, emptyJournal, EXTRA_CONFIG, sendStep, STEPS, type Journal } from './scenario.js';

/** What the checks read from the server under test (in this process). */
export interface Observed {
  /** Tasks SUBMITTED or WORKING. */
  listActive(): Promise<Task[]>;
  /** Tasks INPUT_REQUIRED or AUTH_REQUIRED. */
  listWaiting(): Promise<Task[]>;
  /** The bodies the webhook received so far. */
  received(): readonly Record<string, unknown>[];
}

/**
 * Checks every invariant against the server at `url`. With `interruptedTimeoutMs` (the
 * servers' bound on a wait for input), a task left waiting must be ended by its bound.
 * Returns what the retries were told.
 */
export async function checkInvariants(
  url: string,
  prefix: string,
  webhook: string,
  told: Journal,
  observed: Observed,
  interruptedTimeoutMs?: number,
): Promise<Journal> {
  const client = await connect(url);
  try {
    await checkTold(client, told);
    const active = await observed.listActive();
    assert.deepEqual(
      active.map((t) => `${t.id}:${t.status.state}`),
      [],
      'tasks left SUBMITTED or WORKING past the lease time',
    );
    const waitsEnded =
      interruptedTimeoutMs === undefined
        ? new Set<string>()
        : await checkBoundedWaits(observed, interruptedTimeoutMs);
    const again = await sendAgain(client, prefix, webhook, told, waitsEnded);
    // A page token handed out before the fault still reads the next page.
    if (told.list.pageToken) await client.listTasks({ pageSize: 1, pageToken: told.list.pageToken });
    await checkCounts(client);
    const work = again.work.taskId;
    assert.ok(work, 'the work step has a task');
    await checkPush(client, work, observed.received);
    // Nothing was sent (streamed, answered or pushed) that the store does not hold.
    const ids = new Set(STEPS.flatMap((step) => [told[step].taskId, again[step].taskId]));
    const pushed = observed.received().filter((json) => ids.has(taskOf(json)));
    const seen = STEPS.flatMap((step) => [...told[step].seen, ...again[step].seen]);
    await checkStored(client, seen, 'told the client');
    await checkStored(client, pushed as StreamResponse[], 'pushed');
    return again;
  } finally {
    await client.close().catch(() => {});
  }
}

/**
 * Nothing half-written shows in the counts: each totalSize ListTasks reports is the number of
 * tasks it lists (all of a case's tasks fit one page).
 */
export async function checkCounts(client: ConnectedA2AClient): Promise<void> {
  const all = await client.listTasks({ pageSize: 100 });
  assert.equal(all.totalSize, all.tasks.length, 'ListTasks counts tasks that are not there');
  for (const status of [TaskState.WORKING, TaskState.INPUT_REQUIRED, TaskState.COMPLETED, TaskState.FAILED]) {
    const page = await client.listTasks({ pageSize: 100, status });
    assert.equal(page.totalSize, page.tasks.length, `ListTasks counts ${status} tasks that are not there`);
  }
}

/**
 * Every state and artifact the client was told of before the fault is in the store; the work
 * task's config, stored with its send, is there, and a config whose deletion was acknowledged
 * is not.
 */
async function checkTold(client: ConnectedA2AClient, told: Journal): Promise<void> {
  const work = told.work.taskId;
  if (work) await client.getTaskPushNotificationConfig(work, 'hook');
  if (work && told.configs.deleted) {
    await assert.rejects(
      client.getTaskPushNotificationConfig(work, EXTRA_CONFIG),
      TaskNotFoundError,
      'a push config whose deletion was acknowledged is back',
    );
  }
  for (const step of STEPS) {
    const before = told[step];
    if (!before.taskId) continue;
    const task = await client.getTask(before.taskId);
    for (const id of before.artifacts) {
      assert.ok(
        task.artifacts?.some((a) => a.artifactId === id),
        `${step}: artifact ${id} was streamed but is not in the store`,
      );
    }
    const last = before.states[before.states.length - 1];
    if (last !== undefined && isTerminalState(last)) {
      assert.equal(task.status.state, last, `${step}: the client was told ${last}`);
    }
    if (last === TaskState.INPUT_REQUIRED) {
      assert.ok(
        task.status.state === TaskState.INPUT_REQUIRED || isTerminalState(task.status.state),
        `${step}: told INPUT_REQUIRED, stored ${task.status.state}`,
      );
    }
  }
}

/**
 * A task waiting for input is ended once its wait is over (by the restarted server, or by
 * the surviving replica for a dead one's task): waits until each stored wait is over, plus
 * a scan interval and a second of slack, and fails on one still waiting then. Returns the
 * ids of the tasks ended so.
 */
async function checkBoundedWaits(observed: Observed, timeoutMs: number): Promise<Set<string>> {
  const grace = Math.max(250, timeoutMs / 4) + 1000;
  const ended = new Set<string>();
  const deadlineOf = (task: Task): number => Date.parse(task.status.timestamp ?? '') + timeoutMs + grace;
  // Bounded: each wait ends within timeoutMs + grace of now.
  for (let i = 0; i < 400; i++) {
    const waiting = await observed.listWaiting();
    const overdue = waiting.filter((task) => deadlineOf(task) < Date.now());
    assert.deepEqual(
      overdue.map((t) => `${t.id}:${t.status.state} since ${t.status.timestamp ?? '?'}`),
      [],
      `tasks still waiting ${grace} ms past their ${timeoutMs} ms bound`,
    );
    for (const task of waiting) ended.add(task.id);
    if (waiting.length === 0) return ended;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail('waits never ended');
}

/**
 * Every step again, with its messageId: the original outcome, or a first run. The follow-up
 * to a task whose wait ran out (`waitsEnded`) may be refused as sent to a terminal task.
 */
async function sendAgain(
  client: ConnectedA2AClient,
  prefix: string,
  webhook: string,
  told: Journal,
  waitsEnded: Set<string>,
): Promise<Journal> {
  const again = emptyJournal();
  for (const step of STEPS) {
    if (step === 'answer' && !again.ask.taskId) continue;
    try {
      await sendStep(client, prefix, webhook, step, again);
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      if (step === 'refuse' && /refused before any event/.test(text)) continue;
      if (step === 'answer' && waitsEnded.has(again.ask.taskId!) && /a terminal state/.test(text)) continue;
      assert.fail(`${step}: the retry failed: ${text}`);
    }
    const before = told[step];
    const after = again[step];
    if (before.reply !== undefined) assert.equal(after.reply, before.reply, `${step}: another reply`);
    if (before.taskId !== undefined) assert.equal(after.taskId, before.taskId, `${step}: another task`);
  }
  return again;
}

function textOf(parts: readonly unknown[] | undefined): string {
  return (parts ?? []).map((part) => (part as { text?: string }).text ?? '').join('');
}

/**
 * Each event (streamed, answered or pushed) refers to a change the store holds: its task
 * exists, its messages (the task's history, a status message) are in the task's history or
 * status, its artifact chunks are in the stored artifact, and a terminal state is the stored
 * one. A notification sent before its change was durable fails here after a crash.
 */
async function checkStored(client: ConnectedA2AClient, events: StreamResponse[], how: string): Promise<void> {
  const tasks = new Map<string, Task>();
  for (const event of events) {
    const id = event.task?.id ?? event.statusUpdate?.taskId ?? event.artifactUpdate?.taskId;
    if (id === undefined) continue;
    let stored = tasks.get(id);
    if (!stored) tasks.set(id, (stored = await client.getTask(id)));
    const messages = new Set([
      ...(stored.history ?? []).map((m) => m.messageId),
      ...(stored.status.message ? [stored.status.message.messageId] : []),
    ]);
    const what = `${how} ${JSON.stringify(event).slice(0, 300)}`;
    const status = event.task?.status ?? event.statusUpdate?.status;
    for (const message of [...(event.task?.history ?? []), ...(status?.message ? [status.message] : [])]) {
      assert.ok(messages.has(message.messageId), `${what}: message ${message.messageId} is not stored`);
    }
    if (status && isTerminalState(status.state)) {
      assert.equal(stored.status.state, status.state, `${what}: stored ${stored.status.state}`);
    }
    const artifacts = event.task?.artifacts ?? (event.artifactUpdate ? [event.artifactUpdate.artifact] : []);
    for (const artifact of artifacts) {
      const kept = stored.artifacts?.find((a) => a.artifactId === artifact.artifactId);
      assert.ok(kept, `${what}: artifact ${artifact.artifactId} is not stored`);
      assert.ok(textOf(kept.parts).includes(textOf(artifact.parts)), `${what}: stored ${textOf(kept.parts)}`);
    }
  }
}

/** `task:WORKING`, `status:COMPLETED`, `artifact:result`: what one notification says. */
function pushKind(json: Record<string, unknown>): string {
  const task = json.task as Task | undefined;
  if (task) return `status:${task.status.state}`;
  const status = json.statusUpdate as { status: { state: string } } | undefined;
  if (status) return `status:${status.status.state}`;
  const artifact = json.artifactUpdate as { artifact: { artifactId: string } } | undefined;
  return artifact ? `artifact:${artifact.artifact.artifactId}` : Object.keys(json).join(',');
}

function taskOf(json: Record<string, unknown>): string | undefined {
  const task = json.task as Task | undefined;
  if (task) return task.id;
  return (
    (json.statusUpdate as { taskId?: string } | undefined)?.taskId ??
    (json.artifactUpdate as { taskId?: string } | undefined)?.taskId
  );
}

/**
 * Push of the `work` task (the one with a config): each of its durable events (created
 * WORKING, its artifact if stored, its end as stored: COMPLETED, or FAILED by recovery)
 * reaches the webhook at least once, first in that order.
 */
async function checkPush(
  client: ConnectedA2AClient,
  taskId: string,
  received: () => readonly Record<string, unknown>[],
): Promise<void> {
  const stored = await client.getTask(taskId);
  const end = `status:${stored.status.state}`;
  const kinds = (): string[] =>
    received()
      .filter((json) => taskOf(json) === taskId)
      .map(pushKind);
  // Bounded: a delivery in flight at the crash is sent again once its lease ran out.
  for (let i = 0; i < 400 && !kinds().includes(end); i++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const seen = kinds();
  const expected = [
    `status:${TaskState.WORKING}`,
    ...(stored.artifacts?.some((a) => a.artifactId === 'result') ? ['artifact:result'] : []),
    end,
  ];
  const firsts = expected.map((kind) => seen.indexOf(kind));
  assert.ok(
    firsts.every((at, i) => at >= 0 && (i === 0 || at > firsts[i - 1]!)),
    `push of task ${taskId}: expected ${expected.join(' < ')} (first deliveries), got ${seen.join(', ')}`,
  );
}
