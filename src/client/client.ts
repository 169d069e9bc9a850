/**
 * `A2AClient`: one typed API over every binding, with the right habits by default: a fresh
 * messageId per message, `A2A-Version` on every call, `returnImmediately` always explicit,
 * retries only where repeating is safe, and helpers for following long work. Each habit is an
 * interceptor around the eleven operations (retry, re-authentication, failover, credentials),
 * followed by the caller's own.
 */
import { createError } from '../errors/index.js';
import { OPERATIONS, type A2AMethod } from '../model/operations.js';
import type {
  AgentCard,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  SendMessageRequest,
  Task,
  TaskPushNotificationConfig,
} from '../model/schema.js';
import type { CallOptions, RequestOf, ResponseOf, Transport } from '../bindings/transport.js';
import type { AgentCardResolver } from './card-resolver.js';
import { discoverAgent } from './discovery.js';
import { createTransport, selectInterface, usableInterfaces } from './binding-selection.js';
import type { AuthHandler } from './auth.js';
import { authHandlerOf, credentialsInterceptor, reauthInterceptor } from './auth-interceptor.js';
import { CredentialScope } from './credential-scope.js';
import { traceContextInterceptor } from './tracing.js';
import { applyInterceptors, newCall, type ClientInterceptor, type ClientNext } from './interceptor.js';
import { InterfacePool } from './failover.js';
import { retryInterceptor } from './retry.js';
import { transportOptions, type A2AClientOptions, type FollowOptions, type WaitOptions } from './options.js';
import { buildSendRequest, type SendInput } from './send-builder.js';
import { toSendResult, toStreamEvent, type SendResult, type StreamEvent } from './stream-events.js';
import { followEvents, waitForTask } from './follow.js';
import { GENERATION_EXTENSION } from '../model/draft.js';

// The client's public companions, importable from here as before the split.
export type { A2AClientOptions, FollowOptions, WaitOptions } from './options.js';
export type { SendInput } from './send-builder.js';
export { backoff, isRetryable, type RetryOptions } from './retry.js';
export { isTransportFailure, isUndelivered } from './failover.js';
export {
  statusOf,
  toStreamEvent,
  toStreamResponse,
  type SendResult,
  type StreamEvent,
} from './stream-events.js';

/** A client made by {@link A2AClient.connect}: it always has the agent's card. */
export type ConnectedA2AClient = A2AClient & { readonly card: AgentCard };

type StreamMethod = 'SendStreamingMessage' | 'SubscribeToTask';

/** An A2A agent, reached through one transport chosen from its card. */
export class A2AClient {
  private readonly auth: AuthHandler | undefined;
  /** The interfaces to fall back on and their transports (CLI-CARD-5). */
  private pool: InterfacePool;
  /** The interceptor chain every call runs through. */
  private readonly run: ClientNext;
  private publicCard: AgentCard | undefined;
  /** Whether the public card was built from a verified signed payload. */
  private publicCardVerified = false;
  private extended: { card: AgentCard; publicVersion: string | undefined } | undefined;
  private cardSource: { resolver: AgentCardResolver; url: string } | undefined;
  /** Where credentials may go (CLI-AUTH-3); `connect(url)` adds the URL's origin. */
  private readonly scope: CredentialScope;

  constructor(
    transport: Transport,
    card: AgentCard | undefined,
    private readonly options: A2AClientOptions = {},
  ) {
    this.pool = new InterfacePool(transport);
    this.publicCard = card;
    this.auth = authHandlerOf(options.auth);
    this.scope = new CredentialScope(options.credentialOrigins);
    const currentCard = () => ({
      card: this.card,
      ...(this.publicCardVerified && this.publicCard ? { verifiedCard: this.publicCard } : {}),
    });
    // Outermost first: a retry repeats a whole failover round; re-authentication sends the
    // call once more from the interface in use; each attempt gets fresh credentials.
    const chain: ClientInterceptor[] = [retryInterceptor(options.retry)];
    if (this.auth) chain.push(reauthInterceptor(this.auth, currentCard));
    chain.push((next) => (call) => this.pool.route(next, call));
    if (this.auth)
      chain.push(
        credentialsInterceptor(this.auth, currentCard, (call) =>
          this.scope.check(call.transport, currentCard().verifiedCard),
        ),
      );
    chain.push(traceContextInterceptor); // observability (issue 15): W3C traceparent on every binding
    chain.push(...(options.interceptors ?? []));
    this.run = applyInterceptors(chain);
  }

