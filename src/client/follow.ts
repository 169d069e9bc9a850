/**
 * Following long work: polling a task until it settles ({@link waitForTask}) and reading its
 * events across dropped connections ({@link followEvents}, behind `streamResilient` and
 * `followTask`).
 */
import { A2AError } from '../errors/index.js';
import { A2ADeadlineError, A2ATimeoutError, A2ATransportError } from '../errors/client-errors.js';
import type { TaskState } from '../model/enums.js';
import { isInterruptedState, isTerminalState } from '../model/enums.js';
import type { Task } from '../model/schema.js';
import type { CallOptions } from '../bindings/transport.js';
import type { FollowOptions, WaitOptions } from './options.js';
import { backoff, isTransient, reconnectDelay, sleep } from './retry.js';
import { statusKey, statusOf, type StreamEvent } from './stream-events.js';

/** The calls {@link waitForTask} makes. */
export interface TaskPoller {
  getTask(taskId: string, options: CallOptions & { waitPastGeneration?: number | string }): Promise<Task>;
  cancelTask(taskId: string, options: CallOptions): Promise<Task>;
}

const settled = (state: TaskState) => isTerminalState(state) || isInterruptedState(state);

/**
 * Polls GetTask with capped exponential backoff and jitter until the task is terminal or
 * interrupted. When `deadline` passes the remote task is canceled and
 * {@link A2ADeadlineError} is thrown. `callTimeoutMs` caps each poll.
 */
export async function waitForTask(
  client: TaskPoller,
  taskId: string,
  options: WaitOptions,
  callTimeoutMs: number,
  longPoll = false,
): Promise<Task> {
  const started = Date.now();
  const deadlineAt = options.deadline !== undefined ? started + options.deadline : Infinity;
  let last: Task | undefined;
  for (let poll = 0; poll < (options.maxPolls ?? 10_000); poll++) {
    const remaining = deadlineAt - Date.now();
    if (remaining <= 0) break;
    // A2A 1.1 draft: with a generation known, the server holds the poll until the task changes.
    const previous = last;
    const waitPast = longPoll ? last?.generation : undefined;
    last = await client
      .getTask(taskId, {
        signal: options.signal,
        ...(waitPast !== undefined ? { waitPastGeneration: waitPast } : {}),
        ...(Number.isFinite(remaining) ? { timeoutMs: Math.max(1, Math.min(remaining, callTimeoutMs)) } : {}),
      })
      .catch((error: unknown) => {
        if (error instanceof A2ATimeoutError && Date.now() >= deadlineAt) return last;
        throw error;
      });
    if (last && settled(last.status.state)) return last;
    // A long poll that came back with a newer generation: poll again at once. One that did not
    // (its bound, or a server that does not hold) waits as a plain poll does, so nothing spins.
    if (
      waitPast !== undefined &&
      last?.generation !== undefined &&
      last.generation !== previous?.generation
    ) {
      continue;
    }
    const delay = Math.max(
      (options.initialDelayMs ?? 250) / 2,
      backoff(poll, options.initialDelayMs ?? 250, options.maxDelayMs ?? 5000),
    );
    const left = deadlineAt - Date.now();
    if (left <= 0) break;
    await sleep(Math.min(delay, left), options.signal);
  }
  if (Date.now() < deadlineAt) {
    throw new A2ATimeoutError(
      `task ${taskId} was still running after ${options.maxPolls ?? 10_000} polls`,
      0,
    );
  }
  if (options.cancelOnDeadline !== false) {
    last = await client.cancelTask(taskId, { timeoutMs: 10_000 }).catch(() => last);
  }
  throw new A2ADeadlineError(
    `task ${taskId} did not finish within ${options.deadline} ms${options.cancelOnDeadline !== false ? '; it was asked to cancel' : ''}`,
    options.deadline ?? 0,
    last,
  );
}

/** The calls {@link followEvents} makes. */
export interface TaskFollower {
  /** One GetTask, not retried: the follow loop is the retry policy of its steps. */
  getTaskOnce(taskId: string, signal: AbortSignal | undefined): Promise<Task>;
  /** `lastEventId` (A2A 1.1 draft): resume after that event (`<taskId>:<generation>`). */
  subscribeToTask(
    taskId: string,
    signal: AbortSignal | undefined,
    lastEventId?: string,
  ): AsyncIterable<StreamEvent>;
  /** True when the server resumes streams exactly (the client asks for the generation extension). */
  resumes?(): boolean;
}

