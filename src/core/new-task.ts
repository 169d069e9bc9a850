/** A task's first record, from the fields its creator gives (TaskManager.create). */
import { formatTimestamp } from '../model/timestamp.js';
import type { TaskState } from '../model/enums.js';
import type { Artifact, Message, Task, TaskStatus } from '../model/schema.js';
import type { StoredTask, TaskScope } from './stores/task-store.js';
import { checkTaskSize, taskSize, type TaskLimits } from './task-size.js';
import { ownArtifact } from './task-snapshot.js';

/** Fields of a new task. */
export interface NewTask {
  readonly id: string;
  readonly contextId: string;
  readonly state: TaskState;
  /** The agent's status message, if the task starts with one. */
  readonly statusMessage?: Message;
  /** Initial history (the client's message). */
  readonly history: Message[];
  /** Initial artifacts (an agent that answers at once with a result). */
  readonly artifacts?: Artifact[];
  readonly metadata?: Record<string, unknown>;
}

/** The record of a new task at version 1, refused when it is already past `limits`. */
export function newTaskRecord(scope: TaskScope, init: NewTask, limits: TaskLimits): StoredTask {
  const now = Date.now();
  const status: TaskStatus = { state: init.state, timestamp: formatTimestamp(now) };
  if (init.statusMessage) status.message = init.statusMessage;
  // Own arrays: later changes append to them in place.
  const history = init.statusMessage ? [...init.history, init.statusMessage] : init.history.slice();
  const artifacts = (init.artifacts ?? []).map(ownArtifact);
  const task: Task = { id: init.id, contextId: init.contextId, status, history, artifacts };
  if (init.metadata) task.metadata = init.metadata;
  checkTaskSize(task.id, taskSize(task), limits);
  return { tenant: scope.tenant, owner: scope.owner, task, version: 1, statusTimeMs: now };
}