  /**
   * Discovers the agent at `urlOrCard` (a base URL, a card URL, or a card object), picks an
   * interface and returns a ready client.
   */
  static async connect(
    urlOrCard: string | AgentCard,
    options: A2AClientOptions = {},
  ): Promise<ConnectedA2AClient> {
    new CredentialScope(options.credentialOrigins); // a bad entry fails before any request
    const found = await discoverAgent(urlOrCard, options);
    const { card, verified, resolver } = found;
    options = found.options;
    const compatV03 = options.compatV03 !== false;
    const factory = transportOptions(options);
    const iface = selectInterface(card, options.bindings, compatV03);
    const transport = await createTransport(iface, factory);
    const client = new A2AClient(transport, card, options);
    client.scope.track(transport, iface.url);
    if (typeof urlOrCard === 'string') client.scope.connectedTo(urlOrCard);
    client.publicCardVerified = verified;
    if (options.failover !== false) {
      client.pool = new InterfacePool(
        client.pool.transport,
        usableInterfaces(card, options.bindings, compatV03),
        async (next) => client.scope.track(await createTransport(next, factory), next.url),
      );
    }
    if (resolver && typeof urlOrCard === 'string') client.cardSource = { resolver, url: urlOrCard };
    return client as ConnectedA2AClient;
  }

  /**
   * True when this client asks for the A2A 1.1 draft's generation (the agent's card declares
   * the a2a-kit generation extension and `generation` was not turned off): tasks and events then
   * carry `generation`, GetTask can long-poll and streams resume exactly.
   */
  get generation(): boolean {
    return this.options.extensions?.includes(GENERATION_EXTENSION) === true;
  }

  /** The transport in use: after a fallback (CLI-CARD-5), the one that last answered. */
  get transport(): Transport {
    return this.pool.transport;
  }

  /**
   * The agent's card for this session: the extended card once {@link getExtendedAgentCard}
   * succeeded (CLI-XCARD-3), else the public card.
   */
  get card(): AgentCard | undefined {
    return this.extended?.card ?? this.publicCard;
  }

  /** The binding in use (`JSONRPC`, `HTTP+JSON`, `GRPC`). */
  get binding(): string {
    return this.transport.binding;
  }

  /**
   * Reads the public card again (through the resolver's HTTP cache). When its `version`
   * differs from the one the extended card was obtained under, the extended card is dropped
   * and the new public card is used (CLI-XCARD-3). Returns the card now in use. A client made
   * from a card object, not a URL, has nothing to re-read and returns its card unchanged.
   */
  async refreshCard(
    options: { signal?: AbortSignal; noCache?: boolean } = {},
  ): Promise<AgentCard | undefined> {
    if (!this.cardSource) return this.card;
    const { card: fresh, verified } = await this.cardSource.resolver.resolve(this.cardSource.url, options);
    this.publicCard = fresh;
    this.publicCardVerified = verified;
    if (this.extended && this.extended.publicVersion !== fresh.version) this.extended = undefined;
    return this.card;
  }

  // ---- plumbing ------------------------------------------------------------------------

  /** Runs one unary operation through the chain, after the card's capability check. */
  private call<M extends A2AMethod>(
    method: M,
    request: RequestOf<M>,
    options: CallOptions = {},
    maxAttempts?: number,
  ): Promise<ResponseOf<M>> {
    try {
      this.requireCapability(method);
    } catch (error) {
      return Promise.reject(error);
    }
    const { signal, headers, timeoutMs, query } = options;
    const base: CallOptions = {
      ...(signal ? { signal } : {}),
      headers: { ...headers },
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      ...(query ? { query } : {}),
    };
    return this.run(newCall(method, request, this.pool.transport, base, maxAttempts));
  }

