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
} from '../../model/schema.js';
import { activateExtension, ANONYMOUS, type ServerCallContext } from '../context.js';
import {
  A2AError,
  ExtendedAgentCardNotConfiguredError,
  InvalidParamsError,
  PushNotificationNotSupportedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnauthenticatedError,
  UnavailableError,
  UnsupportedOperationError,
} from '../../errors/a2a-error.js';
import { isInterruptedState, isTerminalState, parseTaskState, Role, TaskState } from '../../model/enums.js';
import { newId } from '../../model/ids.js';
import { acceptsMessages, isCancelable } from '../../model/state-machine.js';
import { timestampToMillis } from '../../model/timestamp.js';
import type { EventBus } from '../event-bus/event-bus.js';
import { InProcessEventBus } from '../event-bus/in-process.js';
import {
  DEFAULT_STREAM_QUEUE_BYTES,
  DEFAULT_STREAM_QUEUE_EVENTS,
  TaskEventStream,
  type StreamQueueLimits,
} from '../event-bus/task-stream.js';
import { errorText, ExecutionSink } from '../event-sink.js';
import { messageData, messageText, type AgentExecutor, type RequestContext } from '../executor.js';
import { checkIdempotencyTtl, messageIdReused, requestFingerprint } from '../idempotency.js';
import { checkInputModes } from '../input-modes.js';
import { ListCursorCodec, type CursorBinding } from '../list-cursor.js';
import { MemoryPushConfigStore } from '../stores/memory/push-config-store.js';
import { MemoryTaskStore } from '../stores/memory/task-store.js';
import type { PushConfigStore } from '../stores/push-config-store.js';
import type {
  IdempotencyKey,
  IdempotencyRecord,
  ListPosition,
  StoredTask,
  TaskScope,
  TaskStore,
} from '../stores/task-store.js';
import { DEFAULT_INTERRUPTED_TIMEOUT_MS } from '../interrupted-timer.js';
import { IllegalTaskEventError } from '../task-changes.js';
import { TaskManager } from '../task-manager.js';
import { viewTask } from '../task-view.js';

/**
 * What every binding calls. Requests arrive already schema-valid. Errors are thrown as
 * A2AError subclasses. The streaming operations resolve to an iterable once every check that
 * can fail before the agent runs has passed (G5): a rejected promise is an ordinary
 * error response, not a stream. They resolve without waiting for the agent's first event, so
 * a binding starts its response at once; anything failing later is the iterable's error.
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
  /**
   * Refuse the extended card to the anonymous principal (UnauthenticatedError, issue 11.4).
   * Turn on whenever authentication is configured. @default false
   */
  extendedCardRequiresAuthentication?: boolean;
  /** @default new MemoryTaskStore() */
  taskStore?: TaskStore;
  /** @default new MemoryPushConfigStore() */
  pushConfigStore?: PushConfigStore;
  /** @default new InProcessEventBus() */
  eventBus?: EventBus;
  /**
   * Key that signs ListTasks page tokens. Give every replica the same one.
   * @default 32 random bytes per handler (tokens do not survive a restart)
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
   * Most parts (history message parts plus artifact parts) one task may hold. An agent event
   * that would pass it rejects with InvalidAgentResponseError and changes nothing.
   * @default 200000
   */
  maxTaskParts?: number;
  /** Most JSON characters (about bytes) of history and artifacts one task may hold. @default 67108864 (64 MiB) */
  maxTaskBytes?: number;
  /**
   * The idempotency window of SendMessage, counted from a messageId's first use: within it a
   * repeat of the same message from the same caller returns the first result (the agent runs
   * once), and a repeat with different content is refused with InvalidParamsError. After it
   * the messageId is free again. `0` turns de-duplication off; `Infinity` never expires (the
   * store's own caps still bound what it keeps).
   * @default 86400000 (24 hours)
   */
  idempotencyTtlMs?: number;
  /**
   * Most events one stream (SendStreamingMessage, SubscribeToTask) holds unread. A client
   * that falls further behind gets one error event (UnavailableError: resubscribe and
   * reconcile with GetTask) and its stream ends; the agent is never slowed. @default 10000
   */
  maxStreamQueueEvents?: number;
  /** Most bytes (approximate) one stream holds unread; enforced like `maxStreamQueueEvents`. @default 16777216 (16 MiB) */
  maxStreamQueueBytes?: number;
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
  /** close() aborted this execution: its end is no answer of the agent. */
  serverStopped = false;

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

