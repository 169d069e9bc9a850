/**
 * Copies of task documents for readers. The TaskManager extends the current task's arrays
 * (history, artifacts, each artifact's parts) in place, so an append costs the same whatever
 * the task's size; whoever keeps a task past the moment it was read takes a snapshot.
 */
import type { Artifact, Task } from '../model/schema.js';

/** `task` with its own arrays (history, artifacts, parts); messages and parts are shared. */
export function snapshotTask(task: Task): Task {
  const copy: Task = { ...task };
  if (task.history) copy.history = task.history.slice();
  if (task.artifacts) copy.artifacts = task.artifacts.map(ownArtifact);
  return copy;
}

/** `artifact` with its own parts array. */
export function ownArtifact(artifact: Artifact): Artifact {
  return { ...artifact, parts: artifact.parts.slice() };
}