  /** Runs one streaming operation through the chain, as typed events. */
  private async *callStream<M extends StreamMethod>(
    method: M,
    request: RequestOf<M>,
    options: CallOptions,
  ): AsyncGenerator<StreamEvent, void, undefined> {
    for await (const event of await this.call(method, request, options)) yield toStreamEvent(event);
  }

  /** Throws when the card lacks the capability the operation needs (the operation table). */
  private requireCapability(method: A2AMethod): void {
    const flag = OPERATIONS[method].capability;
    if (!flag || !this.card || this.card.capabilities[flag]) return;
    const message = `the agent's card does not declare capabilities.${flag}`;
    throw createError(
      flag === 'pushNotifications' ? 'PushNotificationNotSupported' : 'UnsupportedOperation',
      message,
    );
  }

  // ---- the eleven operations -----------------------------------------------------------

  /** SendMessage. Retried on transient failures with the same messageId (CLI-SEND-11). */
  async sendMessage(request: SendMessageRequest, options: CallOptions = {}): Promise<SendResult> {
    return toSendResult(await this.call('SendMessage', request, options));
  }

  /** SendStreamingMessage as typed events. A closed stream does not mean the task is done (D3). */
  sendStreamingMessage(request: SendMessageRequest, options: CallOptions = {}): AsyncGenerator<StreamEvent> {
    return this.callStream('SendStreamingMessage', request, options);
  }

  /** SubscribeToTask as typed events; the first is a Task snapshot. */
  subscribeToTask(taskId: string, options: CallOptions = {}): AsyncGenerator<StreamEvent> {
    return this.callStream('SubscribeToTask', { id: taskId }, options);
  }

  /**
   * GetTask. `waitPastGeneration` (A2A 1.1 draft, with {@link generation}): the server holds
   * the call until the task's generation is above it, or its bound passes (then the task as
   * it is comes back).
   */
  getTask(
    taskId: string,
    options: CallOptions & { historyLength?: number; waitPastGeneration?: number | string } = {},
  ): Promise<Task> {
    const request = {
      id: taskId,
      ...(options.historyLength !== undefined ? { historyLength: options.historyLength } : {}),
      ...(options.waitPastGeneration !== undefined
        ? { currentGeneration: String(options.waitPastGeneration) }
        : {}),
    };
    return this.call('GetTask', request, options);
  }

  /** ListTasks: one page of the caller's tasks, newest first. */
  listTasks(request: ListTasksRequest = {}, options: CallOptions = {}): Promise<ListTasksResponse> {
    return this.call('ListTasks', request, options);
  }

  /** Every task matching `request`, page after page. */
  async *listAllTasks(
    request: ListTasksRequest = {},
    options: CallOptions & { maxPages?: number } = {},
  ): AsyncGenerator<Task, void, undefined> {
    let pageToken = request.pageToken;
    for (let page = 0; page < (options.maxPages ?? 1000); page++) {
      const r = await this.listTasks({ ...request, ...(pageToken ? { pageToken } : {}) }, options);
      yield* r.tasks;
      if (!r.nextPageToken || r.nextPageToken === pageToken) return;
      pageToken = r.nextPageToken;
    }
  }

  /** CancelTask: cancels the task and answers with it. */
  cancelTask(
    taskId: string,
    options: CallOptions & { metadata?: Record<string, unknown> } = {},
  ): Promise<Task> {
    const request = { id: taskId, ...(options.metadata ? { metadata: options.metadata } : {}) };
    return this.call('CancelTask', request, options);
  }

  /** Without a client-chosen `id` a repeat would create a second config: then never retried. */
  createTaskPushNotificationConfig(
    config: TaskPushNotificationConfig,
    options: CallOptions = {},
  ): Promise<TaskPushNotificationConfig> {
    return this.call('CreateTaskPushNotificationConfig', config, options);
  }

  /** GetTaskPushNotificationConfig: one push config of a task. */
  getTaskPushNotificationConfig(
    taskId: string,
    id: string,
    options: CallOptions = {},
  ): Promise<TaskPushNotificationConfig> {
    return this.call('GetTaskPushNotificationConfig', { taskId, id }, options);
  }

