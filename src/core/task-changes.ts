/**
 * The changes the TaskManager applies: each computes the next task document from the current
 * one and the event to stream, or throws IllegalTaskEventError when the state machine or the
 * artifact rules refuse it. They append to the current task's arrays in place (see
 * {@link TaskChange.grew}).
 */
import { InvalidAgentResponseError } from '../errors/a2a-error.js';
import { isInterruptedState, isTerminalState, TaskState, TASK_STATE_NAMES } from '../model/enums.js';
import type { Artifact, Message, StreamResponse, Task, TaskStatus } from '../model/schema.js';
import { canTransition, explainTransition } from '../model/state-machine.js';
import { artifactSize, messageSize, partsSize, type TaskSize } from './task-size.js';
import { ownArtifact, taskWith } from './task-snapshot.js';

/** A change computed from the current task: the new task document and the event to stream. */
export interface TaskChange {
  readonly task: Task;
  /** The streamed form of the change; omit for changes that are not streamed. */
  readonly response?: StreamResponse;
  /**
   * What the change added to history and artifacts. Changes append to the current task's
   * arrays in place (an append costs the same whatever the task's size), so they must say
   * what they added: it is checked against the task caps and kept as the task's new size.
   */
  readonly grew?: TaskSize;
  /** Not checked against the caps (a client message: the body limit bounds it already). */
  readonly uncapped?: boolean;
  /** Undoes the in-place appends when the change is not saved. */
  readonly rollback?: () => void;
}

/** Thrown when an event would break the state machine or the artifact rules. */
export class IllegalTaskEventError extends InvalidAgentResponseError {}

/** The change that moves `task` to `state`; throws when the state machine refuses it. */
export function statusChange(
  task: Task,
  state: TaskState,
  message: Message | undefined,
  metadata: Record<string, unknown> | undefined,
): TaskChange {
  if (!isKnownState(state) || state === TaskState.UNSPECIFIED) {
    throw new IllegalTaskEventError(`${String(state)} is not a state a task can enter`);
  }
  const from = task.status.state;
  if (!canTransition(from, state)) throw new IllegalTaskEventError(explainTransition(from, state));
  const status: TaskStatus = { state, timestamp: '' };
  if (message) status.message = message;
  const next = taskWith(task, status, task.history, task.artifacts);
  const event: StreamResponse = {
    statusUpdate: { taskId: task.id, contextId: task.contextId ?? '', status },
  };
  if (metadata) event.statusUpdate.metadata = metadata;
  if (!message) return { task: next, response: event };
  const grew = messageSize(message);
  const { history, rollback } = appendMessage(task, message);
  next.history = history;
  return { task: next, response: event, grew, rollback };
}

/**
 * The change that records a client message on an existing task. An interrupted task moves
 * back to WORKING (the client answered), which is streamed as a status update.
 */
export function clientMessageChange(task: Task, message: Message): TaskChange {
  if (isTerminalState(task.status.state)) {
    throw new IllegalTaskEventError(`task is ${task.status.state}; it accepts no more messages`);
  }
  const grew = messageSize(message);
  const { history, rollback } = appendMessage(task, message);
  if (!isInterruptedState(task.status.state)) {
    return { task: taskWith(task, task.status, history, task.artifacts), grew, uncapped: true, rollback };
  }
  const status: TaskStatus = { state: TaskState.WORKING, timestamp: '' };
  const next = taskWith(task, status, history, task.artifacts);
  return {
    task: next,
    response: { statusUpdate: { taskId: task.id, contextId: task.contextId ?? '', status } },
    grew,
    uncapped: true,
    rollback,
  };
}

/** The change that adds or extends an artifact; throws on a duplicate id or a missing append target. */
export function artifactChange(
  task: Task,
  artifact: Artifact,
  options: { append?: boolean; lastChunk?: boolean; metadata?: Record<string, unknown> },
): TaskChange {
  if (isTerminalState(task.status.state)) {
    throw new IllegalTaskEventError(
      `task is ${task.status.state}, a terminal state; it takes no more artifacts`,
    );
  }
  // Appended in place (the current task's arrays belong to it; see TaskChange.grew), so a
  // chunk costs the same whatever the artifact's size. The newest artifact is the usual target.
  const artifacts = task.artifacts ?? [];
  const last = artifacts.length - 1;
  const index =
    last >= 0 && artifacts[last]!.artifactId === artifact.artifactId
      ? last
      : artifacts.findIndex((a) => a.artifactId === artifact.artifactId);
  let grew: TaskSize;
  let rollback: () => void;
  if (options.append) {
    if (index < 0) {
      throw new IllegalTaskEventError(`append to artifact ${artifact.artifactId}, which was never sent`);
    }
    const existing = artifacts[index]!;
    grew = partsSize(artifact.parts);
    const parts = existing.parts;
    const length = parts.length;
    for (const part of artifact.parts) parts.push(part);
    if (artifact.metadata || artifact.name !== undefined || artifact.description !== undefined) {
      const merged: Artifact = { ...existing, parts };
      if (artifact.metadata) merged.metadata = { ...existing.metadata, ...artifact.metadata };
      if (artifact.name !== undefined) merged.name = artifact.name;
      if (artifact.description !== undefined) merged.description = artifact.description;
      artifacts[index] = merged;
    }
    rollback = () => {
      parts.length = length;
      artifacts[index] = existing;
    };
  } else {
    if (index >= 0) {
      throw new IllegalTaskEventError(
        `artifact ${artifact.artifactId} was already sent; use append to extend it (artifactId is unique within a task)`,
      );
    }
    grew = artifactSize(artifact);
    const length = artifacts.length;
    artifacts.push(ownArtifact(artifact));
    rollback = () => void (artifacts.length = length);
  }
  const update: StreamResponse = {
    artifactUpdate: { taskId: task.id, contextId: task.contextId ?? '', artifact },
  };
  if (options.append) update.artifactUpdate.append = true;
  if (options.lastChunk) update.artifactUpdate.lastChunk = true;
  if (options.metadata) update.artifactUpdate.metadata = options.metadata;
  return { task: taskWith(task, task.status, task.history, artifacts), response: update, grew, rollback };
}

/** Appends `message` to the task's history array in place (see {@link TaskChange.grew}). */
function appendMessage(task: Task, message: Message): { history: Message[]; rollback: () => void } {
  const history = task.history ?? [];
  const length = history.length;
  history.push(message);
  return { history, rollback: () => void (history.length = length) };
}

/** One of the TaskState names. */
export function isKnownState(state: unknown): state is TaskState {
  return typeof state === 'string' && (TASK_STATE_NAMES as readonly string[]).includes(state);
}
