/**
 * The eleven operations, binding-agnostic. Bindings validate and translate the wire form,
 * build a {@link ServerCallContext}, and call exactly one method here.
 */
import type {
  AgentCard,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  Empty,
  GetExtendedAgentCardRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  SendMessageRequest,
  SendMessageResponse,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '../model/schema.js';
import type { ServerCallContext } from './context.js';
import {
  A2AError,
  ExtendedAgentCardNotConfiguredError,
  InvalidParamsError,
  PushNotificationNotSupportedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnavailableError,
  UnsupportedOperationError,
} from '../errors/a2a-error.js';
import { isInterruptedState, isTerminalState, parseTaskState, Role, TaskState } from '../model/enums.js';
import { newId } from '../model/ids.js';
import { acceptsMessages, isCancelable } from '../model/state-machine.js';
import { timestampToMillis } from '../model/timestamp.js';
import type { EventBus } from './event-bus/event-bus.js';
import { InProcessEventBus } from './event-bus/in-process.js';
import { TaskEventStream } from './event-bus/task-stream.js';
import { errorText, ExecutionSink } from './event-sink.js';
import { messageData, messageText, type AgentExecutor, type RequestContext } from './executor.js';
import { checkInputModes } from './input-modes.js';
import { ListCursorCodec, type CursorBinding } from './list-cursor.js';
import { ExecutionLeases, type RecoveryOptions } from './recovery.js';
import { isLeaseStore } from './stores/leases.js';
import { MemoryPushConfigStore, MemoryTaskStore } from './stores/memory.js';
import { PAGE_TOKEN_SECRET_NAME } from './stores/sql/shared.js';
import type { PushConfigStore } from './stores/push-config-store.js';
import type {
  IdempotencyKey,
  IdempotencyRecord,
  ListPosition,
  StoredTask,
  TaskScope,
  TaskStore,
} from './stores/task-store.js';
import {
  DEFAULT_INTERRUPTED_TIMEOUT_MS,
  IllegalTaskEventError,
  TaskManager,
  viewTask,
} from './task-manager.js';

/**
 * What every binding calls. Requests arrive already schema-valid. Errors are thrown as
 * A2AError subclasses. The streaming operations resolve to an iterable only after every
 * check that can fail before the first event has passed (DIGEST G5): a rejected promise is
 * an ordinary error response, not a stream.
 */
export interface RequestHandler {
  /** The public agent card, as served at `/.well-known/agent-card.json`. */
  agentCard(): AgentCard;
  sendMessage(request: SendMessageRequest, ctx: ServerCallContext): Promise<SendMessageResponse>;
  sendStreamingMessage(
    request: SendMessageRequest,
    ctx: ServerCallContext,
  ): Promise<AsyncIterable<StreamResponse>>;
  getTask(request: GetTaskRequest, ctx: ServerCallContext): Promise<Task>;
  listTasks(request: ListTasksRequest, ctx: ServerCallContext): Promise<ListTasksResponse>;
  cancelTask(request: CancelTaskRequest, ctx: ServerCallContext): Promise<Task>;
  subscribeToTask(
    request: SubscribeToTaskRequest,
    ctx: ServerCallContext,
  ): Promise<AsyncIterable<StreamResponse>>;
  createTaskPushNotificationConfig(
    request: TaskPushNotificationConfig,
    ctx: ServerCallContext,
  ): Promise<TaskPushNotificationConfig>;
  getTaskPushNotificationConfig(
    request: GetTaskPushNotificationConfigRequest,
    ctx: ServerCallContext,
  ): Promise<TaskPushNotificationConfig>;
  listTaskPushNotificationConfigs(
    request: ListTaskPushNotificationConfigsRequest,
    ctx: ServerCallContext,
  ): Promise<ListTaskPushNotificationConfigsResponse>;
  deleteTaskPushNotificationConfig(
    request: DeleteTaskPushNotificationConfigRequest,
    ctx: ServerCallContext,
  ): Promise<Empty>;
  getExtendedAgentCard(request: GetExtendedAgentCardRequest, ctx: ServerCallContext): Promise<AgentCard>;
}

// ---- the default implementation ------------------------------------------------------

/** Options of {@link DefaultRequestHandler}. */
export interface DefaultRequestHandlerOptions {
  /** The agent. */
  executor: AgentExecutor;
  /** The public card; capabilities (streaming, pushNotifications, extendedAgentCard) are read from it. */
  card: () => AgentCard;
  /** The extended card, or a function giving it per caller. */
  extendedCard?: AgentCard | ((ctx: ServerCallContext) => AgentCard | Promise<AgentCard>);
  /** @default new MemoryTaskStore() */
  taskStore?: TaskStore;
  /** @default new MemoryPushConfigStore() */
  pushConfigStore?: PushConfigStore;
  /** @default new InProcessEventBus() */
  eventBus?: EventBus;
  /**
   * Key that signs ListTasks page tokens. Give every replica the same one.
   * @default the store's own secret when it keeps one (`getOrCreateSecret`: SQLite, PostgreSQL),
   * else 32 random bytes per handler (tokens do not survive a restart)
   */
  pageTokenSecret?: string | Uint8Array;
  /**
   * How long a task may wait in `TASK_STATE_INPUT_REQUIRED` or `TASK_STATE_AUTH_REQUIRED` for
   * the client, counted from its `status.timestamp`. A new client message on the task ends the
   * wait; a new interrupted status starts it again. When it runs out the task becomes
   * `TASK_STATE_FAILED` with an agent status message saying why, open streams receive that
   * update and close, a still-running `execute()` has its `signal` aborted, and later
   * messages to the task are refused like for any terminal task. `0` or `Infinity` waits forever.
   * @default 3600000 (one hour)
   * @example interruptedTimeoutMs: 15 * 60_000
   */
  interruptedTimeoutMs?: number;
  /**
   * Crash recovery with execution leases and a heartbeat, on stores that keep leases (SQLite,
   * PostgreSQL): tasks left SUBMITTED or WORKING by a process that died are failed by the next
   * start or another replica. `false` turns it off.
   * @default on, with a 30 s lease
   */
  recovery?: RecoveryOptions | false;
}

/** What a SendMessage led to, shared with duplicates of the same messageId. */
type SendOutcome =
  | { readonly kind: 'task'; readonly taskId: string }
  | { readonly kind: 'message'; readonly message: Message };

/**
 * One running `execute` (or cancel hook) of the agent. Its AbortSignal is made only when the
 * agent reads it: most executions finish without ever looking, and an AbortController (an
 * EventTarget) is costly to create per request.
 */
class Execution {
  #controller: AbortController | undefined;
  #aborted = false;
  #reason: unknown;

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  abort(reason: unknown): void {
    if (this.#controller) this.#controller.abort(reason);
    else if (!this.#aborted) {
      this.#aborted = true;
      this.#reason = reason;
    }
  }
}

/**
 * The {@link RequestContext} an agent receives. `signal` is an own enumerable getter, so the
 * AbortSignal is created on first read and still copied by `{ ...context }`.
 */
function agentRequestContext(
  message: Message,
  existing: StoredTask | undefined,
  ctx: ServerCallContext,
  request: SendMessageRequest | undefined,
  execution: Execution,
): RequestContext {
  return {
    message,
    // A copy: the stored task is shared and must never be changed by the agent.
    task: existing ? structuredClone(existing.task) : undefined,
    taskId: message.taskId ?? existing?.task.id ?? '',
    contextId: message.contextId ?? existing?.task.contextId ?? '',
    principal: ctx.principal,
    tenant: ctx.tenant,
    requestedExtensions: ctx.requestedExtensions,
    configuration: request?.configuration,
    metadata: request?.metadata,
    get signal(): AbortSignal {
      return execution.signal;
    },
    text: messageText(message),
    data: messageData(message),
  };
}

/** Values keyed by tenant, then principal, then one more string (no joined key strings). */
class CallerMap<V> {
  readonly #tenants = new Map<string, Map<string, Map<string, V>>>();

  get(tenant: string, principal: string, key: string): V | undefined {
    return this.#tenants.get(tenant)?.get(principal)?.get(key);
  }

  set(tenant: string, principal: string, key: string, value: V): void {
    let principals = this.#tenants.get(tenant);
    if (!principals) {
      principals = new Map();
      this.#tenants.set(tenant, principals);
    }
    let values = principals.get(principal);
    if (!values) {
      values = new Map();
      principals.set(principal, values);
    }
    values.set(key, value);
  }

  delete(tenant: string, principal: string, key: string): void {
    const principals = this.#tenants.get(tenant);
    const values = principals?.get(principal);
    if (!principals || !values?.delete(key) || values.size > 0) return;
    principals.delete(principal);
    if (principals.size === 0) this.#tenants.delete(tenant);
  }
}

/**
 * A SendMessage in progress, for duplicates of its messageId arriving meanwhile. The promise
 * they wait on is made only when one arrives (rare), not for every request.
 */
class InflightSend {
  #state: 'running' | 'resolved' | 'rejected' = 'running';
  #value: unknown;
  #promise: Promise<SendOutcome> | undefined;
  #resolve: ((outcome: SendOutcome) => void) | undefined;
  #reject: ((error: unknown) => void) | undefined;

  /** The outcome of the original request. */
  outcome(): Promise<SendOutcome> {
    if (!this.#promise) {
      if (this.#state === 'resolved') this.#promise = Promise.resolve(this.#value as SendOutcome);
      else if (this.#state === 'rejected') this.#promise = Promise.reject(this.#value);
      else {
        this.#promise = new Promise<SendOutcome>((resolve, reject) => {
          this.#resolve = resolve;
          this.#reject = reject;
        });
      }
      this.#promise.catch(noop);
    }
    return this.#promise;
  }

  resolve(outcome: SendOutcome): void {
    if (this.#state !== 'running') return;
    this.#state = 'resolved';
    this.#value = outcome;
    this.#resolve?.(outcome);
  }

  reject(error: unknown): void {
    if (this.#state !== 'running') return;
    this.#state = 'rejected';
    this.#value = error;
    this.#reject?.(error);
  }
}

function noop(): void {}

/** A blocking SendMessage waiting for its task to settle; released by close(). */
interface Waiter {
  readonly reject: (error: unknown) => void;
}

const DEFAULT_PAGE_SIZE = 50;
const DEFAULT_PUSH_PAGE_SIZE = 100;

/**
 * The eleven operations over a TaskManager, a TaskStore, an EventBus and the user's
 * AgentExecutor. Every lookup is scoped by tenant and principal; anything else is
 * TaskNotFoundError, exactly as for a missing task.
 */
export class DefaultRequestHandler implements RequestHandler {
  readonly #executor: AgentExecutor;
  readonly #card: () => AgentCard;
  readonly #extendedCard: DefaultRequestHandlerOptions['extendedCard'];
  readonly #store: TaskStore;
  readonly #pushStore: PushConfigStore;
  readonly #bus: EventBus;
  readonly #manager: TaskManager;
  /** Leases of running executions (crash recovery), when the store keeps them. */
  readonly #leases: ExecutionLeases | undefined;
  /** Signs page tokens; undefined until the store's secret was read (see #cursorCodec). */
  #cursors: ListCursorCodec | undefined;
  #cursorsLoading: Promise<ListCursorCodec> | undefined;
  /** Running executions by tenant, then task id (an array while several run at once). */
  readonly #executions = new Map<string, Map<string, Execution | Execution[]>>();
  /** SendMessages in progress by idempotency key, for duplicates arriving meanwhile. */
  readonly #inflight = new CallerMap<InflightSend>();
  readonly #streams = new Set<TaskEventStream>();
  readonly #waiters = new Set<Waiter>();
  /** Executions (with their finishing writes) not yet done; `#drained` is called at zero. */
  #running = 0;
  #drained: (() => void) | undefined;
  #closed = false;

  constructor(options: DefaultRequestHandlerOptions) {
    this.#executor = options.executor;
    this.#card = options.card;
    this.#extendedCard = options.extendedCard;
    this.#store = options.taskStore ?? new MemoryTaskStore();
    this.#pushStore = options.pushConfigStore ?? new MemoryPushConfigStore();
    this.#bus = options.eventBus ?? new InProcessEventBus();
    this.#manager = new TaskManager(this.#store, this.#bus, {
      interruptedTimeoutMs: options.interruptedTimeoutMs ?? DEFAULT_INTERRUPTED_TIMEOUT_MS,
      onInterruptedExpired: (record) => {
        // An agent still running (waiting for an out-of-band credential) stops waiting.
        for (const execution of this.#executionsOf(record.tenant, record.task.id)) {
          execution.abort(new InterruptedWaitExpiredReason(record.task.id));
        }
      },
    });
    if (options.recovery !== false && isLeaseStore(this.#store)) {
      this.#leases = new ExecutionLeases(this.#store, this.#manager, options.recovery ?? {});
      this.#leases.start();
    }
    // Without an operator's secret, a store that keeps one gives every replica (and the next
    // start) the same key; otherwise this handler makes a random one.
    if (options.pageTokenSecret !== undefined || !this.#store.getOrCreateSecret) {
      this.#cursors = new ListCursorCodec(options.pageTokenSecret);
    }
  }

  /** The page-token codec, reading the store's secret on first use (retried after a failure). */
  #cursorCodec(): ListCursorCodec | Promise<ListCursorCodec> {
    if (this.#cursors) return this.#cursors;
    this.#cursorsLoading ??= this.#store.getOrCreateSecret!(PAGE_TOKEN_SECRET_NAME).then(
      (secret) => (this.#cursors = new ListCursorCodec(secret)),
      (error: unknown) => {
        this.#cursorsLoading = undefined;
        throw error;
      },
    );
    return this.#cursorsLoading;
  }

  /** The TaskManager (for push delivery and tools that need to observe tasks). */
  get taskManager(): TaskManager {
    return this.#manager;
  }

  agentCard(): AgentCard {
    return this.#card();
  }

  // ---- SendMessage / SendStreamingMessage ---------------------------------------------

  async sendMessage(request: SendMessageRequest, ctx: ServerCallContext): Promise<SendMessageResponse> {
    const start = await this.#beginSend(request, ctx);
    const returnImmediately = request.configuration?.returnImmediately === true;
    const historyLength = request.configuration?.historyLength;
    const scope = scopeOf(ctx);
    let taskId: string;
    if (start.kind === 'duplicate') {
      const outcome = await start.outcome;
      if (outcome.kind === 'message') return { message: outcome.message };
      taskId = outcome.taskId;
    } else {
      const outcome = await start.sink.outcome;
      if (outcome.kind === 'message') return { message: outcome.message };
      const record = outcome.record;
      taskId = record.task.id;
      if (returnImmediately || isSettled(record.task.status.state)) {
        return { task: viewTask(record.task, historyLength) };
      }
    }
    const record = returnImmediately
      ? await this.#manager.get(scope, taskId)
      : await this.#waitSettled(scope, taskId, ctx);
    if (!record) throw notFound(taskId);
    return { task: viewTask(record.task, historyLength) };
  }

  async sendStreamingMessage(
    request: SendMessageRequest,
    ctx: ServerCallContext,
  ): Promise<AsyncIterable<StreamResponse>> {
    this.#requireStreaming();
    const historyLength = request.configuration?.historyLength;
    const stream = this.#openStream(ctx, historyLength);
    try {
      // Subscribed before the agent runs, so no event is missed; events already in the
      // snapshot are skipped by version.
      const start = await this.#beginSend(request, ctx, stream);
      if (start.kind === 'duplicate') {
        const outcome = await start.outcome;
        if (outcome.kind === 'message') {
          stream.startWithMessage(outcome.message);
          return stream;
        }
        await this.#attach(stream, scopeOf(ctx), outcome.taskId, true);
        return stream;
      }
      const outcome = await start.sink.outcome;
      if (outcome.kind === 'message') stream.startWithMessage(outcome.message);
      else stream.start(outcome.record.task, outcome.record.version, true);
      return stream;
    } catch (error) {
      stream.return();
      throw error;
    }
  }

  /**
   * Validates a send, handles duplicates, records the client message and starts the agent.
   * When `stream` is given it is subscribed to the task's topic before the agent runs.
   */
  async #beginSend(
    request: SendMessageRequest,
    ctx: ServerCallContext,
    stream?: TaskEventStream,
  ): Promise<{ kind: 'duplicate'; outcome: Promise<SendOutcome> } | { kind: 'run'; sink: ExecutionSink }> {
    if (this.#closed) throw new UnavailableError('the server is shutting down');
    const message = request.message;
    const configuration = request.configuration;
    const pushConfig = configuration?.taskPushNotificationConfig;
    if (pushConfig) this.#requirePush();
    checkHistoryLength(configuration?.historyLength, 'configuration.historyLength');
    checkInputModes(this.#card(), message);
    const scope = scopeOf(ctx);
    const tenant = ctx.tenant;
    const principal = ctx.principal.id;
    const messageId = message.messageId;
    const key: IdempotencyKey = { tenant, principal, messageId };

    const running = this.#inflight.get(tenant, principal, messageId);
    if (running) return this.#duplicate(running.outcome());

    const requestedTaskId = message.taskId ? message.taskId : undefined;
    const taskId = requestedTaskId ?? newId();
    const inflight = new InflightSend();
    this.#inflight.set(tenant, principal, messageId, inflight);
    let claimed = false;
    try {
      const previous = await this.#store.claimIdempotencyKey(key, { status: 'pending', taskId });
      if (previous) {
        inflight.resolve(await this.#outcomeOf(previous, scope));
        this.#inflight.delete(tenant, principal, messageId);
        return this.#duplicate(inflight.outcome());
      }
      claimed = true;

      let existing: StoredTask | undefined;
      let contextId: string;
      if (requestedTaskId) {
        existing = await this.#manager.get(scope, requestedTaskId);
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
      } else {
        contextId = message.contextId ? message.contextId : newId();
      }
      const clientMessage: Message = { ...message, taskId, contextId };
      if (stream) {
        const unsubscribe = this.#bus.subscribe({ tenant: ctx.tenant, taskId }, stream.handle);
        stream.onEnd(unsubscribe);
      }
      if (existing) {
        try {
          existing = await this.#manager.addClientMessage(scope, taskId, clientMessage);
        } catch (error) {
          if (error instanceof IllegalTaskEventError) {
            const now = await this.#manager.get(scope, taskId);
            throw now ? terminalTask(now.task) : notFound(taskId);
          }
          throw error;
        }
      }
      let precreated = false;
      if (!existing && configuration?.returnImmediately === true && !stream) {
        // The client asked for a task handle at once: create it before the agent runs.
        existing = await this.#manager.create(scope, {
          id: taskId,
          contextId,
          state: TaskState.SUBMITTED,
          history: [clientMessage],
          ...(request.metadata ? { metadata: request.metadata } : {}),
        });
        precreated = true;
      }
      if (pushConfig) await this.#pushStore.put(scope, pushConfigFor(pushConfig, taskId));
      const sink = this.#run(request, ctx, scope, clientMessage, existing, precreated);
      sink.outcome.then(
        (outcome) => {
          const result: SendOutcome =
            outcome.kind === 'message'
              ? { kind: 'message', message: outcome.message }
              : { kind: 'task', taskId: outcome.record.task.id };
          inflight.resolve(result);
          const release = (): void => this.#inflight.delete(tenant, principal, messageId);
          this.#store
            .setIdempotencyRecord(
              key,
              result.kind === 'message'
                ? { status: 'message', message: result.message }
                : { status: 'task', taskId },
            )
            .then(release, release);
          if (result.kind === 'message' && pushConfig) void this.#pushStore.deleteAll(scope, taskId);
        },
        (error: unknown) => {
          inflight.reject(error);
          this.#inflight.delete(tenant, principal, messageId);
          void this.#store.setIdempotencyRecord(key, undefined);
        },
      );
      return { kind: 'run', sink };
    } catch (error) {
      inflight.reject(error);
      this.#inflight.delete(tenant, principal, messageId);
      if (claimed) await this.#store.setIdempotencyRecord(key, undefined);
      throw error;
    }
  }

  /** The outcome recorded for a repeated messageId (from the store). */
  async #outcomeOf(record: IdempotencyRecord, scope: TaskScope): Promise<SendOutcome> {
    if (record.status === 'message') return { kind: 'message', message: record.message };
    if (record.status === 'task') return { kind: 'task', taskId: record.taskId };
    // Pending elsewhere (another replica): the task exists once the agent emitted anything.
    const task = await this.#manager.get(scope, record.taskId);
    if (task) return { kind: 'task', taskId: record.taskId };
    throw new UnavailableError('a message with this messageId is still being processed; retry later');
  }

  /** Waits for the original's first event, so its errors are this request's errors too. */
  async #duplicate(
    outcome: Promise<SendOutcome>,
  ): Promise<{ kind: 'duplicate'; outcome: Promise<SendOutcome> }> {
    await outcome;
    return { kind: 'duplicate', outcome };
  }

  /** Starts the agent, detached from the request. */
  #run(
    request: SendMessageRequest,
    ctx: ServerCallContext,
    scope: TaskScope,
    clientMessage: Message,
    existing: StoredTask | undefined,
    precreated: boolean,
  ): ExecutionSink {
    const taskId = clientMessage.taskId!;
    const contextId = clientMessage.contextId!;
    const sink = new ExecutionSink({
      manager: this.#manager,
      scope,
      taskId,
      contextId,
      clientMessage,
      existing,
      replyCompletes: precreated,
      ...(request.metadata ? { requestMetadata: request.metadata } : {}),
    });
    const execution = new Execution();
    const context = agentRequestContext(
      clientMessage,
      precreated ? undefined : existing,
      ctx,
      request,
      execution,
    );
    this.#addExecution(ctx.tenant, taskId, execution);
    // A cancel handled by another replica reaches this agent through the bus.
    const stopOnCancel = this.#bus.spansProcesses
      ? this.#bus.subscribe({ tenant: ctx.tenant, taskId }, (event) => {
          if (event.state === TaskState.CANCELED) execution.abort(new TaskCanceledReason(taskId));
        })
      : undefined;
    const releaseLease = this.#leases?.hold(ctx.tenant, ctx.principal.id, taskId);
    this.#running++;
    void this.#execute(context, sink, execution, ctx.tenant, taskId).finally(() => {
      stopOnCancel?.();
      releaseLease?.();
    });
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
      await this.#executor.execute(context, sink);
    } catch (e) {
      error = e;
      threw = true;
    }
    const othersRunning = this.#removeExecution(tenant, taskId, execution);
    try {
      await sink.finish(error, threw, othersRunning);
    } catch {
      // A store failure while finishing: nothing more can be done here.
    }
    if (--this.#running === 0) this.#drained?.();
  }

  /** Records a running execution. */
  #addExecution(tenant: string, taskId: string, execution: Execution): void {
    let byTask = this.#executions.get(tenant);
    if (!byTask) {
      byTask = new Map();
      this.#executions.set(tenant, byTask);
    }
    const current = byTask.get(taskId);
    if (current === undefined) byTask.set(taskId, execution);
    else if (Array.isArray(current)) current.push(execution);
    else byTask.set(taskId, [current, execution]);
  }

  /** Forgets a finished execution; true when others of the same task are still running. */
  #removeExecution(tenant: string, taskId: string, execution: Execution): boolean {
    const byTask = this.#executions.get(tenant);
    const current = byTask?.get(taskId);
    if (!byTask || current === undefined) return false;
    if (Array.isArray(current)) {
      const index = current.indexOf(execution);
      if (index >= 0) current.splice(index, 1);
      if (current.length > 1) return true;
      if (current.length === 1) {
        byTask.set(taskId, current[0]!);
        return true;
      }
    } else if (current !== execution) {
      return true;
    }
    byTask.delete(taskId);
    if (byTask.size === 0) this.#executions.delete(tenant);
    return false;
  }

  /** The executions of a task running now. */
  #executionsOf(tenant: string, taskId: string): readonly Execution[] {
    const current = this.#executions.get(tenant)?.get(taskId);
    if (current === undefined) return [];
    return Array.isArray(current) ? current.slice() : [current];
  }

  /**
   * Resolves with the task once it is terminal or interrupted. The client's signal is read only
   * when the task is still running a turn of the event loop after the first look (reading it
   * may create it, and an agent that answers without I/O has settled by then); a client gone
   * meanwhile leaves the signal aborted, which is then noticed at once.
   */
  #waitSettled(scope: TaskScope, taskId: string, ctx: ServerCallContext): Promise<StoredTask | undefined> {
    return new Promise<StoredTask | undefined>((resolve, reject) => {
      let finished = false;
      let signal: AbortSignal | undefined;
      let pendingListen: NodeJS.Immediate | undefined;
      const waiter: Waiter = { reject: (e) => finish(undefined, e) };
      const onAbort = (): void => finish(undefined, new UnavailableError('the client went away'));
      const listen = (): void => {
        pendingListen = undefined;
        if (finished || signal) return;
        signal = ctx.signal;
        if (!signal) return;
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
      };
      const listenSoon = (): void => {
        if (finished || signal || pendingListen) return;
        pendingListen = setImmediate(listen);
      };
      const unsubscribe = this.#bus.subscribe({ tenant: scope.tenant, taskId }, (event) => {
        if (!event.executionEnded && isSettled(event.state)) check();
      });
      const finish = (record: StoredTask | undefined, error?: unknown): void => {
        if (finished) return;
        finished = true;
        unsubscribe();
        this.#waiters.delete(waiter);
        if (pendingListen) clearImmediate(pendingListen);
        signal?.removeEventListener('abort', onAbort);
        if (error !== undefined) reject(error);
        else resolve(record);
      };
      const check = (): void => {
        this.#manager.get(scope, taskId).then(
          (record) => {
            if (!record || isSettled(record.task.status.state)) finish(record);
            else listenSoon();
          },
          (error: unknown) => finish(undefined, error),
        );
      };
      this.#waiters.add(waiter);
      check();
    });
  }

  // ---- GetTask / ListTasks / CancelTask / SubscribeToTask -------------------------------

  async getTask(request: GetTaskRequest, ctx: ServerCallContext): Promise<Task> {
    checkHistoryLength(request.historyLength, 'historyLength');
    const record = await this.#manager.get(scopeOf(ctx), request.id);
    if (!record) throw notFound(request.id);
    return viewTask(record.task, request.historyLength);
  }

  async listTasks(request: ListTasksRequest, ctx: ServerCallContext): Promise<ListTasksResponse> {
    const pageSize = request.pageSize ?? DEFAULT_PAGE_SIZE;
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 100) {
      throw invalidParam('pageSize', 'must be between 1 and 100');
    }
    checkHistoryLength(request.historyLength, 'historyLength');
    let status: TaskState | undefined;
    if (request.status !== undefined && request.status !== TaskState.UNSPECIFIED) {
      status = parseTaskState(request.status);
      if (status === undefined) throw invalidParam('status', 'is not a TaskState');
    }
    let after: number | undefined;
    if (request.statusTimestampAfter !== undefined) {
      after = timestampToMillis(request.statusTimestampAfter);
      if (!Number.isFinite(after)) throw invalidParam('statusTimestampAfter', 'is not an RFC 3339 timestamp');
    }
    const contextId = request.contextId ? request.contextId : undefined;
    const binding: CursorBinding = {
      tenant: ctx.tenant,
      principal: ctx.principal.id,
      contextId,
      status,
      statusTimeAtOrAfterMs: after,
    };
    const cursors = this.#cursors ?? (await this.#cursorCodec());
    let position: ListPosition | undefined;
    if (request.pageToken) {
      position = cursors.decode(binding, request.pageToken);
      if (!position) {
        throw invalidParam('pageToken', 'is not a page token issued for this caller and these filters');
      }
    }
    const page = await this.#store.list({
      tenant: ctx.tenant,
      owner: ctx.principal.id,
      limit: pageSize,
      ...(contextId !== undefined ? { contextId } : {}),
      ...(status !== undefined ? { status } : {}),
      ...(after !== undefined ? { statusTimeAtOrAfterMs: after } : {}),
      ...(position ? { after: position } : {}),
    });
    const includeArtifacts = request.includeArtifacts === true;
    const tasks = page.tasks.map((record) => {
      const task = viewTask(record.task, request.historyLength, includeArtifacts);
      if (includeArtifacts && !task.artifacts) task.artifacts = [];
      return task;
    });
    const last = page.tasks[page.tasks.length - 1];
    return {
      tasks,
      nextPageToken:
        page.hasMore && last
          ? cursors.encode(binding, { statusTimeMs: last.statusTimeMs, id: last.task.id })
          : '',
      pageSize,
      totalSize: page.totalSize,
    };
  }

  async cancelTask(request: CancelTaskRequest, ctx: ServerCallContext): Promise<Task> {
    const scope = scopeOf(ctx);
    let record = await this.#manager.get(scope, request.id);
    if (!record) throw notFound(request.id);
    const state = record.task.status.state;
    if (state === TaskState.CANCELED) return viewTask(record.task);
    if (!isCancelable(state)) throw notCancelable(record.task);
    if (this.#executor.cancel) {
      const clientMessage = lastClientMessage(record.task);
      const sink = new ExecutionSink({
        manager: this.#manager,
        scope,
        taskId: record.task.id,
        contextId: record.task.contextId ?? '',
        clientMessage,
        existing: record,
      });
      const context = agentRequestContext(clientMessage, record, ctx, undefined, new Execution());
      try {
        await this.#executor.cancel(context, sink);
      } catch (error) {
        if (error instanceof A2AError) throw error;
        throw new TaskNotCancelableError(`the agent could not cancel the task: ${errorText(error)}`);
      } finally {
        await sink.seal();
      }
    }
    record = await this.#manager.get(scope, request.id);
    if (!record) throw notFound(request.id);
    if (!isTerminalState(record.task.status.state)) {
      try {
        record = await this.#manager.setStatus(
          scope,
          request.id,
          TaskState.CANCELED,
          undefined,
          request.metadata,
        );
      } catch (error) {
        if (!(error instanceof IllegalTaskEventError)) throw error;
        record = await this.#manager.get(scope, request.id);
        if (!record) throw notFound(request.id);
      }
    }
    if (record.task.status.state !== TaskState.CANCELED) throw notCancelable(record.task);
    for (const execution of this.#executionsOf(ctx.tenant, request.id)) {
      execution.abort(new TaskCanceledReason(request.id));
    }
    return viewTask(record.task);
  }

  async subscribeToTask(
    request: SubscribeToTaskRequest,
    ctx: ServerCallContext,
  ): Promise<AsyncIterable<StreamResponse>> {
    this.#requireStreaming();
    const scope = scopeOf(ctx);
    const record = await this.#manager.get(scope, request.id);
    if (!record) throw notFound(request.id);
    if (isTerminalState(record.task.status.state)) {
      throw new UnsupportedOperationError(
        `task ${request.id} is ${record.task.status.state}, a terminal state; there is nothing to subscribe to (use GetTask)`,
      );
    }
    const stream = this.#openStream(ctx, undefined);
    await this.#attach(stream, scope, request.id, false);
    return stream;
  }

  /** Subscribes `stream` to a task, then starts it with the current snapshot. */
  async #attach(
    stream: TaskEventStream,
    scope: TaskScope,
    taskId: string,
    closeIfSettled: boolean,
  ): Promise<void> {
    const unsubscribe = this.#bus.subscribe({ tenant: scope.tenant, taskId }, stream.handle);
    stream.onEnd(unsubscribe);
    const record = await this.#manager.get(scope, taskId);
    if (!record) {
      stream.return();
      throw notFound(taskId);
    }
    stream.start(record.task, record.version, closeIfSettled);
  }

  #openStream(ctx: ServerCallContext, historyLength: number | undefined): TaskEventStream {
    if (this.#closed) throw new UnavailableError('the server is shutting down');
    const stream = new TaskEventStream((task) => viewTask(task, historyLength));
    this.#streams.add(stream);
    stream.onEnd(() => this.#streams.delete(stream));
    const signal = ctx.signal;
    if (signal) {
      const onAbort = (): void => stream.end();
      if (signal.aborted) stream.end();
      else {
        signal.addEventListener('abort', onAbort, { once: true });
        stream.onEnd(() => signal.removeEventListener('abort', onAbort));
      }
    }
    return stream;
  }

  // ---- push notification configs --------------------------------------------------------

  async createTaskPushNotificationConfig(
    request: TaskPushNotificationConfig,
    ctx: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    this.#requirePush();
    if (!request.taskId) throw invalidParam('taskId', 'is required');
    await this.#requireTask(ctx, request.taskId);
    return this.#pushStore.put(scopeOf(ctx), pushConfigFor(request, request.taskId));
  }

  async getTaskPushNotificationConfig(
    request: GetTaskPushNotificationConfigRequest,
    ctx: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    this.#requirePush();
    await this.#requireTask(ctx, request.taskId);
    const config = await this.#pushStore.get(scopeOf(ctx), request.taskId, request.id);
    if (!config)
      throw new TaskNotFoundError(
        `push notification config ${request.id} not found for task ${request.taskId}`,
      );
    return config;
  }

  async listTaskPushNotificationConfigs(
    request: ListTaskPushNotificationConfigsRequest,
    ctx: ServerCallContext,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    this.#requirePush();
    const pageSize = request.pageSize ? request.pageSize : DEFAULT_PUSH_PAGE_SIZE;
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 100) {
      throw invalidParam('pageSize', 'must be between 0 and 100');
    }
    await this.#requireTask(ctx, request.taskId);
    let afterId: string | undefined;
    if (request.pageToken) {
      afterId = decodePushToken(request.pageToken);
      if (afterId === undefined) throw invalidParam('pageToken', 'is not a page token issued by this server');
    }
    const page = await this.#pushStore.list(scopeOf(ctx), request.taskId, pageSize, afterId);
    return {
      configs: page.configs,
      nextPageToken: page.nextAfterId === undefined ? '' : encodePushToken(page.nextAfterId),
    };
  }

  async deleteTaskPushNotificationConfig(
    request: DeleteTaskPushNotificationConfigRequest,
    ctx: ServerCallContext,
  ): Promise<Empty> {
    this.#requirePush();
    await this.#requireTask(ctx, request.taskId);
    await this.#pushStore.delete(scopeOf(ctx), request.taskId, request.id);
    return {};
  }

  #requireStreaming(): void {
    if (this.#card().capabilities.streaming !== true) {
      throw new UnsupportedOperationError(
        'this agent does not support streaming (capabilities.streaming is not true)',
      );
    }
  }

  #requirePush(): void {
    if (this.#card().capabilities.pushNotifications !== true) {
      throw new PushNotificationNotSupportedError(
        'this agent does not support push notifications (capabilities.pushNotifications is not true)',
      );
    }
  }

  async #requireTask(ctx: ServerCallContext, taskId: string): Promise<StoredTask> {
    const record = await this.#manager.get(scopeOf(ctx), taskId);
    if (!record) throw notFound(taskId);
    return record;
  }

  // ---- extended card, shutdown ----------------------------------------------------------

  async getExtendedAgentCard(
    _request: GetExtendedAgentCardRequest,
    ctx: ServerCallContext,
  ): Promise<AgentCard> {
    if (this.#card().capabilities.extendedAgentCard !== true) {
      throw new UnsupportedOperationError(
        'this agent has no extended agent card (capabilities.extendedAgentCard is not true)',
      );
    }
    const extended = this.#extendedCard;
    if (extended === undefined) throw new ExtendedAgentCardNotConfiguredError();
    return typeof extended === 'function' ? extended(ctx) : extended;
  }

  /**
   * Stops accepting requests, aborts running executions (their tasks fail unless the agent
   * ends them), ends open streams and releases waiting SendMessage calls.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#manager.close();
    for (const byTask of this.#executions.values()) {
      for (const running of byTask.values()) {
        for (const execution of Array.isArray(running) ? running.slice() : [running])
          execution.abort(new UnavailableError('the server is shutting down'));
      }
    }
    for (const stream of [...this.#streams]) stream.end();
    for (const waiter of [...this.#waiters])
      waiter.reject(new UnavailableError('the server is shutting down'));
    // Give aborted executions a moment to record their end; never wait for an agent that ignores its signal.
    if (this.#running > 0) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        this.#drained = resolve;
        timer = setTimeout(resolve, 1000);
        timer.unref();
      });
      this.#drained = undefined;
      clearTimeout(timer);
    }
    this.#leases?.close();
  }
}

/** The abort reason given to an agent whose task was canceled. */
export class TaskCanceledReason extends Error {
  constructor(readonly taskId: string) {
    super(`task ${taskId} was canceled`);
    this.name = 'AbortError';
  }
}

