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
  AgentInterface,
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
import type { CallOptions, Transport } from '../bindings/transport.js';
import { AgentCardResolver, type CardResolverOptions } from './card-resolver.js';
import {
  bindingName,
  createTransport,
  selectInterface,
  usableInterfaces,
  type BindingName,
  type TransportFactoryOptions,
} from './binding-selection.js';
import { bearerAuth, apiKeyAuth, type AuthHandler } from './auth.js';
import {
  A2ADeadlineError,
  A2AInterfacesUnreachableError,
  A2AInvalidResponseError,
  A2ATimeoutError,
  A2ATransportError,
  type InterfaceFailure,
} from '../errors/client-errors.js';

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
  /**
   * Fall back to the card's other usable interfaces, in selection order, when the one in use
   * cannot be reached (CLI-CARD-5); the one that answers is kept for later calls. A call moves
   * to another interface only when its failure proves the request was not delivered (connection
   * refused, unknown host) or when the operation is safe to repeat (SendMessage with its
   * unchanged messageId, GetTask, ListTasks, CancelTask, SubscribeToTask...). When every
   * interface fails, {@link A2AInterfacesUnreachableError} names each one.
   * Only clients made by {@link A2AClient.connect} know the card's other interfaces.
   * @default true
   */
  failover?: boolean;
  /**
   * Also use an agent's A2A v0.3 interfaces (JSON-RPC, REST) when it offers no usable v1.0 one;
   * v1.0 is always preferred where both are offered. `false` uses v1.0 interfaces only.
   * @default true
   */
  compatV03?: boolean;
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
  /**
   * Failed reconnection steps in a row (a broken stream, a failed GetTask, a refused
   * resubscription) before giving up; any event received resets the count. With the default
   * delays, 5 steps ride out an outage of at least 3 s. @default 5
   */
  maxReconnects?: number;
  /** Delay before the first reconnection step; doubles per failed step. @default 200 */
  reconnectBaseDelayMs?: number;
  /** Cap of the reconnection delay. @default 3000 */
  reconnectMaxDelayMs?: number;
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

/**
 * The wait before reconnection step `attempt` (1-based): capped exponential backoff with
 * "equal jitter" (between half and all of the step's delay), so that a number of steps is
 * also a known minimum of time survived.
 */
function reconnectDelay(attempt: number, baseMs: number, maxMs: number): number {
  const step = Math.min(maxMs, baseMs * 2 ** (attempt - 1));
  return step / 2 + (Math.random() * step) / 2;
}

