/**
 * The default {@link RequestHandler}: the eleven operations over a TaskManager, a TaskStore,
 * an EventBus and the user's AgentExecutor. This class wires the parts and delegates; each
 * operation lives in its own module.
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
  SendMessageRequest,
  SendMessageResponse,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '../../model/schema.js';
import type { ServerCallContext } from '../context.js';
import { InProcessEventBus } from '../event-bus/in-process.js';
import { DEFAULT_STREAM_QUEUE_BYTES, DEFAULT_STREAM_QUEUE_EVENTS } from '../event-bus/task-stream.js';
import { generationSettings } from '../generation.js';
import { checkIdempotencyTtl } from '../idempotency.js';
import { DEFAULT_INTERRUPTED_TIMEOUT_MS } from '../interrupted-timer.js';
import { ListCursorCodec } from '../list-cursor.js';
import { ExecutionLeases } from '../recovery.js';
import { StoreRetention } from '../retention.js';
import { isLeaseStore } from '../stores/leases.js';
import { PAGE_TOKEN_SECRET_NAME } from '../stores/sql/shared.js';
import { MemoryPushConfigStore } from '../stores/memory/push-config-store.js';
import { MemoryTaskStore } from '../stores/memory/task-store.js';
import { TaskManager } from '../task-manager.js';
import { InterruptedWaitExpiredReason } from './abort-reasons.js';
import { cancelTask } from './cancel.js';
import type { HandlerDependencies } from './dependencies.js';
import { Executions } from './executions.js';
import { getExtendedAgentCard } from './extended-card.js';
import { getTask } from './get-task.js';
import { LongPolls } from './long-poll.js';
import { listTasks } from './list-tasks.js';
import type { DefaultRequestHandlerOptions } from './options.js';
import {
  createTaskPushNotificationConfig,
  deleteTaskPushNotificationConfig,
  getTaskPushNotificationConfig,
  listTaskPushNotificationConfigs,
} from './push-configs.js';
import type { RequestHandler } from './request-handler.js';
import { SendOperations } from './send.js';
import { Settlements } from './settlement.js';
import { OpenStreams } from './streams.js';
import { subscribeToTask } from './subscribe.js';

/**
 * The eleven operations over a TaskManager, a TaskStore, an EventBus and the user's
 * AgentExecutor. Every lookup is scoped by tenant and principal; anything else is
 * TaskNotFoundError, exactly as for a missing task.
 */
export class DefaultRequestHandler implements RequestHandler {
  readonly #deps: HandlerDependencies;
  readonly #extendedCard: DefaultRequestHandlerOptions['extendedCard'];
  readonly #extendedCardNeedsAuth: boolean;
  /** Signs page tokens; undefined until the store's secret was read (see #cursorCodec). */
  #cursors: ListCursorCodec | undefined;
  #cursorsLoading: Promise<ListCursorCodec> | undefined;
  readonly #executions: Executions;
  readonly #streams: OpenStreams;
  readonly #settlements: Settlements;
  readonly #send: SendOperations;
  readonly #retention: StoreRetention | undefined;
  /** Held long-polling GetTask calls (GEN-3); undefined when the draft support is off. */
  readonly #longPolls: LongPolls | undefined;

