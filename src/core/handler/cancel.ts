/**
 * CancelTask: the agent's cancel hook (when it has one) may end the task itself; otherwise the
 * task is moved to CANCELED here, and a running execution has its signal aborted.
 */
import { A2AError, TaskNotCancelableError } from '../../errors/a2a-error.js';
import { isTerminalState, TaskState } from '../../model/enums.js';
import type { CancelTaskRequest, Task } from '../../model/schema.js';
import { isCancelable } from '../../model/state-machine.js';
import type { ServerCallContext } from '../context.js';
import { ExecutionSink } from '../event-sink.js';
import { errorText } from '../execution-end.js';
import { IllegalTaskEventError } from '../task-changes.js';
import { replyTask } from '../generation.js';
import { TaskCanceledReason } from './abort-reasons.js';
import { scopeOf, type HandlerDependencies } from './dependencies.js';
import { Execution } from './execution.js';
import { notCancelable, notFound } from './refusals.js';
import { agentRequestContext, lastClientMessage } from './request-context.js';
import type { TaskTurns } from './turns.js';

export async function cancelTask(
  deps: HandlerDependencies,
  turns: TaskTurns,
  request: CancelTaskRequest,
  ctx: ServerCallContext,
): Promise<Task> {
  const { manager, executor } = deps;
  const scope = scopeOf(ctx);
  let record = await manager.get(scope, request.id);
  if (!record) throw notFound(request.id);
  const state = record.task.status.state;
  if (state === TaskState.CANCELED) return replyTask(deps.generation, ctx, record);
  if (!isCancelable(state)) throw notCancelable(record.task);
  if (executor.cancel) {
    const clientMessage = lastClientMessage(record.task);
    const sink = new ExecutionSink({
      manager,
      scope,
      taskId: record.task.id,
      contextId: record.task.contextId ?? '',
      clientMessage,
      existing: record,
    });
    const context = agentRequestContext(clientMessage, record, ctx, undefined, new Execution(), deps.card());
    try {
      await executor.cancel(context, sink);
    } catch (error) {
      if (error instanceof A2AError) throw error;
      throw new TaskNotCancelableError(`the agent could not cancel the task: ${errorText(error)}`);
    } finally {
      await sink.seal();
    }
  }
  record = await manager.get(scope, request.id);
  if (!record) throw notFound(request.id);
  if (!isTerminalState(record.task.status.state)) {
    try {
      record = await manager.setStatus(scope, request.id, TaskState.CANCELED, undefined, request.metadata);
    } catch (error) {
      if (!(error instanceof IllegalTaskEventError)) throw error;
      record = await manager.get(scope, request.id);
      if (!record) throw notFound(request.id);
    }
  }
  if (record.task.status.state !== TaskState.CANCELED) throw notCancelable(record.task);
  turns.current(ctx.tenant, request.id)?.abort(new TaskCanceledReason(request.id));
  return replyTask(deps.generation, ctx, record);
}
