/**
 * `A2AClient`: one typed API over every binding, with the right habits by default: a fresh
 * messageId per message, `A2A-Version` on every call, `returnImmediately` always explicit,
 * retries only where repeating is safe, and helpers for following long work.
 */
import { A2AError, createError } from '../errors/index.js';
import type { TaskState } from '../model/enums.js';
import { isInterruptedState, isTerminalState, Role } from '../model/enums.js';
import { newId } from '../model/ids.js';
import type {
  AgentCard,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  Part,
  SendMessageConfiguration,
  SendMessageRequest,
  StreamResponse,
  Task,
  TaskArtifactUpdateEvent,
  TaskPushNotificationConfig,
  TaskStatus,
  TaskStatusUpdateEvent,
} from '../model/schema.js';
import type { CallOptions, Transport } from './transport.js';
import { AgentCardResolver, type CardResolverOptions } from './card-resolver.js';
import { createTransport, selectInterface, type BindingName } from './binding-selection.js';
import { bearerAuth, apiKeyAuth, type AuthHandler } from './auth.js';
import { A2ADeadlineError, A2AInvalidResponseError, A2ATimeoutError, A2ATransportError } from './errors.js';

/** The reply to SendMessage: a direct Message or a Task. */
export type SendResult = { kind: 'message'; message: Message } | { kind: 'task'; task: Task };

/** One stream event, tagged by its StreamResponse member. */
export type StreamEvent =
  | { kind: 'task'; task: Task }
  | { kind: 'message'; message: Message }
  | { kind: 'statusUpdate'; statusUpdate: TaskStatusUpdateEvent }
  | { kind: 'artifactUpdate'; artifactUpdate: TaskArtifactUpdateEvent };

/** Hooks run around every call. */
export interface Interceptor {
  /** May change the per-call options (headers...) before the call. */
  before?(call: { method: string; request: unknown; options: CallOptions }): void | Promise<void>;
  /** Sees the outcome. */
  after?(call: { method: string; request: unknown; result?: unknown; error?: unknown }): void | Promise<void>;
}

/** Retry policy for safe operations. */
export interface RetryOptions {
  /** Total attempts including the first. @default 3 */
  attempts?: number;
  /** @default 200 */
  baseDelayMs?: number;
  /** @default 5000 */
  maxDelayMs?: number;
}

/** Options of {@link A2AClient.connect}. */
export interface A2AClientOptions {
  /** Preferred bindings in order; without it the card's order decides (CLI-CARD-2). */
  bindings?: BindingName[];
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Headers sent on every call. */
  headers?: Record<string, string>;
  /** Extensions requested on every call (A2A-Extensions). */
  extensions?: string[];
  /** Credentials: a handler, or the shorthands `{ bearer }` / `{ apiKey }`. */
  auth?: AuthHandler | { bearer: string } | { apiKey: string };
  /** Per-call timeout, ms. @default 60000 */
  timeoutMs?: number;
  /** A stream silent this long fails (and the resilient helpers reconnect). @default 60000 */
  streamIdleTimeoutMs?: number;
  /** Retries for safe operations; `false` disables them. */
  retry?: RetryOptions | false;
  interceptors?: Interceptor[];
  /** Card discovery options (caching, verify hook...). */
  card?: CardResolverOptions;
  /** A resolver to share its cache between clients. */
  resolver?: AgentCardResolver;
  /** Options passed to the gRPC transport. */
  grpc?: Record<string, unknown>;
}

/** Input of {@link A2AClient.send} and {@link A2AClient.stream}. */
export interface SendInput {
  text?: string;
  /** A data part (any JSON). */
  data?: unknown;
  /** More parts, after the text and data ones. */
  parts?: Part[];
  /** Continue this task (after INPUT_REQUIRED, CLI-SEND-8). */
  taskId?: string;
  contextId?: string;
  /** @default a fresh UUID */
  messageId?: string;
  /** Answer as soon as the task exists. @default false */
  returnImmediately?: boolean;
  historyLength?: number;
  acceptedOutputModes?: string[];
  referenceTaskIds?: string[];
  metadata?: Record<string, unknown>;
  /** Message-level extension URIs. */
  extensions?: string[];
  /** A webhook for this task's updates. */
  pushNotificationConfig?: TaskPushNotificationConfig;
  signal?: AbortSignal;
}

