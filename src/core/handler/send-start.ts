/**
 * Starting a send that is not a duplicate: find the task it continues (or make its ids),
 * take the task's turn, record the client message, store its push config, run the agent.
 */
import { newId } from '../../model/ids.js';
import type { Message, SendMessageRequest } from '../../model/schema.js';
import { acceptsMessages } from '../../model/state-machine.js';
import type { ServerCallContext } from '../context.js';
import type { TaskEventListener } from '../event-bus/event-bus.js';
import type { ExecutionSink } from '../event-sink.js';
import type { StoredTask } from '../stores/task-store.js';
import { IllegalTaskEventError } from '../task-changes.js';
import { scopeOf, type HandlerDependencies } from './dependencies.js';
import type { Execution } from './execution.js';
import type { Executions } from './executions.js';
import type { HeldLease } from '../recovery.js';
import { pushConfigFor } from './push-configs.js';
import { invalidParam, notFound, shuttingDown, terminalTask } from './refusals.js';
import { noop } from './send-duplicates.js';
import { generationCheck } from './generation-match.js';
import { generationOn } from '../generation.js';

/** Listens to the task's events from before the agent runs: a stream, or a settlement watch. */
export interface TaskSubscriber {
  readonly handle: TaskEventListener;
  /** Receives the function that unsubscribes `handle`. */
  onEnd(unsubscribe: () => void): void;
}

/**
 * Checks a send that is not a duplicate, records the client message and starts the agent
 * on task `taskId`. When `stream` is given it is subscribed to the task's topic first.
 * `newTaskLease`: the lease of a new task, taken with the idempotency claim (owned from here).
 */
export async function startSend(
  deps: HandlerDependencies,
  executions: Executions,
  request: SendMessageRequest,
  ctx: ServerCallContext,
  taskId: string,
  stream: TaskSubscriber | undefined,
  newTaskLease?: HeldLease,
): Promise<ExecutionSink> {
  const { manager, pushStore } = deps;
  const turns = executions.turns;
  const message = request.message;
  const pushConfig = request.configuration?.taskPushNotificationConfig;
  const scope = scopeOf(ctx);
  const tenant = ctx.tenant;
  const requestedTaskId = message.taskId ? message.taskId : undefined;
  /** This message's turn on its task, once taken; released here unless the agent runs with it. */
  let execution: Execution | undefined;
  /** The task's lease (a new task's taken with its claim, a follow-up's before it rewrites the task); released here unless the agent runs. */
  let lease: HeldLease | undefined = newTaskLease;
  try {
    let existing: StoredTask | undefined;
    let contextId: string;
    if (requestedTaskId) {
      existing = await manager.get(scope, requestedTaskId);
      if (!existing) throw notFound(requestedTaskId);
      const taskContext = existing.task.contextId ?? '';
      if (message.contextId && message.contextId !== taskContext) {
        throw invalidParam(
          'message.contextId',
          `does not match the context of task ${requestedTaskId}; omit it or send the task's contextId`,
        );
      }
      if (!acceptsMessages(existing.task.status.state)) throw terminalTask(existing.task);
      contextId = taskContext;
      // One execution per task at a time: a message that finds the agent still running on
      // the task waits for that execution's end, then is judged by the task it left.
      execution = turns.take(tenant, taskId);
      if (!execution) {
        execution = await turns.wait(tenant, taskId, ctx);
        if (deps.closed) throw shuttingDown();
        existing = await manager.get(scope, taskId);
        if (!existing) throw notFound(taskId);
        if (!acceptsMessages(existing.task.status.state)) throw terminalTask(existing.task);
      }
    } else {
      contextId = message.contextId ? message.contextId : newId();
    }
    const clientMessage = inTask(message, taskId, contextId);
    if (stream) {
      const unsubscribe = deps.bus.subscribe({ tenant, taskId, owner: scope.owner }, stream.handle);
      stream.onEnd(unsubscribe);
    }
    if (existing) {
      // The lease is in the store before the task is saved WORKING: a crash between the two
      // leaves a lease for recovery to find, never a WORKING task without one (issue 26).
      lease = deps.leases?.hold(tenant, scope.owner, taskId);
      if (lease) await lease.taken;
      try {
        existing = await manager.addClientMessage(
          scope,
          taskId,
          clientMessage,
          generationCheck(deps, request, ctx),
        );
      } catch (error) {
        if (error instanceof IllegalTaskEventError) {
          const now = await manager.get(scope, taskId);
          throw now ? terminalTask(now.task) : notFound(taskId);
        }
        throw error;
      }
    }
    if (pushConfig) {
      const opted = generationOn(deps.generation, ctx); // GEN-6: recorded with the config
      await pushStore.put(scope, pushConfigFor(pushConfig, taskId, ctx, opted));
    }
    // A new task's id is unknown to anyone else: its turn is free.
    const turn = execution ?? turns.take(tenant, taskId)!;
    execution = undefined; // the agent owns the turn from here
    const held = lease;
    lease = undefined; // and the lease
    const sink = executions.run(request, ctx, scope, clientMessage, existing, turn, held);
    if (pushConfig) {
      sink.outcome.then((outcome) => {
        if (outcome.kind === 'message') void pushStore.deleteAll(scope, taskId);
      }, noop);
    }
    return sink;
  } catch (error) {
    if (execution) turns.end(tenant, taskId, execution);
    lease?.release();
    throw error;
  }
}

/**
 * The client's message as the task records it: its fields, with the task's ids. Built field by
 * field: an object spread of a request's message (often a dictionary-mode object, after
 * validation and normalization) was the costliest line of an echo request.
 */
function inTask(message: Message, taskId: string, contextId: string): Message {
  const recorded: Message = { messageId: message.messageId, role: message.role, parts: message.parts };
  if (message.metadata !== undefined) recorded.metadata = message.metadata;
  if (message.extensions !== undefined) recorded.extensions = message.extensions;
  if (message.referenceTaskIds !== undefined) recorded.referenceTaskIds = message.referenceTaskIds;
  recorded.taskId = taskId;
  recorded.contextId = contextId;
  return recorded;
}