  constructor(options: DefaultRequestHandlerOptions) {
    this.#extendedCard = options.extendedCard;
    this.#extendedCardNeedsAuth = options.extendedCardRequiresAuthentication ?? false;
    const generation = generationSettings(options.generation);
    const store = options.taskStore ?? new MemoryTaskStore();
    const bus = options.eventBus ?? new InProcessEventBus();
    const manager = new TaskManager(store, bus, {
      interruptedTimeoutMs: options.interruptedTimeoutMs ?? DEFAULT_INTERRUPTED_TIMEOUT_MS,
      ...(options.maxTaskParts !== undefined ? { maxTaskParts: options.maxTaskParts } : {}),
      ...(options.maxTaskBytes !== undefined ? { maxTaskBytes: options.maxTaskBytes } : {}),
      // GEN-5: the event log is written only when the feature is on (a feature off costs nothing).
      ...(generation && generation.eventLogPerTask > 0
        ? { eventLogPerTask: generation.eventLogPerTask }
        : {}),
      onInterruptedExpired: (record) => {
        // An agent still running (waiting for an out-of-band credential) stops waiting.
        this.#executions.turns
          .current(record.tenant, record.task.id)
          ?.abort(new InterruptedWaitExpiredReason(record.task.id));
      },
    });
    this.#deps = {
      executor: options.executor,
      card: options.card,
      store,
      pushStore: options.pushConfigStore ?? new MemoryPushConfigStore(),
      bus,
      manager,
      leases:
        options.recovery !== false && isLeaseStore(store)
          ? new ExecutionLeases(store, manager, options.recovery ?? {})
          : undefined,
      onError: options.onError ?? ((error: unknown) => console.error('a2a-kit: unexpected error', error)),
      generation,
      closed: false,
    };
    this.#longPolls = generation
      ? new LongPolls(this.#deps, generation.longPollMaxMs, generation.maxLongPollsPerPrincipal)
      : undefined;
    // Without an operator's secret, a store that keeps one gives every replica (and the next
    // start) the same key; otherwise this handler makes a random one.
    if (options.pageTokenSecret !== undefined || !store.getOrCreateSecret) {
      this.#cursors = new ListCursorCodec(options.pageTokenSecret);
    } else {
      // Read now, not in the first ListTasks: on SQLite the read is a write that shares its
      // batch, and a batch another write fails (a full disk) would fail a ListTasks with it.
      // A failure here is retried by the first ListTasks.
      this.#cursorCodec().catch(() => {});
    }
    const idempotencyTtlMs = checkIdempotencyTtl(options.idempotencyTtlMs);
    this.#retention =
      options.retention === false
        ? undefined
        : new StoreRetention(store, options.retention ?? {}, idempotencyTtlMs);
    this.#executions = new Executions(this.#deps);
    // A resumable executor gets its cut-off tasks back instead of their failure.
    if (options.executor.resumable) {
      this.#deps.leases?.resumeWith((scope, record) => this.#executions.resume(scope, record));
    }
    this.#deps.leases?.start();
    this.#streams = new OpenStreams(this.#deps, {
      maxEvents: options.maxStreamQueueEvents ?? DEFAULT_STREAM_QUEUE_EVENTS,
      maxBytes: options.maxStreamQueueBytes ?? DEFAULT_STREAM_QUEUE_BYTES,
    });
    this.#settlements = new Settlements(this.#deps);
    this.#send = new SendOperations(
      this.#deps,
      this.#executions,
      this.#streams,
      this.#settlements,
      idempotencyTtlMs,
    );
    this.#retention?.start();
  }

  /** The TaskManager (for push delivery and tools that need to observe tasks). */
  get taskManager(): TaskManager {
    return this.#deps.manager;
  }

  agentCard(): AgentCard {
    return this.#deps.card();
  }

  sendMessage(request: SendMessageRequest, ctx: ServerCallContext): Promise<SendMessageResponse> {
    return this.#send.sendMessage(request, ctx);
  }

  sendStreamingMessage(
    request: SendMessageRequest,
    ctx: ServerCallContext,
  ): Promise<AsyncIterable<StreamResponse>> {
    return this.#send.sendStreamingMessage(request, ctx);
  }

  getTask(request: GetTaskRequest, ctx: ServerCallContext): Promise<Task> {
    return getTask(this.#deps, request, ctx, this.#longPolls);
  }

  async listTasks(request: ListTasksRequest, ctx: ServerCallContext): Promise<ListTasksResponse> {
    const cursors = this.#cursors ?? (await this.#cursorCodec());
    return listTasks(this.#deps.store, cursors, request, ctx);
  }

  /** The page-token codec, reading the store's secret on first use (retried after a failure). */
  #cursorCodec(): Promise<ListCursorCodec> {
    this.#cursorsLoading ??= this.#deps.store.getOrCreateSecret!(PAGE_TOKEN_SECRET_NAME).then(
      (secret) => (this.#cursors = new ListCursorCodec(secret)),
      (error: unknown) => {
        this.#cursorsLoading = undefined;
        throw error;
      },
    );
    return this.#cursorsLoading;
  }

  cancelTask(request: CancelTaskRequest, ctx: ServerCallContext): Promise<Task> {
    return cancelTask(this.#deps, this.#executions.turns, request, ctx);
  }

  subscribeToTask(
    request: SubscribeToTaskRequest,
    ctx: ServerCallContext,
  ): Promise<AsyncIterable<StreamResponse>> {
    return subscribeToTask(this.#deps, this.#streams, request, ctx);
  }

  createTaskPushNotificationConfig(
    request: TaskPushNotificationConfig,
    ctx: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    return createTaskPushNotificationConfig(this.#deps, request, ctx);
  }

  getTaskPushNotificationConfig(
    request: GetTaskPushNotificationConfigRequest,
    ctx: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    return getTaskPushNotificationConfig(this.#deps, request, ctx);
  }

  listTaskPushNotificationConfigs(
    request: ListTaskPushNotificationConfigsRequest,
    ctx: ServerCallContext,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    return listTaskPushNotificationConfigs(this.#deps, request, ctx);
  }

  deleteTaskPushNotificationConfig(
    request: DeleteTaskPushNotificationConfigRequest,
    ctx: ServerCallContext,
  ): Promise<Empty> {
    return deleteTaskPushNotificationConfig(this.#deps, request, ctx);
  }

  getExtendedAgentCard(_request: GetExtendedAgentCardRequest, ctx: ServerCallContext): Promise<AgentCard> {
    return getExtendedAgentCard(this.#deps.card, this.#extendedCard, this.#extendedCardNeedsAuth, ctx);
  }

  /**
   * Answers every held long-polling GetTask now with the task as it is (A2A 1.1 draft): the
   * server calls it when it starts closing, so a held call does not delay the shutdown.
   */
  releaseLongPolls(): void {
    this.#longPolls?.wakeAll();
  }

  /**
   * Stops accepting requests, aborts running executions (their tasks fail unless the agent
   * ends them), ends open streams and releases waiting SendMessage calls.
   */
  async close(): Promise<void> {
    if (this.#deps.closed) return;
    this.#deps.closed = true;
    // The heartbeat stops first: leases handed back while executions drain stay expired.
    this.#deps.leases?.close();
    this.#deps.manager.close();
    this.#executions.stopAll();
    this.#streams.endAll();
    this.#longPolls?.wakeAll();
    this.#settlements.releaseAll();
    await this.#executions.drain();
    this.#retention?.close();
  }
}
