/**
 * How the planner waits for a sub-task without a stream: woken by push notifications to its
 * own webhook when the peer's card offers push, else by polling GetTask with backoff. Either
 * way GetTask is the truth: a notification only says "look again" (push is at least once and
 * may arrive before or after what GetTask shows), and its content is only shown as progress.
 */
import type { A2AClient } from '../../client/client.js';
import { textOf } from '../../client/artifacts.js';
import { statusOf, type StreamEvent } from '../../client/stream-events.js';
import { isInterruptedState, isTerminalState, type TaskState } from '../../model/enums.js';
import type { Task } from '../../model/schema.js';
import type { PushWatch } from './webhook.js';

/** How a sub-task was followed (on the planner's progress notes). */
export type FollowedBy = 'push' | 'poll' | 'stream';

/** A progress line the follower wants shown. */
export interface FollowNote {
  state?: string;
  artifact?: string;
  text?: string;
  via: FollowedBy;
  /** Notifications received for this sub-task so far (push only). */
  notifications?: number;
}

/** Timing of the follower. */
export interface FollowTiming {
  /** With push: re-read the task this long after the last notification anyway. @default 10000 */
  pushSafetyMs?: number;
  /** Polling: first delay, doubling up to `pollMaxMs`. @default 200 */
  pollMinMs?: number;
  /** @default 5000 */
  pollMaxMs?: number;
  /** Give up on a sub-task not settled after this long. @default 3600000 */
  deadlineMs?: number;
  /**
   * With push: how long to wait, once GetTask shows the task settled, for the notification of
   * that change (it may trail GetTask a moment). @default 2000
   */
  settledPushGraceMs?: number;
}

/** A task the planner stops waiting for: ended, or asking its caller. */
export const settled = (state: TaskState): boolean => isTerminalState(state) || isInterruptedState(state);

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** A note for one pushed event (progress only; the task is re-read from GetTask). */
function noteOf(event: StreamEvent, notifications: number): FollowNote | undefined {
  if (event.kind === 'statusUpdate') {
    const status = event.statusUpdate.status;
    const text = status.message ? textOf(status.message) : undefined;
    return { state: status.state, ...(text ? { text } : {}), via: 'push', notifications };
  }
  if (event.kind === 'artifactUpdate') {
    const a = event.artifactUpdate.artifact;
    const name = a.name ?? a.artifactId;
    return { artifact: name, text: `artifact ${name}`, via: 'push', notifications };
  }
  // A Task snapshot (the first notification) says nothing the start did not.
  return undefined;
}

function giveUp(taskId: string, deadlineMs: number): Error {
  return new Error(`gave up waiting for task ${taskId} after ${Math.round(deadlineMs / 1000)} s`);
}

/** Waits for `taskId` to settle, woken by `watch`'s notifications; returns the task as GetTask shows it. */
export async function followByPush(
  client: A2AClient,
  taskId: string,
  watch: PushWatch,
  note: (n: FollowNote) => Promise<void>,
  signal: AbortSignal,
  timing: FollowTiming = {},
): Promise<Task> {
  const deadlineMs = timing.deadlineMs ?? 3_600_000;
  const until = Date.now() + deadlineMs;
  /** Whether a notification showed the task settled: the last one that matters is in. */
  let pushedSettled = false;
  const forward = async (events: StreamEvent[]) => {
    for (const event of events) {
      const status = statusOf(event);
      if (status && settled(status.state)) pushedSettled = true;
      const n = noteOf(event, watch.received);
      if (n) await note(n);
    }
  };
  for (;;) {
    const task = await client.getTask(taskId, { signal, historyLength: 0 });
    if (settled(task.status.state)) {
      // What was pushed meanwhile is still shown, and the notification of the settling change
      // is waited for a moment, so a run that ended quickly still shows its pushed progress.
      await forward(watch.take());
      const graceEnd = Date.now() + (timing.settledPushGraceMs ?? 2_000);
      while (!pushedSettled && !signal.aborted && Date.now() < graceEnd) {
        await forward(await watch.next(graceEnd - Date.now(), signal));
      }
      return task;
    }
    if (Date.now() > until) throw giveUp(taskId, deadlineMs);
    await forward(await watch.next(timing.pushSafetyMs ?? 10_000, signal));
  }
}

/** Waits for `taskId` to settle by polling GetTask with capped backoff, noting each new status. */
export async function followByPolling(
  client: A2AClient,
  taskId: string,
  note: (n: FollowNote) => Promise<void>,
  signal: AbortSignal,
  timing: FollowTiming = {},
): Promise<Task> {
  const min = timing.pollMinMs ?? 200;
  const max = timing.pollMaxMs ?? 5000;
  const deadlineMs = timing.deadlineMs ?? 3_600_000;
  const until = Date.now() + deadlineMs;
  let delay = min;
  let seen = '';
  for (;;) {
    const task = await client.getTask(taskId, { signal, historyLength: 0 });
    if (settled(task.status.state)) return task;
    const text = task.status.message ? textOf(task.status.message) : '';
    const now = `${task.status.state}\u0000${text}`;
    if (now !== seen) {
      seen = now;
      delay = min; // something moved: look again soon
      await note({ state: task.status.state, ...(text ? { text } : {}), via: 'poll' });
    } else {
      delay = Math.min(max, delay * 2);
    }
    if (Date.now() > until) throw giveUp(taskId, deadlineMs);
    await sleep(delay, signal);
    signal.throwIfAborted();
  }
}
