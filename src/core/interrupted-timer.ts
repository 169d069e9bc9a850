/**
 * Timing the tasks that wait for the client (`TASK_STATE_INPUT_REQUIRED`,
 * `TASK_STATE_AUTH_REQUIRED`): one timer for all of them, and the status message of a task
 * failed for waiting too long.
 */
import { isInterruptedState, Role, TaskState } from '../model/enums.js';
import { newId } from '../model/ids.js';
import type { Message, Task } from '../model/schema.js';
import type { InterruptedTaskRef, StoredTask } from './stores/task-store.js';
import { statusChange, type TaskChange } from './task-changes.js';

/** How long an interrupted task waits for the client by default: one hour. */
export const DEFAULT_INTERRUPTED_TIMEOUT_MS = 60 * 60 * 1000;

/** The longest delay setTimeout accepts (about 24.8 days); longer waits take several timers in turn. */
const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/**
 * The interrupted tasks of this process in the order their waits end, with a single unref'd
 * timer for the first. The timeout is the same for every task, so the order in which tasks
 * entered their interrupted state (Map insertion order, re-arming moves a task to the end) is
 * the order of their deadlines: arming and disarming are O(1) and thousands of waiting tasks
 * cost one timer. Deadlines come from the stored `statusTimeMs`, so tasks found in the store
 * at start (interrupted before a restart) are timed exactly like the ones written here.
 * Entries are hints: the expiry re-reads the task and changes it only when its wait is over.
 */
export class InterruptedTaskTimer {
  /** Waiting tasks by `tenant NUL taskId`, oldest status first. */
  #waiting = new Map<string, InterruptedTaskRef>();
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(
    private readonly timeoutMs: number,
    private readonly expire: (ref: InterruptedTaskRef) => void,
  ) {}

