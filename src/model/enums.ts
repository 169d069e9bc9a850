/** Task lifecycle states, spelled as the proto's enum value names (ProtoJSON). */
export const TaskState = {
  UNSPECIFIED: 'TASK_STATE_UNSPECIFIED',
  SUBMITTED: 'TASK_STATE_SUBMITTED',
  WORKING: 'TASK_STATE_WORKING',
  COMPLETED: 'TASK_STATE_COMPLETED',
  FAILED: 'TASK_STATE_FAILED',
  CANCELED: 'TASK_STATE_CANCELED',
  INPUT_REQUIRED: 'TASK_STATE_INPUT_REQUIRED',
  REJECTED: 'TASK_STATE_REJECTED',
  AUTH_REQUIRED: 'TASK_STATE_AUTH_REQUIRED',
} as const;
/** One of the nine `TaskState` names. */
export type TaskState = (typeof TaskState)[keyof typeof TaskState];

/** Proto enum numbers, in declaration order (ProtoJSON also accepts these on input). */
export const TASK_STATE_NAMES: readonly TaskState[] = [
  TaskState.UNSPECIFIED,
  TaskState.SUBMITTED,
  TaskState.WORKING,
  TaskState.COMPLETED,
  TaskState.FAILED,
  TaskState.CANCELED,
  TaskState.INPUT_REQUIRED,
  TaskState.REJECTED,
  TaskState.AUTH_REQUIRED,
];

/** Who wrote a message. */
export const Role = {
  UNSPECIFIED: 'ROLE_UNSPECIFIED',
  USER: 'ROLE_USER',
  AGENT: 'ROLE_AGENT',
} as const;
/** One of the three `Role` names. */
export type Role = (typeof Role)[keyof typeof Role];
/** Every `Role` enum name, in the proto's order. */
export const ROLE_NAMES: readonly Role[] = [Role.UNSPECIFIED, Role.USER, Role.AGENT];

/** The four terminal states: a task in one of them never changes again (SRV-STATE-1/2). */
export const TERMINAL_STATES: ReadonlySet<TaskState> = new Set([
  TaskState.COMPLETED,
  TaskState.FAILED,
  TaskState.CANCELED,
  TaskState.REJECTED,
]);

/** The interrupted states: the task waits for the client (SRV-STATE-1). */
export const INTERRUPTED_STATES: ReadonlySet<TaskState> = new Set([
  TaskState.INPUT_REQUIRED,
  TaskState.AUTH_REQUIRED,
]);

/** True when `state` is COMPLETED, FAILED, CANCELED or REJECTED. */
export function isTerminalState(state: TaskState): boolean {
  return TERMINAL_STATES.has(state);
}

/** True when `state` is INPUT_REQUIRED or AUTH_REQUIRED. */
export function isInterruptedState(state: TaskState): boolean {
  return INTERRUPTED_STATES.has(state);
}

/** v0.3 lowercase spellings, accepted on input only (N17, SRV-JSON-2). */
const V03_TASK_STATES: Record<string, TaskState> = {
  submitted: TaskState.SUBMITTED,
  working: TaskState.WORKING,
  'input-required': TaskState.INPUT_REQUIRED,
  completed: TaskState.COMPLETED,
  canceled: TaskState.CANCELED,
  failed: TaskState.FAILED,
  rejected: TaskState.REJECTED,
  'auth-required': TaskState.AUTH_REQUIRED,
  unknown: TaskState.UNSPECIFIED,
  TASK_STATE_CANCELLED: TaskState.CANCELED,
};
const V03_ROLES: Record<string, Role> = { user: Role.USER, agent: Role.AGENT };

/**
 * Reads a TaskState from input: the proto name, its number, or a v0.3 spelling.
 * Returns `undefined` for anything else so the validator can report it.
 */
export function parseTaskState(value: unknown): TaskState | undefined {
  if (typeof value === 'string') {
    if ((TASK_STATE_NAMES as readonly string[]).includes(value)) return value as TaskState;
    return Object.hasOwn(V03_TASK_STATES, value) ? V03_TASK_STATES[value] : undefined; // not `constructor`
  }
  if (typeof value === 'number' && Number.isInteger(value)) return TASK_STATE_NAMES[value];
  return undefined;
}

/** Reads a Role from input: the proto name, its number, or a v0.3 spelling. */
export function parseRole(value: unknown): Role | undefined {
  if (typeof value === 'string') {
    if ((ROLE_NAMES as readonly string[]).includes(value)) return value as Role;
    return Object.hasOwn(V03_ROLES, value) ? V03_ROLES[value] : undefined;
  }
  if (typeof value === 'number' && Number.isInteger(value)) return ROLE_NAMES[value];
  return undefined;
}
