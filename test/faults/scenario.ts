/**
 * The fault suite's scenario and invariants. One scenario passes the write points of a task's
 * life: a direct reply, a streaming send with a push config, a multi-turn INPUT_REQUIRED task
 * and its follow-up, and a send refused before any event. Every step has a fixed messageId, so
 * the steps can be sent again after a crash. {@link Journal} keeps what the client was told.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { A2AClient, type ConnectedA2AClient } from '../../src/client/client.js';
import type { StreamEvent } from '../../src/client/stream-events.js';
import type { BindingName } from '../../src/client/binding-selection.js';
import { InvalidParamsError } from '../../src/errors/a2a-error.js';
import { isTerminalState, TaskState } from '../../src/model/enums.js';
import type { Task } from '../../src/model/schema.js';
import type { AgentExecutor } from '../../src/core/executor.js';
import type { A2AServerOptions } from '../../src/server/http.js';
import type { StoreSpec } from '../../src/core/stores/open.js';

export const FAULT_AGENT_CARD: A2AServerOptions['card'] = {
  name: 'fault suite',
  description: 'replies, works, asks, refuses, hangs',
  version: '1.0.0',
  skills: [{ id: 'all', name: 'all', description: 'every kind of answer', tags: ['test'] }],
};

/** The agent of the scenario (see fault-server.ts). */
export const faultAgent: AgentExecutor = {
  execute: async (ctx, task) => {
    const text = ctx.text;
    if (text === 'reply') return task.reply(`pong ${randomUUID()}`);
    if (text === 'refuse') throw new InvalidParamsError('refused before any event');
    if (text === 'ask') return task.requireInput('which one?');
    if (text === 'silent') {
      // Never answers and ignores its signal: only the server's stop ends the call.
      process.stdout.write('silent agent started\n');
      return new Promise<void>(() => {});
    }
    if (text === 'answer') {
      await task.artifact({ artifactId: 'answer', name: 'answer', text: 'answered' });
      return task.complete();
    }
    await task.working('started');
    // The WORKING task is on disk before its next events (written in another batch).
    if (text === 'durable') await task.written();
    if (text === 'hang') {
      await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
      return;
    }
    await task.artifact({ artifactId: 'result', name: 'result', text: 'done' });
    await task.complete();
  },
};

/** The server options of the suite's processes (the faulted one and its restart). */
export function faultServerOptions(store: StoreSpec, leaseMs: number): A2AServerOptions {
  return {
    agent: faultAgent,
    card: FAULT_AGENT_CARD,
    store,
    recovery: { leaseMs, heartbeatMs: Math.max(10, Math.floor(leaseMs / 4)) },
    closeGraceMs: 200,
    pushNotifications: true,
    // A delivery in flight when a process dies waits for its lease (longer than the POST's
    // timeout) before it is sent again.
    push: {
      allowHosts: ['127.0.0.1'],
      allowHttp: true,
      baseDelayMs: 10,
      maxDelayMs: 50,
      timeoutMs: 300,
      connectTimeoutMs: 300,
      leaseMs: 450,
    },
  };
}

/** What the client was told for one step. */
export interface Told {
  /** A direct reply's text. */
  reply?: string;
  taskId?: string;
  /** The states the client was told, in order. */
  states: TaskState[];
  /** Artifact ids the client was told of. */
  artifacts: string[];
  /** The error the step ended with (a crash: the connection broke). */
  error?: string;
}

/** What the client was told, by step. */
export type Journal = Record<StepName, Told>;

export type StepName = 'reply' | 'work' | 'ask' | 'answer' | 'refuse';
export const STEPS: readonly StepName[] = ['reply', 'work', 'ask', 'answer', 'refuse'];

/** A journal of nothing told (no step sent). */
export function emptyJournal(): Journal {
  const journal = {} as Journal;
  for (const step of STEPS) journal[step] = { states: [], artifacts: [] };
  return journal;
}

function note(told: Told, task: Task): void {
  told.taskId = task.id;
  told.states.push(task.status.state);
  for (const artifact of task.artifacts ?? []) {
    if (!told.artifacts.includes(artifact.artifactId)) told.artifacts.push(artifact.artifactId);
  }
}

function noteEvent(told: Told, event: StreamEvent): void {
  if (event.kind === 'task') note(told, event.task);
  else if (event.kind === 'message') told.reply = event.message.parts[0]?.text ?? '';
  else if (event.kind === 'statusUpdate') {
    told.taskId = event.statusUpdate.taskId;
    told.states.push(event.statusUpdate.status.state);
  } else if (!told.artifacts.includes(event.artifactUpdate.artifact.artifactId)) {
    told.artifacts.push(event.artifactUpdate.artifact.artifactId);
  }
}