  /** Starts (or restarts, after a new interrupted status) the wait of a task. */
  arm(ref: InterruptedTaskRef): void {
    if (this.#closed) return;
    const key = waitKey(ref.tenant, ref.taskId);
    this.#waiting.delete(key);
    this.#waiting.set(key, ref);
    // A timer already set is due no later than this entry's deadline (it was armed for an
    // older one): nothing to change.
    if (!this.#timer) this.#schedule();
  }

  /** Ends the wait of a task that left its interrupted state. */
  disarm(tenant: string, taskId: string): void {
    // The timer is left as it is: if it was set for this task it fires, finds nothing due
    // and is set again for the next one. Cheaper than clearing it on every resume.
    this.#waiting.delete(waitKey(tenant, taskId));
  }

  /** Adds tasks found waiting in the store at start; the ones armed since then win. */
  recover(refs: readonly InterruptedTaskRef[]): void {
    if (this.#closed || refs.length === 0) return;
    const merged: InterruptedTaskRef[] = [];
    for (const ref of refs) if (!this.#waiting.has(waitKey(ref.tenant, ref.taskId))) merged.push(ref);
    merged.push(...this.#waiting.values());
    merged.sort((a, b) => a.statusTimeMs - b.statusTimeMs);
    this.#waiting = new Map(merged.map((ref) => [waitKey(ref.tenant, ref.taskId), ref]));
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#schedule();
  }

  /** Stops timing: clears the timer and forgets every task. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#waiting.clear();
  }

  #schedule(): void {
    const first = this.#waiting.values().next();
    if (first.done) return;
    const delay = first.value.statusTimeMs + this.timeoutMs - Date.now();
    this.#timer = setTimeout(this.#fire, Math.min(Math.max(delay, 0), MAX_TIMER_DELAY_MS));
    this.#timer.unref?.(); // workerd: timers without unref
  }

  readonly #fire = (): void => {
    this.#timer = undefined;
    if (this.#closed) return;
    const now = Date.now();
    const due: InterruptedTaskRef[] = [];
    for (const [key, ref] of this.#waiting) {
      if (ref.statusTimeMs + this.timeoutMs > now) break;
      this.#waiting.delete(key);
      due.push(ref);
    }
    this.#schedule();
    for (const ref of due) this.expire(ref);
  };
}

/** Most interrupted tasks one scan of a shared store reads (and tries to expire). */
const SCAN_PAGE = 100;

/** Lists the interrupted tasks whose status is older than `beforeMs`, oldest first, at most `limit`. */
export type ListInterruptedBefore = (beforeMs: number, limit: number) => Promise<InterruptedTaskRef[]>;

/**
 * How often the waits of a shared store are scanned for `timeoutMs`: a quarter of it, from
 * 250 ms to one minute, so a wait is enforced at most that late by a surviving replica.
 */
export function scanIntervalOf(timeoutMs: number): number {
  return Math.min(Math.max(timeoutMs / 4, 250), 60_000);
}

/**
 * The waits of a store shared by replicas (PostgreSQL), read again every interval: a task
 * that entered its interrupted state on a replica that went away for good is on no timer of
 * the survivors (theirs hold only their own tasks and what they found at start), so each scan
 * reads, bounded, the interrupted tasks whose wait is over and expires them (a compare-and-set
 * change: replicas that race on one task fail it once). A full page is followed by the next
 * one a second later: at most SCAN_PAGE tasks a second, a backlog never holds the event loop.
 */
export class InterruptedTaskScan {
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(
    private readonly timeoutMs: number,
    private readonly list: ListInterruptedBefore,
    private readonly expire: (ref: InterruptedTaskRef) => Promise<void>,
    readonly everyMs = scanIntervalOf(timeoutMs),
  ) {
    this.#schedule(everyMs);
  }

  /** Stops scanning (a scan running finishes the task it is on, then stops). */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #schedule(delayMs: number): void {
    if (this.#closed) return;
    this.#timer = setTimeout(() => void this.#scan(), delayMs);
    this.#timer.unref();
  }

  async #scan(): Promise<void> {
    this.#timer = undefined;
    let full = false;
    try {
      const due = await this.list(Date.now() - this.timeoutMs, SCAN_PAGE);
      for (const ref of due) {
        if (this.#closed) return;
        await this.expire(ref);
      }
      full = due.length >= SCAN_PAGE;
    } catch {
      // The store is unreachable now: the next scan tries again.
    }
    this.#schedule(full ? Math.min(this.everyMs, 1000) : this.everyMs);
  }
}

function waitKey(tenant: string, taskId: string): string {
  return `${tenant}\u0000${taskId}`;
}

/** The timer's entry for a stored task. */
export function refOf(record: StoredTask): InterruptedTaskRef {
  return {
    tenant: record.tenant,
    owner: record.owner,
    taskId: record.task.id,
    statusTimeMs: record.statusTimeMs,
  };
}

/** The agent status message of a task failed for waiting too long. */
export function waitExpiredMessage(task: Task, timeoutMs: number): Message {
  const state = task.status.state === TaskState.AUTH_REQUIRED ? 'authorization' : 'input';
  return {
    messageId: newId(),
    role: Role.AGENT,
    parts: [
      {
        text: `The task waited for ${state} (${task.status.state}) longer than this server allows (${formatDuration(timeoutMs)}) and was ended. Send a new message without taskId to start again.`,
      },
    ],
    taskId: task.id,
    contextId: task.contextId ?? '',
  };
}

/** An interrupted task's wait is not over (it was resumed, re-entered, or is gone): no change. */
class WaitNotExpired extends Error {}

/**
 * The change that fails a task whose interrupted wait (`timeoutMs`) is over, for
 * `TaskManager.update`: it runs on the stored task inside the task's serialized section (and
 * the save is compare-and-set), so a resume that got there first, another replica's expiry,
 * or a newer interrupted status leaves it alone (the change throws; `stillWaiting` is told of
 * a task whose wait is not over yet).
 *
 * Why FAILED: CANCELED means someone canceled the task (CancelTask, or the agent on a
 * client's behalf) and makes a later CancelTask succeed as if the client had asked; REJECTED
 * means the agent declined the work. Here the task could not finish because the input it
 * needed never came within the server's limit: it "finished with an error" (the proto's
 * FAILED). The agent-role status message says so, so a client can tell it from an agent fault.
 */
export function expiryChange(
  timeoutMs: number,
  stillWaiting: (current: StoredTask) => void,
): (current: StoredTask) => TaskChange {
  return (current) => {
    if (!isInterruptedState(current.task.status.state)) throw new WaitNotExpired();
    if (current.statusTimeMs + timeoutMs > Date.now()) {
      stillWaiting(current);
      throw new WaitNotExpired();
    }
    return statusChange(
      current.task,
      TaskState.FAILED,
      waitExpiredMessage(current.task, timeoutMs),
      undefined,
    );
  };
}

/** `3600000` → `1 h`, `90000` → `90 s`, `50` → `50 ms`. */
function formatDuration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}