/** Options of {@link A2AClient.waitForTask}. */
export interface WaitOptions {
  /** Give up after this many ms, and cancel the remote task. */
  deadline?: number;
  signal?: AbortSignal;
  /** First poll delay. @default 250 */
  initialDelayMs?: number;
  /** Cap of the poll delay. @default 5000 */
  maxDelayMs?: number;
  /** Cancel the task when the deadline passes. @default true */
  cancelOnDeadline?: boolean;
  /** Upper bound on polls. @default 10000 */
  maxPolls?: number;
}

/** Options of the resilient stream helpers. */
export interface FollowOptions {
  signal?: AbortSignal;
  /** Reconnect attempts in a row before giving up. @default 5 */
  maxReconnects?: number;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', abort);
      resolve();
    }
    function abort() {
      clearTimeout(t);
      reject(signal?.reason);
    }
    signal?.addEventListener('abort', abort, { once: true });
  });

/** Capped exponential backoff with full jitter. */
export function backoff(attempt: number, baseMs: number, maxMs: number): number {
  return Math.random() * Math.min(maxMs, baseMs * 2 ** attempt);
}

/** True for failures worth retrying: refused/reset connections, 502/503/504, UNAVAILABLE. */
export function isRetryable(error: unknown): boolean {
  if (error instanceof A2AError) return error.code === 'Unavailable';
  if (error instanceof A2ATransportError) {
    if (error.status !== undefined) return [502, 503, 504].includes(error.status);
    return ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'EAI_AGAIN'].includes(error.code ?? '');
  }
  return false;
}

/** Turns a StreamResponse into a tagged event. */
export function toStreamEvent(event: StreamResponse): StreamEvent {
  if (event.task) return { kind: 'task', task: event.task };
  if (event.message) return { kind: 'message', message: event.message };
  if (event.statusUpdate) return { kind: 'statusUpdate', statusUpdate: event.statusUpdate };
  return { kind: 'artifactUpdate', artifactUpdate: event.artifactUpdate as TaskArtifactUpdateEvent };
}

/** The status an event carries, if any. */
export function statusOf(event: StreamEvent): TaskStatus | undefined {
  if (event.kind === 'task') return event.task.status;
  if (event.kind === 'statusUpdate') return event.statusUpdate.status;
  return undefined;
}

function statusKey(s: TaskStatus): string {
  return `${s.state}|${s.timestamp ?? ''}|${s.message?.messageId ?? ''}`;
}

/** An A2A agent, reached through one transport chosen from its card. */
export class A2AClient {
  private readonly auth: AuthHandler | undefined;

  constructor(
    readonly transport: Transport,
    readonly card: AgentCard | undefined,
    private readonly options: A2AClientOptions = {},
  ) {
    const a = options.auth;
    this.auth = !a
      ? undefined
      : 'credentials' in a
        ? a
        : 'bearer' in a
          ? bearerAuth(a.bearer)
          : apiKeyAuth(a.apiKey);
  }

  /**
   * Discovers the agent at `urlOrCard` (a base URL, a card URL, or a card object), picks an
   * interface and returns a ready client.
   */
  static async connect(urlOrCard: string | AgentCard, options: A2AClientOptions = {}): Promise<A2AClient> {
    let card: AgentCard;
    if (typeof urlOrCard === 'string') {
      const resolver = options.resolver ?? new AgentCardResolver({ fetch: options.fetch, ...options.card });
      card = (await resolver.resolve(urlOrCard)).card;
    } else card = urlOrCard;
    const iface = selectInterface(card, options.bindings);
    const transport = await createTransport(iface, {
      fetch: options.fetch,
      headers: options.headers,
      extensions: options.extensions,
      timeoutMs: options.timeoutMs,
      streamIdleTimeoutMs: options.streamIdleTimeoutMs,
      grpc: options.grpc,
    });
    return new A2AClient(transport, card, options);
  }

  /** The binding in use (`JSONRPC`, `HTTP+JSON`, `GRPC`). */
  get binding(): string {
    return this.transport.binding;
  }

  // ---- plumbing ------------------------------------------------------------------------

  private async callOptions(method: string, base: CallOptions = {}): Promise<CallOptions> {
    const options: CallOptions = { ...base, headers: { ...base.headers } };
    if (this.auth) {
      const creds = await this.auth.credentials({ card: this.card, method });
      options.headers = { ...options.headers, ...creds.headers };
      if (creds.query) options.query = { ...options.query, ...creds.query };
    }
    return options;
  }