/** The abort reason given to an agent whose task was failed for waiting too long in an interrupted state. */
export class InterruptedWaitExpiredReason extends Error {
  constructor(readonly taskId: string) {
    super(`task ${taskId} waited too long for the client and was failed`);
    this.name = 'AbortError';
  }
}

function scopeOf(ctx: ServerCallContext): TaskScope {
  return { tenant: ctx.tenant, owner: ctx.principal.id };
}

function isSettled(state: TaskState): boolean {
  return isTerminalState(state) || isInterruptedState(state);
}

/**
 * Bindings validate this already; the handler is also public API, so a direct caller's
 * negative value is refused here rather than sliced from the end of the history.
 */
function checkHistoryLength(value: number | undefined, path: string): void {
  if (value !== undefined && value < 0) throw invalidParam(path, 'must not be negative');
}

/** Identical for a missing task and another caller's (D36): it echoes only the caller's own id. */
function notFound(taskId: string): TaskNotFoundError {
  return new TaskNotFoundError(`task ${taskId} not found`, { metadata: { taskId } });
}

function notCancelable(task: Task): TaskNotCancelableError {
  return new TaskNotCancelableError(`task ${task.id} is ${task.status.state} and cannot be canceled`, {
    metadata: { taskId: task.id },
  });
}

