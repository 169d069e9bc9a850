/**
 * Runs the agent: each execution detached from the request that started it, holding its
 * task's turn until its end is recorded. Counts what runs, so close() can let aborted
 * executions record their end.
 */
import type { Message, SendMessageRequest } from '../../model/schema.js';
import { ANONYMOUS, createCallContext, type ServerCallContext } from '../context.js';
import { ExecutionSink } from '../event-sink.js';
import type { RequestContext } from '../executor.js';
import type { StoredTask, TaskScope } from '../stores/task-store.js';
import type { HandlerDependencies } from './dependencies.js';
import type { Execution } from './execution.js';
import { agentRequestContext, lastClientMessage } from './request-context.js';
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
    this.#start(context, sink, execution, scope);
    return sink;
  }

  /**
   * Hands an unfinished task whose worker was lost back to a resumable executor: runs
   * `execute` on the stored task with `context.resumed`, as its owner. False when the
   * handler is closing or an execution of the task already runs here.
   */
  resume(scope: TaskScope, record: StoredTask): boolean {
    if (this.deps.closed) return false;
    const task = record.task;
    const execution = this.turns.take(scope.tenant, task.id);
    if (!execution) return false;
    const contextId = task.contextId ?? '';
    const message = lastClientMessage(task);
    const ctx = createCallContext({
      tenant: scope.tenant,
      principal: scope.owner === ANONYMOUS.id ? ANONYMOUS : { id: scope.owner },
    });
    const sink = new ExecutionSink({
      manager: this.deps.manager,
      scope,
      taskId: task.id,
      contextId,
      clientMessage: message,
      existing: record,
    });
    const context = agentRequestContext(message, record, ctx, undefined, execution, this.deps.card(), true);
    this.#start(context, sink, execution, scope);
    return true;
  }

  /** Starts `execute` detached, with the task's lease and (across processes) its cancel signal. */
  #start(context: RequestContext, sink: ExecutionSink, execution: Execution, scope: TaskScope): void {
    const { tenant } = scope;
    const taskId = sink.taskId;
    // A cancel handled by another replica reaches this agent through the bus.
    const bus = this.deps.bus;
    const stopOnCancel = bus.spansProcesses
      ? bus.subscribe({ tenant, taskId, owner: scope.owner }, (event) => {
          if (event.state === TaskState.CANCELED) execution.abort(new TaskCanceledReason(taskId));
        })
      : undefined;
    const releaseLease = this.deps.leases?.hold(tenant, scope.owner, taskId);
    this.#running++;
    const running = this.#execute(context, sink, execution, tenant, taskId);
    if (stopOnCancel || releaseLease) {
      void running.then((handedBack) => {
        stopOnCancel?.();
        releaseLease?.(handedBack);
      });
    }
  }

  /**
   * Runs the agent, then applies the return rules; never rejects. Resolves true when the
   * server's close() cut off a resumable executor and its unfinished task was left for the
   * next start.
   */
  async #execute(
    context: RequestContext,
    sink: ExecutionSink,
    execution: Execution,
    tenant: string,
    taskId: string,
  ): Promise<boolean> {
    let error: unknown;
    let threw = false;
    try {
      await this.deps.executor.execute(context, sink);
    } catch (e) {
      error = e;
      threw = true;
    }
    // Only a store with leases can hand a task to the next start.
    const handBack = this.deps.executor.resumable === true && this.deps.leases !== undefined;
    let handedBack = false;
    try {
      handedBack = await sink.finish(error, threw, execution.serverStopped, handBack);
    } catch {
      // A store failure while finishing: nothing more can be done here.
    }
    // Only now, with the end applied, may the task's next message run.
    this.turns.end(tenant, taskId, execution);
    if (--this.#running === 0) this.#drained?.();
    return handedBack;
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
      timer.unref?.(); // workerd: timers without unref
    });
    this.#drained = undefined;
    clearTimeout(timer);
  }
}