/**
 * Reads a stream until the task is terminal or interrupted (INPUT_REQUIRED, AUTH_REQUIRED);
 * when it ends or breaks first, reconciles with GetTask and resubscribes, yielding each state
 * change once. Every step of a reconnection may fail and is retried with capped backoff until
 * `maxReconnects` failed steps in a row. `first` opens the first stream (a send); without it
 * the loop starts by subscribing to `knownTaskId`.
 */
export async function* followEvents(
  client: TaskFollower,
  first: (() => AsyncIterable<StreamEvent>) | undefined,
  knownTaskId: string | undefined,
  options: FollowOptions,
): AsyncGenerator<StreamEvent, void, undefined> {
  const seen = new Set<string>();
  const signal = options.signal;
  let taskId = knownTaskId;
  let state: TaskState | undefined;
  let failures = 0;
  const maxReconnects = options.maxReconnects ?? 5;
  const baseMs = options.reconnectBaseDelayMs ?? 200;
  const maxMs = options.reconnectMaxDelayMs ?? 3000;
  const finished = () => state !== undefined && settled(state);
  // Yields an event unless its status was already seen; tracks the task's state.
  /** The SSE id of the last event read (A2A 1.1 draft), when events carry a generation. */
  let lastEventId: string | undefined;
  const accept = (event: StreamEvent): boolean => {
    if (event.kind === 'task') taskId ??= event.task.id;
    if (event.kind === 'statusUpdate') taskId ??= event.statusUpdate.taskId;
    const generation = generationOfEvent(event);
    if (generation !== undefined && taskId) lastEventId = `${taskId}:${generation}`;
    const status = statusOf(event);
    if (status) {
      const key = statusKey(status);
      if (seen.has(key)) return false;
      // Bounded by the task's state changes: one key per distinct status.
      seen.add(key);
      state = status.state;
    }
    return true;
  };
  // One failed step: wait and go on, or give up with `error`.
  const stepFailed = async (error: unknown): Promise<void> => {
    if (!isTransient(error) || !taskId || signal?.aborted) throw error;
    if (++failures > maxReconnects) throw error;
    await sleep(reconnectDelay(failures, baseMs, maxMs), signal);
  };
  let open = first;
  let reconcile = false;
  /** Set when the next subscription resumes exactly after this event instead of reconciling. */
  let resumeFrom: string | undefined;
  // A break with an event id known: the server replays what was missed (no GetTask needed).
  const reconnect = (): void => {
    if (lastEventId !== undefined && client.resumes?.() === true) resumeFrom = lastEventId;
    else reconcile = true;
  };
  for (;;) {
    if (reconcile) {
      // The stream ended or broke before the task settled (D3, CLI-STREAM-2/5).
      let task: Task;
      try {
        task = await client.getTaskOnce(taskId as string, signal);
      } catch (error) {
        await stepFailed(error);
        continue;
      }
      reconcile = false;
      const event: StreamEvent = { kind: 'task', task };
      if (accept(event)) yield event;
      if (finished()) return;
    }
    const subscribing = open === undefined;
    const events = open ? open() : client.subscribeToTask(taskId as string, signal, resumeFrom);
    resumeFrom = undefined;
    open = undefined;
    let got = false;
    try {
      for await (const event of events) {
        got = true;
        failures = 0;
        if (event.kind === 'message' && !taskId) {
          yield event;
          return; // a direct reply: nothing to follow
        }
        if (accept(event)) yield event;
        if (finished()) return;
      }
    } catch (error) {
      // A resubscription refused because the task ended meanwhile: GetTask reconciles.
      const endedMeanwhile =
        subscribing && !got && error instanceof A2AError && error.code === 'UnsupportedOperation';
      if (!endedMeanwhile) await stepFailed(error);
      if (endedMeanwhile) reconcile = true;
      else reconnect();
      continue;
    }
    if (!taskId) return;
    // A server that keeps closing streams at once must not make us spin.
    if (!got)
      await stepFailed(new A2ATransportError(`the stream of task ${taskId} kept closing without events`));
    reconnect();
  }
}

/** The generation an event carries (A2A 1.1 draft), if any. */
function generationOfEvent(event: StreamEvent): string | number | undefined {
  if (event.kind === 'task') return event.task.generation;
  if (event.kind === 'statusUpdate') return event.statusUpdate.generation;
  if (event.kind === 'artifactUpdate') return event.artifactUpdate.generation;
  return undefined;
}
