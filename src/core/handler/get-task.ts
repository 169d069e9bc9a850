/** GetTask: the caller's task, with as much history as asked for. */
import type { GetTaskRequest, Task } from '../../model/schema.js';
import type { ServerCallContext } from '../context.js';
import { viewTask } from '../task-view.js';
import { scopeOf, type HandlerDependencies } from './dependencies.js';
import { checkHistoryLength, notFound } from './refusals.js';

export async function getTask(
  deps: HandlerDependencies,
  request: GetTaskRequest,
  ctx: ServerCallContext,
): Promise<Task> {
  checkHistoryLength(request.historyLength, 'historyLength');
  const record = await deps.manager.get(scopeOf(ctx), request.id);
  if (!record) throw notFound(request.id);
  return viewTask(record.task, request.historyLength);
}
