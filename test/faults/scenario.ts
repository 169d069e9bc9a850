/**
 * The fault suite's scenario (its invariants are in invariants.ts). One scenario passes the
 * write points of a task's life: a direct reply, a streaming send with a push config, a
 * multi-turn INPUT_REQUIRED task and its follow-up, a send refused before any event, a push
 * config made and deleted, and a page of ListTasks (the page-token secret). Every step has a
 * fixed messageId (or is repeatable as it is), so the steps can be sent again after a crash.
 * {@link Journal} keeps what the client was told.
 */
import { randomUUID } from 'node:crypto';
import { A2AClient, type ConnectedA2AClient } from '../../src/client/client.js';
import { toStreamResponse, type StreamEvent } from '../../src/client/stream-events.js';
import type { BindingName } from '../../src/client/binding-selection.js';
import { InvalidParamsError } from '../../src/errors/a2a-error.js';
import type { TaskState } from '../../src/model/enums.js';
import type { StreamResponse, Task } from '../../src/model/schema.js';
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

/**
 * The server options of the suite's processes (the faulted one and its restart or its fellow
 * replica). `interruptedTimeoutMs`: how long the `ask` task may wait for its answer (the
 * default hour unless a case checks the bounded wait).
 */
export function faultServerOptions(
  store: StoreSpec,
  leaseMs: number,
  interruptedTimeoutMs?: number,
): A2AServerOptions {
  return {
    agent: faultAgent,
    card: FAULT_AGENT_CARD,
    store,
    ...(interruptedTimeoutMs !== undefined ? { interruptedTimeoutMs } : {}),
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
  /** Every task event and result the client was sent, as sent (each must be in the store). */
  seen: StreamResponse[];
  /** `configs`: the extra config was made and its deletion acknowledged. */
  deleted?: boolean;
  /** `list`: the page token the client was given (signed with the store's secret). */
  pageToken?: string;
}

/** What the client was told, by step. */
export type Journal = Record<StepName, Told>;

export type StepName = 'reply' | 'work' | 'ask' | 'answer' | 'refuse' | 'configs' | 'list';
/** In order; steps added later go last, so the hits of the earlier points keep their numbers. */
export const STEPS: readonly StepName[] = ['reply', 'work', 'ask', 'answer', 'refuse', 'configs', 'list'];

/** The push config the `configs` step makes on the work task and deletes again. */
export const EXTRA_CONFIG = 'extra';

/** A journal of nothing told (no step sent). */
export function emptyJournal(): Journal {
  const journal = {} as Journal;
  for (const step of STEPS) journal[step] = { states: [], artifacts: [], seen: [] };
  return journal;
}

function note(told: Told, task: Task): void {
  told.seen.push({ task });
  told.taskId = task.id;
  told.states.push(task.status.state);
  for (const artifact of task.artifacts ?? []) {
    if (!told.artifacts.includes(artifact.artifactId)) told.artifacts.push(artifact.artifactId);
  }
}

function noteEvent(told: Told, event: StreamEvent): void {
  if (event.kind === 'task') return note(told, event.task);
  if (event.kind === 'message') {
    told.reply = event.message.parts[0]?.text ?? '';
    return;
  }
  told.seen.push(toStreamResponse(event));
  if (event.kind === 'statusUpdate') {
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
      seen: [...a.seen, ...b.seen],
    };
    const reply = a.reply ?? b.reply;
    const taskId = a.taskId ?? b.taskId;
    const pageToken = a.pageToken ?? b.pageToken;
    if (reply !== undefined) told.reply = reply;
    if (taskId !== undefined) told.taskId = taskId;
    if (pageToken !== undefined) told.pageToken = pageToken;
    if (a.deleted === true || b.deleted === true) told.deleted = true;
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
 * step that fails (the server died) ends it. `beforeStep` is called as each step is sent (a
 * disturbance timed by the scenario). Returns what the client was told.
 */
export async function runScenario(
  url: string,
  prefix: string,
  webhook: string,
  before?: Journal,
  beforeStep?: (step: StepName) => void,
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
    await runSteps(client, prefix, webhook, journal, beforeStep);
  } finally {
    await client.close().catch(() => {});
  }
  return journal;
}

async function runSteps(
  client: ConnectedA2AClient,
  prefix: string,
  webhook: string,
  journal: Journal,
  beforeStep: ((step: StepName) => void) | undefined,
) {
  for (const step of STEPS) {
    const told = journal[step];
    beforeStep?.(step);
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
  if (step === 'configs') {
    // Repeatable as it is: a config id names the config, and deleting is idempotent (G7).
    const taskId = journal.work.taskId;
    if (!taskId) throw new Error('no task to configure');
    await client.createTaskPushNotificationConfig({ taskId, id: EXTRA_CONFIG, url: `${webhook}?extra` });
    await client.deleteTaskPushNotificationConfig(taskId, EXTRA_CONFIG);
    told.deleted = true;
    return;
  }
  if (step === 'list') {
    const page = await client.listTasks({ pageSize: 1 });
    if (page.nextPageToken) told.pageToken = page.nextPageToken;
    return;
  }
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