/** A message waiting for the running execution of its task to end. */
interface WaitingTurn {
  readonly grant: (execution: Execution) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * A task's turn: the one execution it runs (or that a message is about to run), and the
 * messages that arrived meanwhile, in arrival order.
 */
interface TaskTurn {
  execution: Execution;
  waiting: WaitingTurn[] | undefined;
}

/** Messages that may wait for a task's running execution; one more is refused. */
const MAX_WAITING_MESSAGES = 4;

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
  card: AgentCard,
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
    activateExtension: (uri) => activateExtension(ctx, card, uri),
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
  constructor(readonly fingerprint: string) {}

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
  readonly #extendedCardNeedsAuth: boolean;
  readonly #store: TaskStore;
  readonly #pushStore: PushConfigStore;
  readonly #bus: EventBus;
  readonly #manager: TaskManager;
  readonly #cursors: ListCursorCodec;
  /** Each task's turn (its one running execution, the messages waiting) by tenant, then task id. */
  readonly #turns = new Map<string, Map<string, TaskTurn>>();
  readonly #idempotencyTtlMs: number;
  readonly #streamLimits: StreamQueueLimits;
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
    this.#extendedCardNeedsAuth = options.extendedCardRequiresAuthentication ?? false;
    this.#store = options.taskStore ?? new MemoryTaskStore();
    this.#pushStore = options.pushConfigStore ?? new MemoryPushConfigStore();
    this.#bus = options.eventBus ?? new InProcessEventBus();
    this.#manager = new TaskManager(this.#store, this.#bus, {
      interruptedTimeoutMs: options.interruptedTimeoutMs ?? DEFAULT_INTERRUPTED_TIMEOUT_MS,
      ...(options.maxTaskParts !== undefined ? { maxTaskParts: options.maxTaskParts } : {}),
      ...(options.maxTaskBytes !== undefined ? { maxTaskBytes: options.maxTaskBytes } : {}),
      onInterruptedExpired: (record) => {
        // An agent still running (waiting for an out-of-band credential) stops waiting.
        this.#executionOf(record.tenant, record.task.id)?.abort(
          new InterruptedWaitExpiredReason(record.task.id),
        );
      },
    });
    this.#cursors = new ListCursorCodec(options.pageTokenSecret);
    this.#idempotencyTtlMs = checkIdempotencyTtl(options.idempotencyTtlMs);
    this.#streamLimits = {
      maxEvents: options.maxStreamQueueEvents ?? DEFAULT_STREAM_QUEUE_EVENTS,
      maxBytes: options.maxStreamQueueBytes ?? DEFAULT_STREAM_QUEUE_BYTES,
    };
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
      // Handed to the binding before the agent's first event, so the response starts at once.
      // The first event follows as soon as the task exists (at once for a follow-up) or the
      // agent replied; an error the agent raises before any event is the stream's error (G5).
      start.sink.outcome.then(
        (outcome) => {
          if (outcome.kind === 'message') stream.startWithMessage(outcome.message);
          else stream.start(outcome.record.task, outcome.record.version, true);
        },
        (error: unknown) => stream.fail(error),
      );
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
    if (message.role !== Role.USER) {
      throw invalidParam(
        'message.role',
        'must be ROLE_USER: a client sends user messages (ROLE_AGENT is for what the agent says)',
      );
    }
    const configuration = request.configuration;
    if (configuration?.taskPushNotificationConfig) this.#requirePush();
    checkHistoryLength(configuration?.historyLength, 'configuration.historyLength');
    checkInputModes(this.#card(), message);
    const scope = scopeOf(ctx);
    const tenant = ctx.tenant;
    const principal = ctx.principal.id;
    const messageId = message.messageId;
    const key: IdempotencyKey = { tenant, principal, messageId };
    const requestedTaskId = message.taskId ? message.taskId : undefined;
    const taskId = requestedTaskId ?? newId();
    const ttlMs = this.#idempotencyTtlMs;
    if (ttlMs === 0) return { kind: 'run', sink: await this.#start(request, ctx, taskId, stream) };

    const fingerprint = requestFingerprint(request);
    const running = this.#inflight.get(tenant, principal, messageId);
    if (running) {
      if (running.fingerprint !== fingerprint) throw messageIdReused(messageId);
      return this.#duplicate(running.outcome());
    }

    const inflight = new InflightSend(fingerprint);
    this.#inflight.set(tenant, principal, messageId, inflight);
    let claimed = false;
    try {
      const createdAtMs = Date.now();
      const facts = { fingerprint, createdAtMs };
      const previous = await this.#store.claimIdempotencyKey(key, { status: 'pending', taskId, ...facts });
      if (previous && previous.createdAtMs !== undefined && previous.createdAtMs + ttlMs <= createdAtMs) {
        // Outside the window: the messageId is free again.
        await this.#store.setIdempotencyRecord(key, { status: 'pending', taskId, ...facts });
      } else if (previous) {
        this.#inflight.delete(tenant, principal, messageId);
        if (previous.fingerprint !== undefined && previous.fingerprint !== fingerprint) {
          inflight.reject(messageIdReused(messageId));
          throw messageIdReused(messageId);
        }
        inflight.resolve(await this.#outcomeOf(previous, scope));
        return this.#duplicate(inflight.outcome());
      }
      claimed = true;
      const sink = await this.#start(request, ctx, taskId, stream);
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
                ? { status: 'message', message: result.message, ...facts }
                : { status: 'task', taskId, ...facts },
            )
            .then(release, release);
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

  /**
   * Checks a send that is not a duplicate, records the client message and starts the agent
   * on task `taskId`. When `stream` is given it is subscribed to the task's topic first.
   */
  async #start(
    request: SendMessageRequest,
    ctx: ServerCallContext,
    taskId: string,
    stream: TaskEventStream | undefined,
  ): Promise<ExecutionSink> {
    const message = request.message;
    const pushConfig = request.configuration?.taskPushNotificationConfig;
    const scope = scopeOf(ctx);
    const tenant = ctx.tenant;
    const requestedTaskId = message.taskId ? message.taskId : undefined;
    /** This message's turn on its task, once taken; released here unless the agent runs with it. */
    let execution: Execution | undefined;
    try {
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
        // One execution per task at a time: a message that finds the agent still running on
        // the task waits for that execution's end, then is judged by the task it left.
        execution = this.#takeTurn(tenant, taskId);
        if (!execution) {
          execution = await this.#waitTurn(tenant, taskId, ctx);
          if (this.#closed) throw new UnavailableError('the server is shutting down');
          existing = await this.#manager.get(scope, taskId);
          if (!existing) throw notFound(taskId);
          if (!acceptsMessages(existing.task.status.state)) throw terminalTask(existing.task);
        }
      } else {
        contextId = message.contextId ? message.contextId : newId();
      }
      const clientMessage: Message = { ...message, taskId, contextId };
      if (stream) {
        const unsubscribe = this.#bus.subscribe({ tenant, taskId }, stream.handle);
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
      if (pushConfig) await this.#pushStore.put(scope, pushConfigFor(pushConfig, taskId));
      // A new task's id is unknown to anyone else: its turn is free.
      const turn = execution ?? this.#takeTurn(tenant, taskId)!;
      execution = undefined; // the agent owns the turn from here
      const sink = this.#run(request, ctx, scope, clientMessage, existing, turn);
      if (pushConfig) {
        sink.outcome.then((outcome) => {
          if (outcome.kind === 'message') void this.#pushStore.deleteAll(scope, taskId);
        }, noop);
      }
      return sink;
    } catch (error) {
      if (execution) this.#endTurn(tenant, taskId, execution);
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
    execution: Execution,
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
      ...(request.metadata ? { requestMetadata: request.metadata } : {}),
    });
    const context = agentRequestContext(clientMessage, existing, ctx, request, execution, this.#card());
    this.#running++;
    void this.#execute(context, sink, execution, ctx.tenant, taskId);
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
    try {
      await sink.finish(error, threw, execution.serverStopped);
    } catch {
      // A store failure while finishing: nothing more can be done here.
    }
    // Only now, with the end applied, may the task's next message run.
    this.#endTurn(tenant, taskId, execution);
    if (--this.#running === 0) this.#drained?.();
  }

  /** Takes a task's turn when no execution of it runs (synchronously: no other message can slip in); else undefined. */
  #takeTurn(tenant: string, taskId: string): Execution | undefined {
    let byTask = this.#turns.get(tenant);
    if (!byTask) {
      byTask = new Map();
      this.#turns.set(tenant, byTask);
    } else if (byTask.has(taskId)) {
      return undefined;
    }
    const execution = new Execution();
    byTask.set(taskId, { execution, waiting: undefined });
    return execution;
  }

  /**
   * Waits until the task's running execution, and every message that waited before this one,
   * are done; resolves with this message's execution. Refused when too many already wait;
   * given up when the client goes away or the server closes.
   */
  #waitTurn(tenant: string, taskId: string, ctx: ServerCallContext): Promise<Execution> {
    const turn = this.#turns.get(tenant)?.get(taskId);
    if (!turn) return Promise.resolve(this.#takeTurn(tenant, taskId)!);
    const waiting = (turn.waiting ??= []);
    if (waiting.length >= MAX_WAITING_MESSAGES) {
      throw new UnsupportedOperationError(
        `task ${taskId} already has ${MAX_WAITING_MESSAGES} messages waiting for the agent's running execution; send this one once the task is interrupted or terminal`,
        { metadata: { taskId } },
      );
    }
    return new Promise<Execution>((resolve, reject) => {
      const signal = ctx.signal;
      const onAbort = (): void => {
        const index = waiting.indexOf(entry);
        if (index >= 0) waiting.splice(index, 1);
        reject(new UnavailableError('the client went away'));
      };
      const entry: WaitingTurn = {
        grant: (execution) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(execution);
        },
        reject: (error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      waiting.push(entry);
    });
  }

  /** Ends the turn of `execution`: the task's next waiting message takes it, else the task is free. */
  #endTurn(tenant: string, taskId: string, execution: Execution): void {
    const byTask = this.#turns.get(tenant);
    const turn = byTask?.get(taskId);
    if (!byTask || !turn || turn.execution !== execution) return;
    const next = turn.waiting?.shift();
    if (next) {
      turn.execution = new Execution();
      next.grant(turn.execution);
      return;
    }
    byTask.delete(taskId);
    if (byTask.size === 0) this.#turns.delete(tenant);
  }

  /** The execution that holds a task's turn now, if any. */
  #executionOf(tenant: string, taskId: string): Execution | undefined {
    return this.#turns.get(tenant)?.get(taskId)?.execution;
  }

  /**
   * Resolves with the task once it is terminal or interrupted. The client's signal is read only
   * when the task is still running a turn of the event loop after the first look (reading it
   * may create it, and an agent that answers without I/O has settled by then); a client gone
   * meanwhile leaves the signal aborted, which is then noticed at once.
   */
  #waitSettled(scope: TaskScope, taskId: string, ctx: ServerCallContext): Promise<StoredTask | undefined> {
    // close() released the waiters it knew; one arriving later would never be released.
    if (this.#closed) return Promise.reject(new UnavailableError('the server is shutting down'));
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
    let position: ListPosition | undefined;
    if (request.pageToken) {
      position = this.#cursors.decode(binding, request.pageToken);
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
          ? this.#cursors.encode(binding, { statusTimeMs: last.statusTimeMs, id: last.task.id })
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
      const context = agentRequestContext(
        clientMessage,
        record,
        ctx,
        undefined,
        new Execution(),
        this.#card(),
      );
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
    this.#executionOf(ctx.tenant, request.id)?.abort(new TaskCanceledReason(request.id));
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
    const stream = new TaskEventStream((task) => viewTask(task, historyLength), this.#streamLimits);
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
    // Before the configuration check, so that anonymous callers learn nothing about it.
    if (this.#extendedCardNeedsAuth && ctx.principal.id === ANONYMOUS.id) {
      throw new UnauthenticatedError('the extended agent card is served to authenticated callers only');
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
    for (const byTask of this.#turns.values()) {
      for (const turn of byTask.values()) {
        turn.execution.serverStopped = true;
        turn.execution.abort(new UnavailableError('the server is shutting down'));
        for (const waiting of turn.waiting?.splice(0) ?? []) {
          waiting.reject(new UnavailableError('the server is shutting down'));
        }
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