  private async invoke<R>(
    method: string,
    request: unknown,
    run: (options: CallOptions) => Promise<R>,
    safe: boolean,
    base: CallOptions = {},
  ): Promise<R> {
    const retry = this.options.retry === false ? { attempts: 1 } : (this.options.retry ?? {});
    const attempts = safe ? Math.max(1, retry.attempts ?? 3) : 1;
    let reauthed = false;
    for (let attempt = 0; ; attempt++) {
      const options = await this.callOptions(method, base);
      for (const i of this.options.interceptors ?? []) await i.before?.({ method, request, options });
      try {
        const result = await run(options);
        for (const i of this.options.interceptors ?? []) await i.after?.({ method, request, result });
        return result;
      } catch (error) {
        for (const i of this.options.interceptors ?? []) await i.after?.({ method, request, error });
        if (
          !reauthed &&
          error instanceof A2AError &&
          error.code === 'Unauthenticated' &&
          this.auth?.onUnauthorized &&
          (await this.auth.onUnauthorized({ card: this.card, method }))
        ) {
          reauthed = true;
          attempt--;
          continue;
        }
        if (attempt + 1 >= attempts || !isRetryable(error) || base.signal?.aborted) throw error;
        await sleep(backoff(attempt, retry.baseDelayMs ?? 200, retry.maxDelayMs ?? 5000), base.signal);
      }
    }
  }

  private async *invokeStream(
    method: string,
    request: unknown,
    open: (options: CallOptions) => AsyncIterable<StreamResponse>,
    base: CallOptions = {},
  ): AsyncGenerator<StreamEvent, void, undefined> {
    let reauthed = false;
    for (;;) {
      const options = await this.callOptions(method, base);
      for (const i of this.options.interceptors ?? []) await i.before?.({ method, request, options });
      let yielded = false;
      try {
        for await (const event of open(options)) {
          yielded = true;
          yield toStreamEvent(event);
        }
        for (const i of this.options.interceptors ?? []) await i.after?.({ method, request });
        return;
      } catch (error) {
        for (const i of this.options.interceptors ?? []) await i.after?.({ method, request, error });
        if (
          !yielded &&
          !reauthed &&
          error instanceof A2AError &&
          error.code === 'Unauthenticated' &&
          this.auth?.onUnauthorized &&
          (await this.auth.onUnauthorized({ card: this.card, method }))
        ) {
          reauthed = true;
          continue;
        }
        throw error;
      }
    }
  }

  private requireCapability(flag: 'streaming' | 'pushNotifications' | 'extendedAgentCard'): void {
    if (!this.card || this.card.capabilities[flag]) return;
    if (flag === 'pushNotifications') {
      throw createError(
        'PushNotificationNotSupported',
        `the agent's card does not declare capabilities.${flag}`,
      );
    }
    throw createError('UnsupportedOperation', `the agent's card does not declare capabilities.${flag}`);
  }

  // ---- the eleven operations -----------------------------------------------------------

  /** SendMessage. Retried on transient failures with the same messageId (CLI-SEND-11). */
  async sendMessage(request: SendMessageRequest, options: CallOptions = {}): Promise<SendResult> {
    const r = await this.invoke(
      'SendMessage',
      request,
      (o) => this.transport.sendMessage(request, o),
      true,
      options,
    );
    return r.message ? { kind: 'message', message: r.message } : { kind: 'task', task: r.task as Task };
  }

  /** SendStreamingMessage as typed events. A closed stream does not mean the task is done (D3). */
  async *sendStreamingMessage(
    request: SendMessageRequest,
    options: CallOptions = {},
  ): AsyncGenerator<StreamEvent> {
    this.requireCapability('streaming');
    yield* this.invokeStream(
      'SendStreamingMessage',
      request,
      (o) => this.transport.sendStreamingMessage(request, o),
      options,
    );
  }

  /** SubscribeToTask as typed events; the first is a Task snapshot. */
  async *subscribeToTask(taskId: string, options: CallOptions = {}): AsyncGenerator<StreamEvent> {
    this.requireCapability('streaming');
    const request = { id: taskId };
    yield* this.invokeStream(
      'SubscribeToTask',
      request,
      (o) => this.transport.subscribeToTask(request, o),
      options,
    );
  }

  getTask(taskId: string, options: CallOptions & { historyLength?: number } = {}): Promise<Task> {
    const request = {
      id: taskId,
      ...(options.historyLength !== undefined ? { historyLength: options.historyLength } : {}),
    };
    return this.invoke('GetTask', request, (o) => this.transport.getTask(request, o), true, options);
  }

