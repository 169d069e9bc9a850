/** SubscribeToTask: a stream of a running task's changes, starting with its current state. */
import { UnsupportedOperationError } from '../../errors/a2a-error.js';
import { isTerminalState } from '../../model/enums.js';
import type { StreamResponse, SubscribeToTaskRequest } from '../../model/schema.js';
import type { ServerCallContext } from '../context.js';
import { generationOn, resumeGeneration } from '../generation.js';
import { scopeOf, type HandlerDependencies } from './dependencies.js';
import { notFound, requireStreaming } from './refusals.js';
import type { OpenStreams } from './streams.js';

export async function subscribeToTask(
  deps: HandlerDependencies,
  streams: OpenStreams,
  request: SubscribeToTaskRequest,
  ctx: ServerCallContext,
): Promise<AsyncIterable<StreamResponse>> {
  requireStreaming(deps.card());
  const scope = scopeOf(ctx);
  const record = await deps.manager.get(scope, request.id);
  if (!record) throw notFound(request.id);
  // GEN-5: a client cut off before the end resumes even once the task ended (it missed the end).
  const resumeAfter = generationOn(deps.generation, ctx)
    ? resumeGeneration(ctx.lastEventId, request.id)
    : undefined;
  const resuming = resumeAfter !== undefined && resumeAfter < record.version;
  if (isTerminalState(record.task.status.state) && !resuming) {
    throw new UnsupportedOperationError(
      `task ${request.id} is ${record.task.status.state}, a terminal state; there is nothing to subscribe to (use GetTask)`,
    );
  }
  const stream = streams.open(ctx, undefined);
  await streams.attach(stream, scope, request.id, false, resumeAfter);
  return stream;
}