  /** ListTaskPushNotificationConfigs: a page of a task's push configs. */
  listTaskPushNotificationConfigs(
    taskId: string,
    page: Omit<ListTaskPushNotificationConfigsRequest, 'taskId'> = {},
    options: CallOptions = {},
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    return this.call('ListTaskPushNotificationConfigs', { ...page, taskId }, options);
  }

  /** DeleteTaskPushNotificationConfig: deletes one push config of a task. */
  async deleteTaskPushNotificationConfig(
    taskId: string,
    id: string,
    options: CallOptions = {},
  ): Promise<void> {
    await this.call('DeleteTaskPushNotificationConfig', { taskId, id }, options);
  }

  /**
   * GetExtendedAgentCard; only when the card declares it (CLI-XCARD-2). The extended card then
   * becomes {@link card} for this client, until {@link refreshCard} sees the public card's
   * `version` change (CLI-XCARD-3).
   */
  async getExtendedAgentCard(options: CallOptions = {}): Promise<AgentCard> {
    const publicVersion = this.publicCard?.version;
    const card = await this.call('GetExtendedAgentCard', {}, options);
    this.extended = { card, publicVersion };
    return card;
  }

  // ---- conveniences --------------------------------------------------------------------

  /** Builds the SendMessageRequest for `input`: fresh messageId, ROLE_USER, explicit returnImmediately. */
  buildRequest(input: SendInput): SendMessageRequest {
    return buildSendRequest(input);
  }

  /**
   * Sends a message built from `input` (see {@link buildRequest}). `ifGenerationMatch` (A2A 1.1
   * draft): the server refuses the follow-up with TaskGenerationMismatchError unless the task
   * is at that generation.
   */
  send(input: SendInput, options: { ifGenerationMatch?: number | string } = {}): Promise<SendResult> {
    const request = this.buildRequest(input);
    if (options.ifGenerationMatch !== undefined) {
      request.configuration = {
        ...request.configuration,
        ifGenerationMatch: String(options.ifGenerationMatch),
      };
    }
    return this.sendMessage(request, { signal: input.signal });
  }

  /** Streams a message built from `input`. */
  stream(input: SendInput): AsyncGenerator<StreamEvent> {
    return this.sendStreamingMessage(this.buildRequest(input), { signal: input.signal });
  }

  /**
   * Polls GetTask with capped exponential backoff and jitter until the task is terminal or
   * interrupted. When `deadline` passes the remote task is canceled and
   * {@link A2ADeadlineError} is thrown.
   */
  waitForTask(taskId: string, options: WaitOptions = {}): Promise<Task> {
    return waitForTask(this, taskId, options, this.options.timeoutMs ?? 60_000, this.generation);
  }

  /**
   * Streams a message and keeps following its task across dropped connections: on a break,
   * reconciles with GetTask and resubscribes, yielding each state change once.
   */
  async *streamResilient(
    input: SendInput,
    options: FollowOptions = {},
  ): AsyncGenerator<StreamEvent, void, undefined> {
    const request = this.buildRequest(input);
    const signal = options.signal ?? input.signal;
    yield* followEvents(this.follower, () => this.sendStreamingMessage(request, { signal }), undefined, {
      ...options,
      signal,
    });
  }

  /** Follows an existing task to its end (or interruption), reconnecting as needed. */
  async *followTask(
    taskId: string,
    options: FollowOptions = {},
  ): AsyncGenerator<StreamEvent, void, undefined> {
    yield* followEvents(this.follower, undefined, taskId, options);
  }

  /** What the follow loop calls: GetTask without retries (the loop is the retry policy). */
  private readonly follower = {
    getTaskOnce: (id: string, signal: AbortSignal | undefined) =>
      this.call('GetTask', { id }, signal ? { signal } : {}, 1),
    subscribeToTask: (id: string, signal: AbortSignal | undefined, lastEventId?: string) =>
      this.subscribeToTask(id, {
        ...(signal ? { signal } : {}),
        ...(lastEventId !== undefined ? { headers: { 'last-event-id': lastEventId } } : {}),
      }),
    resumes: () => this.generation,
  };

  /** Releases the connections of every transport this client made. */
  async close(): Promise<void> {
    await Promise.all(this.pool.all().map((t) => t.close()));
  }
}
