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
  getTask(taskId: string, options: CallOptions): Promise<Task>;
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
): Promise<Task> {
  const started = Date.now();
  const deadlineAt = options.deadline !== undefined ? started + options.deadline : Infinity;
  let last: Task | undefined;
  for (let poll = 0; poll < (options.maxPolls ?? 10_000); poll++) {
    const remaining = deadlineAt - Date.now();
    if (remaining <= 0) break;
    last = await client
      .getTask(taskId, {
        signal: options.signal,
        ...(Number.isFinite(remaining) ? { timeoutMs: Math.max(1, Math.min(remaining, callTimeoutMs)) } : {}),
      })
      .catch((error: unknown) => {
        if (error instanceof A2ATimeoutError && Date.now() >= deadlineAt) return last;
        throw error;
      });
    if (last && settled(last.status.state)) return last;
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
  subscribeToTask(taskId: string, signal: AbortSignal | undefined): AsyncIterable<StreamEvent>;
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
  const accept = (event: StreamEvent): boolean => {
    if (event.kind === 'task') taskId ??= event.task.id;
    if (event.kind === 'statusUpdate') taskId ??= event.statusUpdate.taskId;
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
    const events = open ? open() : client.subscribeToTask(taskId as string, signal);
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
      reconcile = true;
      continue;
    }
    if (!taskId) return;
    // A server that keeps closing streams at once must not make us spin.
    if (!got)
      await stepFailed(new A2ATransportError(`the stream of task ${taskId} kept closing without events`));
    reconcile = true;
  }
}
