/** Options of {@link A2AClient.connect} and of its follow helpers. */
import type { AgentCardResolver, CardResolverOptions } from './card-resolver.js';
import type { BindingName, TransportFactoryOptions } from './binding-selection.js';
import type { AuthHandler } from './auth.js';
import type { ClientInterceptor } from './interceptor.js';
import type { RetryOptions } from './retry.js';

/** Options of {@link A2AClient.connect}. */
export interface A2AClientOptions {
  /** Preferred bindings in order; without it the card's order decides (CLI-CARD-2). */
  bindings?: BindingName[];
  /**
   * Used for the card and the HTTP bindings. {@link inMemoryFetch} reaches a server in the
   * same process without a socket. @default globalThis.fetch
   */
  fetch?: typeof fetch;
  /** Headers sent on every call. */
  headers?: Record<string, string>;
  /** Extensions requested on every call (A2A-Extensions). */
  extensions?: string[];
  /**
   * A2A 1.1 draft (docs/a2a-1.1-draft.md): when the card declares the a2a-kit generation
   * extension, `connect` requests it on every call, so tasks and events carry `generation`,
   * `getTask({ waitPastGeneration })` long-polls and resilient streams resume exactly with
   * Last-Event-ID. `false` never requests it. @default true
   */
  generation?: boolean;
  /** Credentials: a handler, or the shorthands `{ bearer }` / `{ apiKey }`. */
  auth?: AuthHandler | { bearer: string } | { apiKey: string };
  /**
   * More origins `auth`'s credentials may be sent to (CLI-AUTH-3): `https://api.example.com`,
   * `grpc://host:port` (or `host:port`) for a gRPC interface. Without them, credentials go only
   * to interfaces on the origin of the URL given to `connect`, or named by a card whose
   * signature was verified (`card.verify`); a call to any other interface fails with
   * `A2AUntrustedInterfaceError` and sends nothing. A card object given to `connect`
   * lends no origin. `headers` are not scoped: they go wherever the client calls.
   * @default []
   */
  credentialOrigins?: string[];
  /** Per-call timeout, ms. @default 60000 */
  timeoutMs?: number;
  /** A stream silent this long fails (and the resilient helpers reconnect). @default 60000 */
  streamIdleTimeoutMs?: number;
  /** Retries for safe operations; `false` disables them. */
  retry?: RetryOptions | false;
  /**
   * Interceptors around every attempt of every call, the first outermost; they run inside the
   * client's retries and failover, after the credentials were added (see {@link ClientInterceptor}).
   */
  interceptors?: ClientInterceptor[];
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

/** The part of the client's options each transport is made with. */
export function transportOptions(options: A2AClientOptions): TransportFactoryOptions {
  return {
    fetch: options.fetch,
    headers: options.headers,
    extensions: options.extensions,
    timeoutMs: options.timeoutMs,
    streamIdleTimeoutMs: options.streamIdleTimeoutMs,
    grpc: options.grpc,
  };
}
