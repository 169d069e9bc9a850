/** The options of TaskManager, and how they are checked. */
import type { StoredTask } from './stores/task-store.js';
import { DEFAULT_MAX_TASK_BYTES, DEFAULT_MAX_TASK_PARTS, type TaskLimits } from './task-size.js';

/** Options of `TaskManager`. */
export interface TaskManagerOptions {
  /**
   * How long a task may stay in `TASK_STATE_INPUT_REQUIRED` or `TASK_STATE_AUTH_REQUIRED`,
   * counted from its `status.timestamp`, before it is failed. `0` or `Infinity` waits forever.
   * @default Infinity (the DefaultRequestHandler passes DEFAULT_INTERRUPTED_TIMEOUT_MS, one hour)
   */
  interruptedTimeoutMs?: number;
  /** Called once an interrupted task has been failed for waiting too long (persisted and published). */
  onInterruptedExpired?: (record: StoredTask) => void;
  /**
   * Most parts (history message parts plus artifact parts) one task may hold; an agent event
   * that would pass it is refused with InvalidAgentResponseError and changes nothing.
   * @default 200000
   */
  maxTaskParts?: number;
  /**
   * Most JSON characters (about bytes) of history and artifacts one task may hold; enforced
   * like `maxTaskParts`. @default 67108864 (64 MiB)
   */
  maxTaskBytes?: number;
  /**
   * A2A 1.1 draft (GEN-5): keep this many events per task in the store's event log, written in
   * the same write as each change (stores with `readEvents`). Absent: no log is written.
   */
  eventLogPerTask?: number;
}

/** `interruptedTimeoutMs` (Infinity when absent); a RangeError when it is not a duration. */
export function interruptedTimeoutOf(options: TaskManagerOptions): number {
  const timeoutMs = options.interruptedTimeoutMs ?? Infinity;
  if (typeof timeoutMs !== 'number' || Number.isNaN(timeoutMs) || timeoutMs < 0) {
    throw new RangeError(
      `interruptedTimeoutMs must be a number of milliseconds >= 0 (0 or Infinity: no limit), got ${String(timeoutMs)}`,
    );
  }
  return timeoutMs;
}

/** The size limits of one task, from `maxTaskParts` and `maxTaskBytes`. */
export function taskLimitsOf(options: TaskManagerOptions): TaskLimits {
  return {
    maxParts: positiveLimit(options.maxTaskParts, DEFAULT_MAX_TASK_PARTS, 'maxTaskParts'),
    maxBytes: positiveLimit(options.maxTaskBytes, DEFAULT_MAX_TASK_BYTES, 'maxTaskBytes'),
  };
}

function positiveLimit(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || Number.isNaN(value) || value < 1) {
    throw new RangeError(`${name} must be a number >= 1 (Infinity: no limit), got ${String(value)}`);
  }
  return value;
}
