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
import { UnavailableError } from '../../errors/a2a-error.js';
import type { HeldLease } from '../recovery.js';
import { TransientMap } from '../transient-map.js';
import { errorText } from '../execution-end.js';

/** How long close() waits for aborted executions to record their end. */
const DRAIN_MS = 1000;

/** How an execution ended for its lease: released, handed back for the next start, or kept (end not recorded). */
type ExecutionEnd = 'ended' | 'handedBack' | 'unrecorded';

export class Executions {
  readonly turns = new TaskTurns();
  /** Executions (with their finishing writes) not yet done; `#drained` is called at zero. */
  #running = 0;
  #drained: (() => void) | undefined;
  /** The sinks of running executions, so close() can answer callers still waiting for a first event. */
  readonly #sinks = new TransientMap<ExecutionSink, ExecutionSink>();

  constructor(private readonly deps: HandlerDependencies) {}

  /**
   * Starts the agent on `execution` (the task's turn, which it now owns), detached from the
   * request. `lease`: the task's lease, taken (and waited for) by the caller already.
   */
  run(
    request: SendMessageRequest,
    ctx: ServerCallContext,
    scope: TaskScope,
    clientMessage: Message,
    existing: StoredTask | undefined,
    execution: Execution,
    lease?: HeldLease,
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
    this.#start(context, sink, execution, scope, lease);
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

  /**
   * Starts `execute` detached, with the task's lease and (across processes) its cancel signal.
   * The agent runs once the lease is in the store: its first event may write the task.
   */
  #start(
    context: RequestContext,
    sink: ExecutionSink,
    execution: Execution,
    scope: TaskScope,
    given?: HeldLease,
  ): void {
    const { tenant } = scope;
    const taskId = sink.taskId;
    // A cancel handled by another replica reaches this agent through the bus.
    const bus = this.deps.bus;
    const stopOnCancel = bus.spansProcesses
      ? bus.subscribe({ tenant, taskId, owner: scope.owner }, (event) => {
          if (event.state === TaskState.CANCELED) execution.abort(new TaskCanceledReason(taskId));
        })
      : undefined;
    const lease = given ?? this.deps.leases?.hold(tenant, scope.owner, taskId);
    this.#running++;
    this.#sinks.set(sink, sink);
    const running = lease
      ? lease.taken.then(
          () => this.#execute(context, sink, execution, tenant, taskId),
          (error: unknown) => this.#refuse(sink, execution, tenant, taskId, error),
        )
      : this.#execute(context, sink, execution, tenant, taskId);
    void running.then((end) => {
      this.#sinks.delete(sink);
      stopOnCancel?.();
      if (!lease) return;
      if (end === 'unrecorded') lease.keepForRecovery();
      else lease.release(end === 'handedBack');
    });
  }

  /** The lease could not be written: the agent does not run, and its caller gets the reason. */
  async #refuse(
    sink: ExecutionSink,
    execution: Execution,
    tenant: string,
    taskId: string,
    error: unknown,
  ): Promise<ExecutionEnd> {
    const refusal = new UnavailableError(
      `the server could not record this task's lease (${errorText(error)}); send the message again`,
    );
    return this.#end(sink, refusal, true, false, false, execution, tenant, taskId);
  }

  /**
   * Runs the agent, then applies the return rules; never rejects. Resolves `handedBack` when
   * the server's close() cut off a resumable executor and its unfinished task was left for
   * the next start, `unrecorded` when the end could not be written.
   */
  async #execute(
    context: RequestContext,
    sink: ExecutionSink,
    execution: Execution,
    tenant: string,
    taskId: string,
  ): Promise<ExecutionEnd> {
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
    return this.#end(sink, error, threw, execution.serverStopped, handBack, execution, tenant, taskId);
  }

  /** Applies the end of an execution and frees its turn; never rejects. */
  async #end(
    sink: ExecutionSink,
    error: unknown,
    threw: boolean,
    serverStopped: boolean,
    handBack: boolean,
    execution: Execution,
    tenant: string,
    taskId: string,
  ): Promise<ExecutionEnd> {
    let end: ExecutionEnd = 'ended';
    try {
      if (await sink.finish(error, threw, serverStopped, handBack)) end = 'handedBack';
    } catch (finishError) {
      // The end (often the FAILED of a store that is failing) is not in the store. The lease
      // is kept so the task is failed later, by this process or by recovery; whoever streams
      // or waits for the task here hears it now (defect 3 of issue 26).
      end = 'unrecorded';
      this.deps.onError(finishError);
      await this.deps.manager
        .publishEndNotRecorded(sink.scope, taskId, errorText(finishError))
        .catch(this.deps.onError);
    }
    // Only now, with the end applied, may the task's next message run.
    this.turns.end(tenant, taskId, execution);
    if (--this.#running === 0) this.#drained?.();
    return end;
  }

  /**
   * Aborts every execution and refuses waiting messages (the server is closing). A caller
   * still waiting for an agent's first event is answered with UnavailableError now, not
   * when (or if) the agent stops.
   */
  stopAll(): void {
    this.turns.stopAll();
    for (const sink of [...this.#sinks.values()]) sink.stopWaiting();
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
