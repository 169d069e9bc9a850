/**
 * How an agent's execution ends its task (the return rules of `AgentExecutor.execute`), and the
 * texts a task is ended with when the agent failed, the server stopped, or its events could
 * not be written.
 */
import { UnavailableError } from '../errors/a2a-error.js';
import { isTerminalState, TaskState } from '../model/enums.js';
import type { Message, Task } from '../model/schema.js';
import { statusChange, type TaskChange } from './task-changes.js';

/** The status message of a task whose execution was stopped by the server's shutdown. */
const SERVER_STOPPED =
  'The server stopped before the agent finished this task, so the task was ended unfinished. Send a new message without taskId to start again.';

/** An unfinished task: SUBMITTED or WORKING. */
export const isActive = (state: TaskState): boolean =>
  state === TaskState.SUBMITTED || state === TaskState.WORKING;

/**
 * The change that ends an execution on `task` (`threw`: with `error`; `serverStopped`: cut
 * off by the server's close()), or undefined when the task stays as it is. `message` builds
 * the agent's status message from a text.
 */
export function endChange(
  task: Task,
  error: unknown,
  threw: boolean,
  serverStopped: boolean,
  message: (text: string) => Message,
): TaskChange | undefined {
  const state = task.status.state;
  if (isTerminalState(state)) return undefined;
  const active = isActive(state);
  if (serverStopped) {
    return active ? statusChange(task, TaskState.FAILED, message(SERVER_STOPPED), undefined) : undefined;
  }
  if (threw) return statusChange(task, TaskState.FAILED, message(errorText(error)), undefined);
  return active ? statusChange(task, TaskState.COMPLETED, undefined, undefined) : undefined;
}

/** Why an execution whose event could not be written takes no more events. */
export function writeFailed(failure: unknown): UnavailableError {
  return new UnavailableError(
    `the server could not record this task's events (${errorText(failure)}); it takes no more`,
  );
}

/** A short, stack-free description of something thrown. */
export function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : typeof error === 'string' ? error : '';
  const firstLine = text.split('\n', 1)[0]?.trim() ?? '';
  if (firstLine) return firstLine.length > 1000 ? `${firstLine.slice(0, 1000)}…` : firstLine;
  return error instanceof Error && error.name && error.name !== 'Error'
    ? `the agent failed (${error.name})`
    : 'the agent failed';
}
