/**
 * Runs the agent: each execution detached from the request that started it, holding its
 * task's turn until its end is recorded. Counts what runs, so close() can let aborted
 * executions record their end.
 */
import type { Message, SendMessageRequest } from '../../model/schema.js';
import type { ServerCallContext } from '../context.js';
import { ExecutionSink } from '../event-sink.js';
import type { RequestContext } from '../executor.js';
import type { StoredTask, TaskScope } from '../stores/task-store.js';
import type { HandlerDependencies } from './dependencies.js';
import type { Execution } from './execution.js';
import { agentRequestContext } from './request-context.js';
import { TaskTurns } from './turns.js';
import { TaskCanceledReason } from './abort-reasons.js';
import { TaskState } from '../../model/enums.js';

/** How long close() waits for aborted executions to record their end. */
const DRAIN_MS = 1000;

export class Executions {
  readonly turns = new TaskTurns();
  /** Executions (with their finishing writes) not yet done; `#drained` is called at zero. */
  #running = 0;
  #drained: (() => void) | undefined;

  constructor(private readonly deps: HandlerDependencies) {}

  /** Starts the agent on `execution` (the task's turn, which it now owns), detached from the request. */
  run(
    request: SendMessageRequest,
    ctx: ServerCallContext,
    scope: TaskScope,
    clientMessage: Message,
    existing: StoredTask | undefined,
    execution: Execution,
  ): ExecutionSink {
    const taskId = clientMessage.taskId!;
    const contextId = clientMessage.contextId!;
    const sink = new ExecutionSink({
      manager: this.deps.manager,
      scope,
      taskId,
      contextId,
      clientMessage,
      existing,
      ...(request.metadata ? { requestMetadata: request.metadata } : {}),
    });
    const context = agentRequestContext(clientMessage, existing, ctx, request, execution, this.deps.card());
    // A cancel handled by another replica reaches this agent through the bus.
    const bus = this.deps.bus;
    const stopOnCancel = bus.spansProcesses
      ? bus.subscribe({ tenant: ctx.tenant, taskId, owner: scope.owner }, (event) => {
          if (event.state === TaskState.CANCELED) execution.abort(new TaskCanceledReason(taskId));
        })
      : undefined;
    const releaseLease = this.deps.leases?.hold(ctx.tenant, ctx.principal.id, taskId);
    this.#running++;
    const running = this.#execute(context, sink, execution, ctx.tenant, taskId);
    if (stopOnCancel || releaseLease) {
      void running.finally(() => {
        stopOnCancel?.();
        releaseLease?.();
      });
    }
    return sink;
  }

  /** Runs the agent, then applies the return rules; never rejects. */
  async #execute(
    context: RequestContext,
    sink: ExecutionSink,
    execution: Execution,
    tenant: string,
    taskId: string,
  ): Promise<void> {
    let error: unknown;
    let threw = false;
    try {
      await this.deps.executor.execute(context, sink);
    } catch (e) {
      error = e;
      threw = true;
    }
    try {
      await sink.finish(error, threw, execution.serverStopped);
    } catch {
      // A store failure while finishing: nothing more can be done here.
    }
    // Only now, with the end applied, may the task's next message run.
    this.turns.end(tenant, taskId, execution);
    if (--this.#running === 0) this.#drained?.();
  }

  /** Aborts every execution and refuses waiting messages (the server is closing). */
  stopAll(): void {
    this.turns.stopAll();
  }

  /**
   * Gives aborted executions a moment to record their end; never waits for an agent that
   * ignores its signal.
   */
  async drain(): Promise<void> {
    if (this.#running === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      this.#drained = resolve;
      timer = setTimeout(resolve, DRAIN_MS);
      timer.unref();
    });
    this.#drained = undefined;
    clearTimeout(timer);
  }
}
