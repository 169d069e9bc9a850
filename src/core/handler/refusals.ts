/**
 * The errors the handler refuses a request with, and the checks that raise them. Each says
 * what was wrong in words a client developer can act on.
 */
import {
  InvalidParamsError,
  PushNotificationNotSupportedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnavailableError,
  UnsupportedOperationError,
} from '../../errors/a2a-error.js';
import type { AgentCard, Task } from '../../model/schema.js';

export function invalidParam(path: string, description: string): InvalidParamsError {
  return new InvalidParamsError(`${path} ${description}`, { violations: [{ path, description }] });
}

/** Identical for a missing task and another caller's (D36): it echoes only the caller's own id. */
export function notFound(taskId: string): TaskNotFoundError {
  return new TaskNotFoundError(`task ${taskId} not found`, { metadata: { taskId } });
}

export function notCancelable(task: Task): TaskNotCancelableError {
  return new TaskNotCancelableError(`task ${task.id} is ${task.status.state} and cannot be canceled`, {
    metadata: { taskId: task.id },
  });
}

export function terminalTask(task: Task): UnsupportedOperationError {
  return new UnsupportedOperationError(
    `task ${task.id} is ${task.status.state}, a terminal state, and accepts no more messages; send a new message without taskId (with contextId ${task.contextId ?? ''}) for a follow-up`,
  );
}

export function shuttingDown(): UnavailableError {
  return new UnavailableError('the server is shutting down');
}

/**
 * Bindings validate this already; the handler is also public API, so a direct caller's
 * negative value is refused here rather than sliced from the end of the history.
 */
export function checkHistoryLength(value: number | undefined, path: string): void {
  if (value !== undefined && value < 0) throw invalidParam(path, 'must not be negative');
}

export function requireStreaming(card: AgentCard): void {
  if (card.capabilities.streaming !== true) {
    throw new UnsupportedOperationError(
      'this agent does not support streaming (capabilities.streaming is not true)',
    );
  }
}

export function requirePush(card: AgentCard): void {
  if (card.capabilities.pushNotifications !== true) {
    throw new PushNotificationNotSupportedError(
      'this agent does not support push notifications (capabilities.pushNotifications is not true)',
    );
  }
}
