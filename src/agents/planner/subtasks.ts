/**
 * The planner's record of its sub-tasks, kept as artifacts of its own task (`subtask-tests`,
 * `subtask-deploy`) so they are persisted by the store before it waits, and readable by a later
 * turn, the cancel hook or a restarted planner.
 */
import type { Task } from '../../model/schema.js';

/** Which step of the plan a sub-task is. */
export type Step = 'tests' | 'deploy';

/** One sub-task the planner started on another agent. */
export interface SubtaskRef {
  step: Step;
  /** The other agent's card name. */
  agent: string;
  /** The base URL the planner reached it at. */
  url: string;
  /** The skill chosen from its card. */
  skill: string;
  taskId: string;
  contextId?: string;
}

/** The artifact id that holds `step`'s reference. */
export const subtaskArtifactId = (step: Step): string => `subtask-${step}`;

/** Reads the sub-task references recorded on `task`. */
export function recordedSubtasks(task: Task | undefined): Partial<Record<Step, SubtaskRef>> {
  const out: Partial<Record<Step, SubtaskRef>> = {};
  for (const artifact of task?.artifacts ?? []) {
    for (const step of ['tests', 'deploy'] as const) {
      if (artifact.artifactId !== subtaskArtifactId(step)) continue;
      const data = artifact.parts.find((p) => p.data !== undefined)?.data as SubtaskRef | undefined;
      if (data && typeof data.taskId === 'string') out[step] = data;
    }
  }
  return out;
}
