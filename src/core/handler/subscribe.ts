/** SubscribeToTask: a stream of a running task's changes, starting with its current state. */
import { UnsupportedOperationError } from '../../errors/a2a-error.js';
import { isTerminalState } from '../../model/enums.js';
import type { StreamResponse, SubscribeToTaskRequest } from '../../model/schema.js';
import type { ServerCallContext } from '../context.js';
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
  if (isTerminalState(record.task.status.state)) {
    throw new UnsupportedOperationError(
      `task ${request.id} is ${record.task.status.state}, a terminal state; there is nothing to subscribe to (use GetTask)`,
    );
  }
  const stream = streams.open(ctx, undefined);
  await streams.attach(stream, scope, request.id, false);
  return stream;
}
