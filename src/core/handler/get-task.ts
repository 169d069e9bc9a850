/** GetTask: the caller's task, with as much history as asked for; long-polled on request (GEN-3). */
import type { GetTaskRequest, Task } from '../../model/schema.js';
import type { ServerCallContext } from '../context.js';
import { generationOn, readGeneration, stampTask } from '../generation.js';
import { viewTask } from '../task-view.js';
import { scopeOf, type HandlerDependencies } from './dependencies.js';
import type { LongPolls } from './long-poll.js';
import { checkHistoryLength, invalidParam, notFound } from './refusals.js';

export async function getTask(
  deps: HandlerDependencies,
  request: GetTaskRequest,
  ctx: ServerCallContext,
  longPolls?: LongPolls,
): Promise<Task> {
  checkHistoryLength(request.historyLength, 'historyLength');
  // A v1.0 call ignores the draft's field, as it ignored any unknown field before (GEN-1).
  const generation = generationOn(deps.generation, ctx);
  const after = generation
    ? readGeneration(request.currentGeneration, (why) => invalidParam('currentGeneration', why))
    : undefined;
  const scope = scopeOf(ctx);
  let record = await deps.manager.get(scope, request.id);
  if (!record) throw notFound(request.id);
  if (after !== undefined && longPolls) {
    record = await longPolls.wait(scope, record, after, ctx.signal);
    if (!record) throw notFound(request.id);
  }
  const task = viewTask(record.task, request.historyLength);
  return generation ? stampTask(task, record.version) : task;
}
