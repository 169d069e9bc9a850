/** What a client sees of a task. */
import type { Task } from '../model/schema.js';
import { ownArtifact } from './task-snapshot.js';

/**
 * The task as returned to a client: history cut to the last `historyLength` messages
 * (0 omits it, undefined keeps all), `artifacts` omitted when not wanted, and empty lists
 * omitted (ProtoJSON drops empty repeated fields). The arrays are copied (the stored task's
 * grow in place, and the view may be encoded later); the messages and parts are shared:
 * never mutate them.
 */
export function viewTask(task: Task, historyLength?: number, includeArtifacts = true): Task {
  const out: Task = { id: task.id, contextId: task.contextId, status: task.status };
  if (includeArtifacts && task.artifacts && task.artifacts.length > 0) {
    out.artifacts = task.artifacts.map(ownArtifact);
  }
  const history = task.history;
  if (history && history.length > 0 && historyLength !== 0) {
    out.history =
      historyLength === undefined || historyLength >= history.length
        ? history.slice()
        : history.slice(-historyLength);
  }
  if (task.metadata) out.metadata = task.metadata;
  return out;
}