  listTasks(request: ListTasksRequest = {}, options: CallOptions = {}): Promise<ListTasksResponse> {
    return this.invoke('ListTasks', request, (o) => this.transport.listTasks(request, o), true, options);
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

  cancelTask(
    taskId: string,
    options: CallOptions & { metadata?: Record<string, unknown> } = {},
  ): Promise<Task> {
    const request = { id: taskId, ...(options.metadata ? { metadata: options.metadata } : {}) };
    return this.invoke('CancelTask', request, (o) => this.transport.cancelTask(request, o), true, options);
  }

  async createTaskPushNotificationConfig(
    config: TaskPushNotificationConfig,
    options: CallOptions = {},
  ): Promise<TaskPushNotificationConfig> {
    this.requireCapability('pushNotifications');
    // Without a client-chosen id a repeat would create a second config: not safe to retry.
    return this.invoke(
      'CreateTaskPushNotificationConfig',
      config,
      (o) => this.transport.createTaskPushNotificationConfig(config, o),
      !!config.id,
      options,
    );
  }

  async getTaskPushNotificationConfig(
    taskId: string,
    id: string,
    options: CallOptions = {},
  ): Promise<TaskPushNotificationConfig> {
    this.requireCapability('pushNotifications');
    const request = { taskId, id };
    return this.invoke(
      'GetTaskPushNotificationConfig',
      request,
      (o) => this.transport.getTaskPushNotificationConfig(request, o),
      true,
      options,
    );
  }

  async listTaskPushNotificationConfigs(
    taskId: string,
    page: Omit<ListTaskPushNotificationConfigsRequest, 'taskId'> = {},
    options: CallOptions = {},
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    this.requireCapability('pushNotifications');
    const request = { ...page, taskId };
    return this.invoke(
      'ListTaskPushNotificationConfigs',
      request,
      (o) => this.transport.listTaskPushNotificationConfigs(request, o),
      true,
      options,
    );
  }

  async deleteTaskPushNotificationConfig(
    taskId: string,
    id: string,
    options: CallOptions = {},
  ): Promise<void> {
    this.requireCapability('pushNotifications');
    const request = { taskId, id };
    await this.invoke(
      'DeleteTaskPushNotificationConfig',
      request,
      (o) => this.transport.deleteTaskPushNotificationConfig(request, o),
      true,
      options,
    );
  }

  /** GetExtendedAgentCard; only when the card declares it (CLI-XCARD-2). */
  async getExtendedAgentCard(options: CallOptions = {}): Promise<AgentCard> {
    this.requireCapability('extendedAgentCard');
    return this.invoke(
      'GetExtendedAgentCard',
      {},
      (o) => this.transport.getExtendedAgentCard({}, o),
      true,
      options,
    );
  }

  // ---- conveniences --------------------------------------------------------------------

  /** Builds the SendMessageRequest for `input`: fresh messageId, ROLE_USER, explicit returnImmediately. */
  buildRequest(input: SendInput): SendMessageRequest {
    const parts: Part[] = [];
    if (input.text !== undefined) parts.push({ text: input.text });
    if (input.data !== undefined) parts.push({ data: input.data });
    parts.push(...(input.parts ?? []));
    if (parts.length === 0)
      throw createError('InvalidParams', 'a message needs at least one part (text, data or parts)');
    const message: Message = { messageId: input.messageId ?? newId(), role: Role.USER, parts };
    if (input.taskId) message.taskId = input.taskId;
    if (input.contextId) message.contextId = input.contextId;
    if (input.referenceTaskIds) message.referenceTaskIds = input.referenceTaskIds;
    if (input.extensions) message.extensions = input.extensions;
    const configuration: SendMessageConfiguration = { returnImmediately: input.returnImmediately ?? false };
    if (input.historyLength !== undefined) configuration.historyLength = input.historyLength;
    if (input.acceptedOutputModes) configuration.acceptedOutputModes = input.acceptedOutputModes;
    if (input.pushNotificationConfig) configuration.taskPushNotificationConfig = input.pushNotificationConfig;
    const request: SendMessageRequest = { message, configuration };
    if (input.metadata) request.metadata = input.metadata;
    return request;
  }

  /** Sends a message built from `input` (see {@link buildRequest}). */
  send(input: SendInput): Promise<SendResult> {
    return this.sendMessage(this.buildRequest(input), { signal: input.signal });
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
  async waitForTask(taskId: string, options: WaitOptions = {}): Promise<Task> {
    const started = Date.now();
    const deadlineAt = options.deadline !== undefined ? started + options.deadline : Infinity;
    let last: Task | undefined;
    for (let poll = 0; poll < (options.maxPolls ?? 10_000); poll++) {
      const remaining = deadlineAt - Date.now();
      if (remaining <= 0) break;
      last = await this.getTask(taskId, {
        signal: options.signal,
        ...(Number.isFinite(remaining)
          ? { timeoutMs: Math.max(1, Math.min(remaining, this.options.timeoutMs ?? 60_000)) }
          : {}),
      }).catch((error: unknown) => {
        if (error instanceof A2ATimeoutError && Date.now() >= deadlineAt) return last;
        throw error;
      });
      if (last && (isTerminalState(last.status.state) || isInterruptedState(last.status.state))) return last;
      const delay = Math.max(
        (options.initialDelayMs ?? 250) / 2,
        backoff(poll, options.initialDelayMs ?? 250, options.maxDelayMs ?? 5000),
      );
      const left = deadlineAt - Date.now();
      if (left <= 0) break;
      await sleep(Math.min(delay, left), options.signal);
    }
    if (Date.now() < deadlineAt) {
      throw new A2ATimeoutError(
        `task ${taskId} was still running after ${options.maxPolls ?? 10_000} polls`,
        0,
      );
    }
    if (options.cancelOnDeadline !== false) {
      last = await this.cancelTask(taskId, { timeoutMs: 10_000 }).catch(() => last);
    }
    throw new A2ADeadlineError(
      `task ${taskId} did not finish within ${options.deadline} ms${options.cancelOnDeadline !== false ? '; it was asked to cancel' : ''}`,
      options.deadline ?? 0,
      last,
    );
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
    yield* this.follow(() => this.sendStreamingMessage(request, { signal }), undefined, {
      ...options,
      signal,
    });
  }

  /** Follows an existing task to its end (or interruption), reconnecting as needed. */
  async *followTask(
    taskId: string,
    options: FollowOptions = {},
  ): AsyncGenerator<StreamEvent, void, undefined> {
    yield* this.follow(undefined, taskId, options);
  }

  private async *follow(
    first: (() => AsyncIterable<StreamEvent>) | undefined,
    knownTaskId: string | undefined,
    options: FollowOptions,
  ): AsyncGenerator<StreamEvent, void, undefined> {
    const seen = new Set<string>();
    let taskId = knownTaskId;
    let state: TaskState | undefined;
    let failures = 0;
    const maxReconnects = options.maxReconnects ?? 5;
    const finished = () => state !== undefined && (isTerminalState(state) || isInterruptedState(state));
    // Yields an event unless its status was already seen; tracks the task's state.
    const accept = (event: StreamEvent): boolean => {
      if (event.kind === 'task') taskId ??= event.task.id;
      if (event.kind === 'statusUpdate') taskId ??= event.statusUpdate.taskId;
      const status = statusOf(event);
      if (status) {
        const key = statusKey(status);
        if (seen.has(key)) return false;
        seen.add(key);
        state = status.state;
      }
      return true;
    };
    let subscribing = first === undefined;
    let open: () => AsyncIterable<StreamEvent> =
      first ?? (() => this.subscribeToTask(taskId as string, { signal: options.signal }));
    for (;;) {
      let got = false;
      try {
        for await (const event of open()) {
          got = true;
          failures = 0;
          if (event.kind === 'message' && !taskId) {
            yield event;
            return; // a direct reply: nothing to follow
          }
          if (accept(event)) yield event;
          if (state !== undefined && isTerminalState(state)) return;
        }
      } catch (error) {
        // A resubscription refused because the task ended meanwhile: GetTask below reconciles.
        const endedMeanwhile =
          subscribing && !got && error instanceof A2AError && error.code === 'UnsupportedOperation';
        const transient =
          error instanceof A2ATransportError ||
          error instanceof A2ATimeoutError ||
          (error instanceof A2AInvalidResponseError && error.reason === 'truncated-stream') ||
          isRetryable(error);
        if (!endedMeanwhile) {
          if (!transient || !taskId || options.signal?.aborted) throw error;
          if (++failures > maxReconnects) throw error;
          await sleep(backoff(failures, 200, 3000), options.signal);
        }
      }
      if (!taskId) return;
      if (finished()) return;
      // A server that keeps closing streams at once must not make us spin.
      if (!got && ++failures > maxReconnects) {
        throw new A2ATransportError(`the stream of task ${taskId} kept closing without events`);
      }
      // Reconcile: the stream ended or broke before a terminal state (D3, CLI-STREAM-2/5).
      const task = await this.getTask(taskId, { signal: options.signal });
      const event: StreamEvent = { kind: 'task', task };
      if (accept(event)) yield event;
      if (finished()) return;
      const id = taskId;
      subscribing = true;
      open = () => this.subscribeToTask(id, { signal: options.signal });
    }
  }

  /** Releases the transport's connections. */
  close(): Promise<void> {
    return this.transport.close();
  }
}