/** What the client was told in two runs: the first run's outcomes, else the second's. */
export function mergeJournals(first: Journal, second: Journal): Journal {
  const merged = emptyJournal();
  for (const step of STEPS) {
    const a = first[step];
    const b = second[step];
    const told: Told = {
      states: [...a.states, ...b.states],
      artifacts: [...new Set([...a.artifacts, ...b.artifacts])],
    };
    const reply = a.reply ?? b.reply;
    const taskId = a.taskId ?? b.taskId;
    if (reply !== undefined) told.reply = reply;
    if (taskId !== undefined) told.taskId = taskId;
    merged[step] = told;
  }
  return merged;
}

/** Connects without the client's own retries: the suite decides when to send again. */
export function connect(url: string, bindings?: BindingName[]): Promise<ConnectedA2AClient> {
  return A2AClient.connect(url, { retry: false, ...(bindings ? { bindings } : {}) });
}

/**
 * Runs the scenario's steps in order against `url` (messageIds `<prefix>-<step>`); the first
 * step that fails (the server died) ends it. Returns what the client was told.
 */
export async function runScenario(
  url: string,
  prefix: string,
  webhook: string,
  before?: Journal,
): Promise<Journal> {
  const journal = emptyJournal();
  // A second run knows the task a follow-up answers from the first.
  if (before?.ask.taskId) journal.ask.taskId = before.ask.taskId;
  let client: ConnectedA2AClient;
  try {
    client = await connect(url);
  } catch (error) {
    journal.reply.error = String(error);
    return journal;
  }
  try {
    await runSteps(client, prefix, webhook, journal);
  } finally {
    await client.close().catch(() => {});
  }
  return journal;
}

async function runSteps(client: ConnectedA2AClient, prefix: string, webhook: string, journal: Journal) {
  for (const step of STEPS) {
    const told = journal[step];
    try {
      await sendStep(client, prefix, webhook, step, journal);
    } catch (error) {
      told.error = error instanceof Error ? error.message : String(error);
      if (step === 'refuse' && /refused before any event/.test(told.error)) continue;
      return;
    }
  }
}

/** Sends one step (its first send, or a retry: the same messageId). */
export async function sendStep(
  client: ConnectedA2AClient,
  prefix: string,
  webhook: string,
  step: StepName,
  journal: Journal,
): Promise<void> {
  const told = journal[step];
  const messageId = `${prefix}-${step}`;
  if (step === 'work' || step === 'answer') {
    const taskId = step === 'answer' ? journal.ask.taskId : undefined;
    if (step === 'answer' && !taskId) throw new Error('no task to answer');
    const stream = client.stream({
      text: step,
      messageId,
      ...(taskId ? { taskId } : {}),
      ...(step === 'work' ? { pushNotificationConfig: { url: webhook, id: 'hook' } } : {}),
    });
    let n = 0;
    for await (const event of stream) {
      noteEvent(told, event);
      if (++n > 100) throw new Error('stream did not end after 100 events');
    }
    return;
  }
  const result = await client.send({ text: step, messageId });
  if (result.kind === 'message') told.reply = result.message.parts[0]?.text ?? '';
  else note(told, result.task);
}

/**
 * The invariants after a fault, checked against the restarted server at `url` once the lease
 * time has passed: every state and artifact the client was told of is in the store, no task
 * is left SUBMITTED or WORKING, and every step sent again gets its original outcome (or,
 * where nothing was recorded, runs) and never "retry later"; the streams of the retries end.
 */
export async function checkInvariants(
  url: string,
  prefix: string,
  webhook: string,
  told: Journal,
  listActive: () => Promise<Task[]>,
  received: () => readonly Record<string, unknown>[],
): Promise<Journal> {
  const client = await connect(url);
  try {
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
    const active = await listActive();
    assert.deepEqual(
      active.map((t) => `${t.id}:${t.status.state}`),
      [],
      'tasks left SUBMITTED or WORKING past the lease time',
    );
    // Every step again, with its messageId: the original outcome, or a first run.
    const again = emptyJournal();
    for (const step of STEPS) {
      if (step === 'answer' && !again.ask.taskId) continue;
      try {
        await sendStep(client, prefix, webhook, step, again);
      } catch (error) {
        const text = error instanceof Error ? error.message : String(error);
        if (step === 'refuse' && /refused before any event/.test(text)) continue;
        assert.fail(`${step}: the retry failed: ${text}`);
      }
      const before = told[step];
      const after = again[step];
      if (before.reply !== undefined) assert.equal(after.reply, before.reply, `${step}: another reply`);
      if (before.taskId !== undefined) assert.equal(after.taskId, before.taskId, `${step}: another task`);
    }
    const work = again.work.taskId;
    assert.ok(work, 'the work step has a task');
    await checkPush(client, work, received);
    return again;
  } finally {
    await client.close().catch(() => {});
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