/** Failures a follow reconnects after: the network, timeouts, cut streams, UNAVAILABLE. */
function isTransient(error: unknown): boolean {
  return (
    error instanceof A2ATransportError ||
    error instanceof A2ATimeoutError ||
    (error instanceof A2AInvalidResponseError && error.reason === 'truncated-stream') ||
    isRetryable(error)
  );
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

/** Network codes that prove a request never left this host or never reached a peer. */
const UNDELIVERED_CODES = [
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
];

/** grpc-js's text for a call that never got a connection (the request was not sent). */
function grpcNeverConnected(error: A2ATransportError): boolean {
  const details = (error.cause as { details?: unknown } | undefined)?.details;
  return typeof details === 'string' && /^No connection established|^Name resolution failed/.test(details);
}

/**
 * True when `error` proves the request was never delivered (refused connection, unknown host),
 * so that any operation, even one unsafe to repeat, may be sent elsewhere.
 */
export function isUndelivered(error: unknown): boolean {
  if (!(error instanceof A2ATransportError) || error.status !== undefined) return false;
  return UNDELIVERED_CODES.includes(error.code ?? '') || grpcNeverConnected(error);
}

/**
 * True when `error` is a failure of the transport rather than an answer of an A2A server:
 * network errors (gRPC's UNAVAILABLE from the channel included), HTTP errors without an A2A body.
 */
export function isTransportFailure(error: unknown): boolean {
  return error instanceof A2ATransportError;
}

/** Turns a StreamResponse into a tagged event. */
export function toStreamEvent(event: StreamResponse): StreamEvent {
  if (event.task) return { kind: 'task', task: event.task };
  if (event.message) return { kind: 'message', message: event.message };
  if (event.statusUpdate) return { kind: 'statusUpdate', statusUpdate: event.statusUpdate };
  return { kind: 'artifactUpdate', artifactUpdate: event.artifactUpdate as TaskArtifactUpdateEvent };
}

/** Turns a tagged event back into its StreamResponse (the inverse of {@link toStreamEvent}). */
export function toStreamResponse(event: StreamEvent): StreamResponse {
  switch (event.kind) {
    case 'task':
      return { task: event.task };
    case 'message':
      return { message: event.message };
    case 'statusUpdate':
      return { statusUpdate: event.statusUpdate };
    default:
      return { artifactUpdate: event.artifactUpdate };
  }
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

function transportOptions(options: A2AClientOptions): TransportFactoryOptions {
  return {
    fetch: options.fetch,
    headers: options.headers,
    extensions: options.extensions,
    timeoutMs: options.timeoutMs,
    streamIdleTimeoutMs: options.streamIdleTimeoutMs,
    grpc: options.grpc,
  };
}

/** A client made by {@link A2AClient.connect}: it always has the agent's card. */
export type ConnectedA2AClient = A2AClient & { readonly card: AgentCard };

/**
 * The headers of the card fetch in {@link A2AClient.connect}: `headers`, the credentials of
 * `auth` (asked without a card, since none is known yet), then `card.headers`, which win.
 */
async function cardFetchHeaders(options: A2AClientOptions): Promise<Record<string, string>> {
  const headers: Record<string, string> = { ...options.headers };
  const handler = authHandlerOf(options.auth);
  if (handler) {
    const creds = await handler.credentials({ method: 'GetAgentCard' });
    Object.assign(headers, creds.headers);
  }
  return { ...headers, ...options.card?.headers };
}

function authHandlerOf(a: A2AClientOptions['auth']): AuthHandler | undefined {
  return !a
    ? undefined
    : 'credentials' in a
      ? a
      : 'bearer' in a
        ? bearerAuth(a.bearer)
        : apiKeyAuth(a.apiKey);
}

/** An A2A agent, reached through one transport chosen from its card. */
export class A2AClient {
  private readonly auth: AuthHandler | undefined;
  /** The interfaces to fall back on, best first; empty for a client built on one transport. */
  private interfaces: AgentInterface[] = [];
  /** Transports made so far, by index in `interfaces`. */
  private readonly transports = new Map<number, Transport>();
  private active = 0;
  private current: Transport;
  private publicCard: AgentCard | undefined;
  private extended: { card: AgentCard; publicVersion: string | undefined } | undefined;
  private cardSource: { resolver: AgentCardResolver; url: string } | undefined;

  constructor(
    transport: Transport,
    card: AgentCard | undefined,
    private readonly options: A2AClientOptions = {},
  ) {
    this.current = transport;
    this.publicCard = card;
    this.auth = authHandlerOf(options.auth);
  }

  /**
   * Discovers the agent at `urlOrCard` (a base URL, a card URL, or a card object), picks an
   * interface and returns a ready client.
   */
  static async connect(
    urlOrCard: string | AgentCard,
    options: A2AClientOptions = {},
  ): Promise<ConnectedA2AClient> {
    let card: AgentCard;
    let resolver: AgentCardResolver | undefined;
    if (typeof urlOrCard === 'string') {
      resolver =
        options.resolver ??
        new AgentCardResolver({
          fetch: options.fetch,
          ...options.card,
          headers: await cardFetchHeaders(options),
        });
      card = (await resolver.resolve(urlOrCard)).card;
    } else card = urlOrCard;
    const compatV03 = options.compatV03 !== false;
    const iface = selectInterface(card, options.bindings, compatV03);
    const client = new A2AClient(await createTransport(iface, transportOptions(options)), card, options);
    client.interfaces = usableInterfaces(card, options.bindings, compatV03);
    client.transports.set(0, client.current);
    if (resolver && typeof urlOrCard === 'string') client.cardSource = { resolver, url: urlOrCard };
    return client as ConnectedA2AClient;
  }

  /** The transport in use: after a fallback (CLI-CARD-5), the one that last answered. */
  get transport(): Transport {
    return this.current;
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
    const fresh = (await this.cardSource.resolver.resolve(this.cardSource.url, options)).card;
    this.publicCard = fresh;
    if (this.extended && this.extended.publicVersion !== fresh.version) this.extended = undefined;
    return this.card;
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

  /**
   * After `error` on interface `index`, the next interface to try, or undefined when the
   * failure does not allow a fallback or every interface was tried (`tried` is updated).
   */
  private async fallback(
    index: number,
    transport: Transport,
    error: unknown,
    safe: boolean,
    tried: InterfaceFailure[],
    triedIndexes: Set<number>,
  ): Promise<{ index: number; transport: Transport } | undefined> {
    if (this.options.failover === false || this.interfaces.length < 2) return undefined;
    if (!(isUndelivered(error) || (safe && isTransportFailure(error)))) return undefined;
    const iface = this.interfaces[index];
    tried.push({ binding: transport.binding, url: iface?.url ?? '?', error });
    triedIndexes.add(index);
    for (let next = 0; next < this.interfaces.length; next++) {
      if (triedIndexes.has(next)) continue;
      let t = this.transports.get(next);
      if (!t) {
        try {
          t = await createTransport(this.interfaces[next] as AgentInterface, transportOptions(this.options));
        } catch (failure) {
          // A binding that cannot even be set up here (e.g. gRPC unavailable) counts as tried.
          tried.push({
            binding: bindingName(this.interfaces[next]?.protocolBinding ?? '') ?? '?',
            url: this.interfaces[next]?.url ?? '?',
            error: failure,
          });
          triedIndexes.add(next);
          continue;
        }
        this.transports.set(next, t);
      }
      return { index: next, transport: t };
    }
    return undefined;
  }

  /** Keeps the interface that answered for later calls. */
  private remember(index: number, transport: Transport): void {
    if (this.interfaces.length === 0 || index === this.active) return;
    this.active = index;
    this.current = transport;
  }

  private async invoke<R>(
    method: string,
    request: unknown,
    run: (transport: Transport, options: CallOptions) => Promise<R>,
    safe: boolean,
    base: CallOptions = {},
    maxAttempts = Infinity,
  ): Promise<R> {
    const retry = this.options.retry === false ? { attempts: 1 } : (this.options.retry ?? {});
    const attempts = safe ? Math.max(1, Math.min(maxAttempts, retry.attempts ?? 3)) : 1;
    let reauthed = false;
    let index = this.active;
    let transport = this.current;
    const tried: InterfaceFailure[] = [];
    const triedIndexes = new Set<number>();
    let round = 0; // where the current round over the interfaces starts in `tried`
    for (let attempt = 0; ; attempt++) {
      const options = await this.callOptions(method, base);
      for (const i of this.options.interceptors ?? []) await i.before?.({ method, request, options });
      try {
        const result = await run(transport, options);
        this.remember(index, transport);
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
        if (base.signal?.aborted) throw error;
        const next = await this.fallback(index, transport, error, safe, tried, triedIndexes);
        if (next) {
          ({ index, transport } = next);
          attempt--;
          continue;
        }
        if (tried.length > round) {
          // A fallback happened: the final error names every interface of the last round.
          if (!isTransportFailure(error)) throw error; // an answer from a reachable server
          if (!triedIndexes.has(index)) {
            tried.push({ binding: transport.binding, url: this.interfaces[index]?.url ?? '?', error });
          }
          if (attempt + 1 >= attempts || !isRetryable(error)) {
            throw new A2AInterfacesUnreachableError(tried.slice(round));
          }
          // Every interface failed transiently: after a pause, a new round over all of them.
          round = tried.length;
          triedIndexes.clear();
          index = this.active;
          transport = this.current;
          await sleep(backoff(attempt, retry.baseDelayMs ?? 200, retry.maxDelayMs ?? 5000), base.signal);
          continue;
        }
        if (attempt + 1 >= attempts || !isRetryable(error)) throw error;
        await sleep(backoff(attempt, retry.baseDelayMs ?? 200, retry.maxDelayMs ?? 5000), base.signal);
      }
    }
  }

  private async *invokeStream(
    method: string,
    request: unknown,
    open: (transport: Transport, options: CallOptions) => AsyncIterable<StreamResponse>,
    safe: boolean,
    base: CallOptions = {},
  ): AsyncGenerator<StreamEvent, void, undefined> {
    let reauthed = false;
    let index = this.active;
    let transport = this.current;
    const tried: InterfaceFailure[] = [];
    const triedIndexes = new Set<number>();
    for (;;) {
      const options = await this.callOptions(method, base);
      for (const i of this.options.interceptors ?? []) await i.before?.({ method, request, options });
      let yielded = false;
      try {
        for await (const event of open(transport, options)) {
          if (!yielded) this.remember(index, transport);
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
        if (yielded || base.signal?.aborted) throw error;
        const next = await this.fallback(index, transport, error, safe, tried, triedIndexes);
        if (next) {
          ({ index, transport } = next);
          continue;
        }
        if (tried.length > 0 && isTransportFailure(error)) {
          if (!triedIndexes.has(index)) {
            tried.push({ binding: transport.binding, url: this.interfaces[index]?.url ?? '?', error });
          }
          throw new A2AInterfacesUnreachableError(tried);
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
    const r = await this.invoke('SendMessage', request, (t, o) => t.sendMessage(request, o), true, options);
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
      (t, o) => t.sendStreamingMessage(request, o),
      // A stream that broke after it started may have delivered the message: only an
      // undelivered request moves to another interface.
      false,
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
      (t, o) => t.subscribeToTask(request, o),
      true,
      options,
    );
  }

  getTask(taskId: string, options: CallOptions & { historyLength?: number } = {}): Promise<Task> {
    const request = {
      id: taskId,
      ...(options.historyLength !== undefined ? { historyLength: options.historyLength } : {}),
    };
    return this.invoke('GetTask', request, (t, o) => t.getTask(request, o), true, options);
  }

  listTasks(request: ListTasksRequest = {}, options: CallOptions = {}): Promise<ListTasksResponse> {
    return this.invoke('ListTasks', request, (t, o) => t.listTasks(request, o), true, options);
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
    return this.invoke('CancelTask', request, (t, o) => t.cancelTask(request, o), true, options);
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
      (t, o) => t.createTaskPushNotificationConfig(config, o),
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
      (t, o) => t.getTaskPushNotificationConfig(request, o),
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
      (t, o) => t.listTaskPushNotificationConfigs(request, o),
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
      (t, o) => t.deleteTaskPushNotificationConfig(request, o),
      true,
      options,
    );
  }

  /**
   * GetExtendedAgentCard; only when the card declares it (CLI-XCARD-2). The extended card then
   * becomes {@link card} for this client, until {@link refreshCard} sees the public card's
   * `version` change (CLI-XCARD-3).
   */
  async getExtendedAgentCard(options: CallOptions = {}): Promise<AgentCard> {
    this.requireCapability('extendedAgentCard');
    const publicVersion = this.publicCard?.version;
    const card = await this.invoke(
      'GetExtendedAgentCard',
      {},
      (t, o) => t.getExtendedAgentCard({}, o),
      true,
      options,
    );
    this.extended = { card, publicVersion };
    return card;
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

  /**
   * The loop behind {@link streamResilient} and {@link followTask}: read a stream until the
   * task is terminal or interrupted (INPUT_REQUIRED, AUTH_REQUIRED); when it ends or breaks
   * first, reconcile with GetTask and resubscribe. Every step of a reconnection may fail and
   * is retried with capped backoff until `maxReconnects` failed steps in a row.
   */
  private async *follow(
    first: (() => AsyncIterable<StreamEvent>) | undefined,
    knownTaskId: string | undefined,
    options: FollowOptions,
  ): AsyncGenerator<StreamEvent, void, undefined> {
    const seen = new Set<string>();
    const signal = options.signal;
    let taskId = knownTaskId;
    let state: TaskState | undefined;
    let failures = 0;
    const maxReconnects = options.maxReconnects ?? 5;
    const baseMs = options.reconnectBaseDelayMs ?? 200;
    const maxMs = options.reconnectMaxDelayMs ?? 3000;
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
    // One failed step: wait and go on, or give up with `error`.
    const stepFailed = async (error: unknown): Promise<void> => {
      if (!isTransient(error) || !taskId || signal?.aborted) throw error;
      if (++failures > maxReconnects) throw error;
      await sleep(reconnectDelay(failures, baseMs, maxMs), signal);
    };
    let open = first;
    let reconcile = false;
    for (;;) {
      if (reconcile) {
        // The stream ended or broke before the task settled (D3, CLI-STREAM-2/5).
        let task: Task;
        try {
          task = await this.invoke(
            'GetTask',
            { id: taskId },
            (t, o) => t.getTask({ id: taskId as string }, o),
            true,
            { signal },
            1, // this loop is the retry policy
          );
        } catch (error) {
          await stepFailed(error);
          continue;
        }
        reconcile = false;
        const event: StreamEvent = { kind: 'task', task };
        if (accept(event)) yield event;
        if (finished()) return;
      }
      const subscribing = open === undefined;
      const id = taskId as string;
      const events = open ? open() : this.subscribeToTask(id, { signal });
      open = undefined;
      let got = false;
      try {
        for await (const event of events) {
          got = true;
          failures = 0;
          if (event.kind === 'message' && !taskId) {
            yield event;
            return; // a direct reply: nothing to follow
          }
          if (accept(event)) yield event;
          if (finished()) return;
        }
      } catch (error) {
        // A resubscription refused because the task ended meanwhile: GetTask reconciles.
        const endedMeanwhile =
          subscribing && !got && error instanceof A2AError && error.code === 'UnsupportedOperation';
        if (!endedMeanwhile) await stepFailed(error);
        reconcile = true;
        continue;
      }
      if (!taskId) return;
      // A server that keeps closing streams at once must not make us spin.
      if (!got)
        await stepFailed(new A2ATransportError(`the stream of task ${taskId} kept closing without events`));
      reconcile = true;
    }
  }

  /** Releases the connections of every transport this client made. */
  async close(): Promise<void> {
    const all = new Set([this.current, ...this.transports.values()]);
    await Promise.all([...all].map((t) => t.close()));
  }
}