function terminalTask(task: Task): UnsupportedOperationError {
  return new UnsupportedOperationError(
    `task ${task.id} is ${task.status.state}, a terminal state, and accepts no more messages; send a new message without taskId (with contextId ${task.contextId ?? ''}) for a follow-up`,
  );
}

function invalidParam(path: string, description: string): InvalidParamsError {
  return new InvalidParamsError(`${path} ${description}`, { violations: [{ path, description }] });
}

function lastClientMessage(task: Task): Message {
  const history = task.history ?? [];
  for (let i = history.length - 1; i >= 0; i--) {
    if (history[i]!.role === Role.USER) return history[i]!;
  }
  return {
    messageId: newId(),
    role: Role.USER,
    parts: [{ text: '' }],
    taskId: task.id,
    contextId: task.contextId ?? '',
  };
}

/** The config as stored: for `taskId`, with an id (generated when the client gave none), without `tenant`. */
function pushConfigFor(
  request: TaskPushNotificationConfig,
  taskId: string,
): TaskPushNotificationConfig & { id: string; taskId: string } {
  const { tenant: _tenant, ...config } = request;
  return { ...config, id: config.id ? config.id : newId(), taskId };
}

function encodePushToken(afterId: string): string {
  return Buffer.from(afterId, 'utf8').toString('base64url');
}

function decodePushToken(token: string): string | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(token)) return undefined;
  const id = Buffer.from(token, 'base64url').toString('utf8');
  return id.length > 0 && encodePushToken(id) === token ? id : undefined;
}
