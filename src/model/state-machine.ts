/**
 * The task state machine: which status changes are legal. The TaskManager applies it to
 * every event; agents cannot bypass it.
 */
import { INTERRUPTED_STATES, TaskState, TERMINAL_STATES } from './enums.js';

const ACTIVE: readonly TaskState[] = [TaskState.SUBMITTED, TaskState.WORKING];
const ALL_REAL: readonly TaskState[] = [
  TaskState.SUBMITTED,
  TaskState.WORKING,
  TaskState.INPUT_REQUIRED,
  TaskState.AUTH_REQUIRED,
  TaskState.COMPLETED,
  TaskState.FAILED,
  TaskState.CANCELED,
  TaskState.REJECTED,
];

/**
 * Legal next states. A task:
 * - is born SUBMITTED, or directly in any later state (an agent may answer at once);
 * - never returns to SUBMITTED once it has moved on;
 * - moves between WORKING and the interrupted states freely, and may repeat a state
 *   (a second WORKING update carries a new progress message);
 * - never leaves a terminal state (SRV-STATE-2).
 */
const NEXT: Record<TaskState, ReadonlySet<TaskState>> = {
  [TaskState.UNSPECIFIED]: new Set(),
  [TaskState.SUBMITTED]: new Set(ALL_REAL),
  [TaskState.WORKING]: new Set(ALL_REAL.filter((s) => s !== TaskState.SUBMITTED)),
  [TaskState.INPUT_REQUIRED]: new Set(ALL_REAL.filter((s) => s !== TaskState.SUBMITTED)),
  [TaskState.AUTH_REQUIRED]: new Set(ALL_REAL.filter((s) => s !== TaskState.SUBMITTED)),
  [TaskState.COMPLETED]: new Set(),
  [TaskState.FAILED]: new Set(),
  [TaskState.CANCELED]: new Set(),
  [TaskState.REJECTED]: new Set(),
};

/** States a new task may start in (UNSPECIFIED never appears on the wire, SRV-STATE-3). */
export const INITIAL_STATES: ReadonlySet<TaskState> = new Set(ALL_REAL);

/** True when a task in `from` may move to `to`. */
export function canTransition(from: TaskState, to: TaskState): boolean {
  return NEXT[from].has(to);
}

/** True when a task in `state` accepts a new client message (not terminal, SRV-SEND-5). */
export function acceptsMessages(state: TaskState): boolean {
  return !TERMINAL_STATES.has(state);
}

/** True when a task in `state` may be canceled (active or interrupted; N7 treats CANCELED separately). */
export function isCancelable(state: TaskState): boolean {
  return ACTIVE.includes(state) || INTERRUPTED_STATES.has(state);
}

/** Explains why `from → to` is refused, for error messages. */
export function explainTransition(from: TaskState, to: TaskState): string {
  if (TERMINAL_STATES.has(from)) return `task is ${from}, a terminal state; it cannot become ${to}`;
  if (to === TaskState.UNSPECIFIED) return 'TASK_STATE_UNSPECIFIED is not a state a task can enter';
  if (to === TaskState.SUBMITTED) return `a task that is ${from} cannot go back to TASK_STATE_SUBMITTED`;
  return `illegal transition ${from} → ${to}`;
}
