/**
 * Copies of task documents for readers. The TaskManager extends the current task's arrays
 * (history, artifacts, each artifact's parts) in place, so an append costs the same whatever
 * the task's size; whoever keeps a task past the moment it was read takes a snapshot.
 *
 * The copies are built field by field: an object spread with a field replaced (`{ ...task,
 * history }`) took V8's slow path and was among the costliest lines of a request.
 */
import type { Artifact, Message, Task, TaskStatus } from '../model/schema.js';
import type { StoredTask } from './stores/task-store.js';

/** `task` with its own arrays (history, artifacts, parts); messages and parts are shared. */
export function snapshotTask(task: Task): Task {
  return taskWith(task, task.status, task.history?.slice(), task.artifacts?.map(ownArtifact));
}

/** A version of `task` with `status` and these arrays; its other fields are shared. */
export function taskWith(
  task: Task,
  status: TaskStatus,
  history: Message[] | undefined,
  artifacts: Artifact[] | undefined,
): Task {
  const next: Task =
    task.contextId !== undefined
      ? { id: task.id, contextId: task.contextId, status }
      : { id: task.id, status };
  if (history !== undefined) next.history = history;
  if (artifacts !== undefined) next.artifacts = artifacts;
  if (task.metadata !== undefined) next.metadata = task.metadata;
  return next;
}

/** `record` with a {@link snapshotTask} of its task. */
export function snapshotRecord(record: StoredTask): StoredTask {
  return {
    tenant: record.tenant,
    owner: record.owner,
    task: snapshotTask(record.task),
    version: record.version,
    statusTimeMs: record.statusTimeMs,
  };
}

/** `artifact` with its own parts array. */
export function ownArtifact(artifact: Artifact): Artifact {
  const copy: Artifact = { artifactId: artifact.artifactId, parts: artifact.parts.slice() };
  if (artifact.name !== undefined) copy.name = artifact.name;
  if (artifact.description !== undefined) copy.description = artifact.description;
  if (artifact.metadata !== undefined) copy.metadata = artifact.metadata;
  if (artifact.extensions !== undefined) copy.extensions = artifact.extensions;
  return copy;
}
