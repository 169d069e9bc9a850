/**
 * The options of `createA2AServer`, each documented where it is declared (its default and
 * an example), and the pieces derived from them.
 */
import type { GenerationOptions } from '../core/generation.js';
import type { Authenticate } from '../bindings/auth-request.js';
import type { AgentCard } from '../model/schema.js';
import type { ServerCallContext } from '../core/context.js';
import type { AgentExecutor } from '../core/executor.js';
import type { RequestHandler } from '../core/handler/request-handler.js';
import type { DefaultRequestHandlerOptions } from '../core/handler/options.js';
import type { RecoveryOptions } from '../core/recovery.js';
import type { RetentionOptions } from '../core/retention.js';
import type { StoreSpec } from '../core/stores/open.js';
import type { PushOptions } from './push/hosting.js';
import type { Logger } from './observability/index.js';
import type { ServerInterceptor } from '../core/handler/interceptor.js';
import type { TaskStore } from '../core/stores/task-store.js';
import type { AgentCardConfig } from './card/build.js';
import type { CardSigningKey } from './card/sign.js';
import type { TlsConfig } from './auth/tls.js';
import type { HttpTimeoutOptions } from './limits/http-timeouts.js';
import type { PrincipalLimitOptions } from './limits/interceptors.js';
import type { ServerSecurityOptions } from './security.js';
import type { ServerRoute } from './routing.js';

export type { ServerSecurityOptions, AnonymousAccess } from './security.js';
export type { PrincipalLimitOptions } from './limits/interceptors.js';

/** TLS files of the listener (PEM), or the PEM material itself. */
export type ServerTlsOptions =
  | { certFile: string; keyFile: string; clientCaFile?: string; minVersion?: 'TLSv1.2' | 'TLSv1.3' }
  | TlsConfig;

/** An extended card: a complete card, or the fields an author writes (the rest is derived). */
export type ExtendedCardConfig = AgentCard | AgentCardConfig;

/** Options of `createA2AServer`. */
export interface A2AServerOptions {
  /**
   * The agent: an executor, or just its `execute` function.
   * @example agent: async (ctx, task) => task.complete(`you said ${ctx.text}`)
   */
  agent: AgentExecutor | AgentExecutor['execute'];
  /**
   * The public card; `supportedInterfaces` and capability flags are derived from these options.
   * @example card: { name: 'echo', description: 'Echoes', version: '1.0.0', skills: [echoSkill] }
   */
  card: AgentCardConfig;
  /**
   * The extended card for authenticated callers (GetExtendedAgentCard). Setting it turns on
   * `capabilities.extendedAgentCard`. Interfaces and capabilities are copied from the public card.
   * @default undefined (no extended card)
   * @example extendedCard: (ctx) => ({ ...publicCard, skills: skillsFor(ctx.principal) })
   */
  extendedCard?:
    ExtendedCardConfig | ((ctx: ServerCallContext) => ExtendedCardConfig | Promise<ExtendedCardConfig>);
  /**
   * Where tasks and push configs live: `'sqlite:<path>'` (one file, created with its folder
   * when missing; durable), `'memory'` (gone on restart), a `postgres://` URL (shared by
   * replicas, with a LISTEN/NOTIFY event bus), or a TaskStore of your own. A store named by text
   * is opened here and closed by `close()`; `listen()` fails with the reason when it cannot be
   * used.
   * @default the `A2A_STORE` environment variable, else `'sqlite:./a2a-data/a2a.sqlite'`
   * @example store: 'postgres://a2a@db.internal/a2a'
   */
  store?: StoreSpec | TaskStore;
  /**
   * Crash recovery on SQLite and PostgreSQL: each running execution holds a lease with a
   * heartbeat, and tasks a dead process left SUBMITTED or WORKING are failed by the next start
   * or another replica. See `DefaultRequestHandlerOptions.recovery`.
   * @default on, with a 30 s lease
   */
  recovery?: RecoveryOptions | false;
  /**
   * The retention job: idempotency records older than the idempotency window (24 h) are
   * deleted every 10 minutes, and terminal tasks older than `terminalTasksMaxAgeMs` when it is
   * set. See `DefaultRequestHandlerOptions.retention`.
   * @default on: idempotency records after 24 hours, terminal tasks kept
   * @example retention: { terminalTasksMaxAgeMs: 30 * 24 * 3600_000 }
   */
  retention?: RetentionOptions | false;
  /**
   * Offer SendStreamingMessage and SubscribeToTask.
   * @default true
   * @example streaming: false
   */
  streaming?: boolean;
  /**
   * Offer push notifications.
   * @default false
   * @example pushNotifications: true
   */
  pushNotifications?: boolean;
  /**
   * Push delivery options (address safety, retries, signing), used when `pushNotifications`
   * is true. See [push notifications](../../docs/push-notifications.md).
   * @default {} (HTTPS only, public addresses only, signed with a key generated at start)
   * @example push: { allowHosts: ['127.0.0.1'], allowHttp: true }
   */
  push?: PushOptions;
  /**
   * More HTTP paths this server answers, beside the A2A ones (exact paths, one trailing slash
   * tolerated): a push-notification webhook of an agent that is also a client, a health check.
   * Each route checks its own callers (no `authenticate` or interceptors run). A path the server
   * already serves (the bindings, the card, the push JWKS) is refused at creation.
   * @default {}
   * @example routes: { '/hooks/push': (req) => ({ status: 200, headers: {}, body: '{}' }) }
   */
  routes?: Readonly<Record<string, ServerRoute>>;
  /**
   * Also serve gRPC on this port (0 = any free port); listed on the card as `host:port`.
   * @default undefined (no gRPC)
   * @example grpc: { port: 50051, host: '0.0.0.0' }
   */
  grpc?: {
    port: number;
    host?: string;
    /** Close an HTTP/2 connection idle (no call) this long, in ms. @default 120000 */
    idleTimeoutMs?: number;
    /**
     * Close a new connection that has not started a call within this time, in ms (TLS
     * handshake and HTTP/2 preface included). @default 10000
     */
    firstCallTimeoutMs?: number;
    /** Most connections open at once on the gRPC port; more are closed on accept. @default 1000 */
    maxConnections?: number;
    /** Most connections open at once from one remote address (`Infinity`: no cap). @default 100 */
    maxConnectionsPerAddress?: number;
  };
  /**
   * The URL clients reach this server at, used in the card's interfaces.
   * @default the listen address, or the request's Host when mounted elsewhere
   * @example publicUrl: 'https://agents.example.com'
   */
  publicUrl?: string;
  /**
   * Largest accepted request body in bytes (also the gRPC message limit).
   * @default 1048576
   * @example bodyLimit: 4 * 1024 * 1024
   */
  bodyLimit?: number;
  /**
   * Interval between SSE keep-alive comments, in milliseconds.
   * @default 20000
   * @example keepAliveMs: 15_000
   */
  keepAliveMs?: number;
  /**
   * How long `A2AServer.close` waits for in-flight responses before aborting the agents.
   * @default 5000
   * @example closeGraceMs: 30_000
   */
  closeGraceMs?: number;
  /**
   * Receives failures that are not protocol errors.
   * @default console.error
   * @example onError: (error) => logger.error({ err: error }, 'a2a failure')
   */
  onError?: (error: unknown) => void;
  /**
   * How long a task may wait in `TASK_STATE_INPUT_REQUIRED` or `TASK_STATE_AUTH_REQUIRED` for
   * the client before it is failed; `0` or `Infinity` waits forever. See
   * `DefaultRequestHandlerOptions.interruptedTimeoutMs`.
   * @default 3600000 (one hour)
   * @example interruptedTimeoutMs: 10 * 60_000
   */
  interruptedTimeoutMs?: number;
  /**
   * A2A 1.1 draft support (dev-1.1, PR 1810): task `generation`, long-polling GetTask,
   * `ifGenerationMatch`, exact SSE resumption with `Last-Event-ID`. Opt-in per call too: only
   * a call with `A2A-Version: 1.1` or the extension `https://a2a-kit.dev/extensions/generation/v1`
   * in `A2A-Extensions` sees any of it (the card declares the extension). See
   * docs/a2a-1.1-draft.md. @default off
   * @example generation: { longPollMaxMs: 10_000, advertiseDraftVersion: true }
   */
  generation?: GenerationOptions | boolean;
  /**
   * Resource bounds and the idempotency window, passed to the DefaultRequestHandler (see
   * {@link DefaultRequestHandlerOptions} for each one's meaning and default), and per-caller
   * limits run as interceptors on every binding, keyed by tenant + principal: `ratePerSecond`
   * / `rateBurst` (token bucket; 429 / RESOURCE_EXHAUSTED with Retry-After),
   * `maxStreamsPerPrincipal`, `maxRunningPerPrincipal` (executions the caller's messages run),
   * `maxPushConfigsPerTask` (ResourceExhausted beyond; 10 unless set, `false` for none). The
   * other per-caller limits are off unless set.
   * @default the DefaultRequestHandler's defaults; at most 10 push configs per task
   * @example limits: { maxTaskParts: 1000, ratePerSecond: 20, maxStreamsPerPrincipal: 8 }
   */
  limits?: ServerLimits;
  /**
   * Authentication from configured authenticators: the card's `securitySchemes` and
   * `securityRequirements` are generated from them (a card that declares other schemes is
   * refused at start), every request of every binding passes the gate (401 + WWW-Authenticate /
   * 403, no task), the extended card is refused to anonymous callers, and anonymous callers
   * (when `requirements` or `anonymous` allow them) get a scope per connection unless
   * `anonymous: 'shared'`. Per-skill scopes (`skillScopes`) go on the card's skills; A2A
   * requests do not name a skill, so the agent checks them with `authorizeSkill(ctx.principal, skill)`.
   * Not together with `authenticate`.
   * @default undefined (an open agent: every caller is `anonymous`, one shared scope)
   * @example security: { authenticators: [createApiKeyAuthenticator({ keys: { 'k-1': 'alice' } })] }
   */
  security?: ServerSecurityOptions;
  /**
   * Serve HTTPS (and gRPC over TLS) with these PEM files; with a client CA, client certificates
   * are requested (mutual TLS: pair with `createMutualTlsAuthenticator`). gRPC then requires a
   * client certificate signed by that CA in the handshake.
   * @default undefined (plain HTTP and plaintext gRPC)
   * @example tls: { certFile: 'server.crt', keyFile: 'server.key', clientCaFile: 'clients-ca.crt' }
   */
  tls?: ServerTlsOptions;
  /**
   * Sign the served public card (spec 8.4) with these keys: one JWS signature per key.
   * @default undefined (unsigned card)
   * @example sign: { keys: [{ privateKey: pem, alg: 'ES256', kid: 'card-2026', jku: 'https://example.com/jwks.json' }] }
   */
  sign?: { keys: CardSigningKey | readonly CardSigningKey[] };
  /**
   * Timeouts, header size limit and connection caps of the HTTP listener against slow, idle or
   * too many clients (slowloris), see `httpServerTimeouts`; response streams are never cut.
   * @default { headersTimeoutMs: 10000, requestTimeoutMs: 30000, keepAliveTimeoutMs: 5000, maxHeaderBytes: 16384, maxConnections: 10000, maxConnectionsPerAddress: 1000 }
   * @example timeouts: { headersTimeoutMs: 5_000 }
   */
  timeouts?: HttpTimeoutOptions;
  /**
   * Resolves the caller of every request, on every binding (JSON-RPC, HTTP+JSON, gRPC, and the
   * v0.3 paths), before the operation runs; the principal is `ctx.principal`, and tasks are
   * owned by it (one principal never sees another's tasks). Throw an A2AError to refuse:
   * `UnauthenticatedError` (HTTP 401 / gRPC UNAUTHENTICATED) or `PermissionDeniedError`
   * (403 / PERMISSION_DENIED); a `challenges: string[]` on the error (as the authenticators'
   * `AuthenticationFailedError` has) is sent as `WWW-Authenticate`. No task is created then.
   * @default every caller is `ANONYMOUS`
   * @example authenticate: (request) => gate.principalOf(request) // createSecurityGate(...)
   * @example authenticate: ({ headers }) => {
   *   const user = users.get(headers.get('x-api-key') ?? '');
   *   if (!user) throw new UnauthenticatedError('Unknown API key');
   *   return { id: user.id };
   * }
   */
  authenticate?: Authenticate;
  /**
   * Wrap every operation, whatever the binding (logging, metrics, tracing, rate limits): each is
   * `(next) => (call) => ...`, the first of the list outermost. They run after `authenticate`,
   * with `call.ctx.principal` and `call.ctx.binding` filled.
   * @default []
   * @example interceptors: [(next) => async (call) => {
   *   console.log(call.ctx.binding, call.method, call.ctx.principal.id);
   *   return next(call);
   * }]
   */
  interceptors?: readonly ServerInterceptor[];
  /**
   * Advanced: build the RequestHandler yourself instead of the DefaultRequestHandler (`agent`,
   * `store`, `extendedCard`, `interruptedTimeoutMs` and `limits` are then unused). Receives the
   * public card. `interceptors` still wrap it.
   * @default a DefaultRequestHandler over `store`
   * @example handler: (card) => new DefaultRequestHandler({ executor, card, taskStore })
   */
  handler?: (card: () => AgentCard) => RequestHandler;
  /**
   * Also serve A2A v0.3 clients (requests with `A2A-Version: 0.3`, or without a version and in
   * v0.3 form), and list the v0.3 interfaces and legacy v0.3 fields on the card. `false` answers
   * them with VersionNotSupportedError instead.
   * @default true
   * @example compatV03: false
   */
  compatV03?: boolean;
  /**
   * Structured logs (see docs/observability.md): a pino logger, or `false` for none.
   * @default false (no logs; `a2a serve` passes one)
   * @example logger: pino({ level: 'info' })
   */
  logger?: Logger | false;
  /** Exact values (API keys, tokens you configured) masked wherever they would appear in a log line. */
  redactValues?: readonly string[];
}

/** The DefaultRequestHandler options {@link A2AServerOptions.limits} may set. */
export type ServerLimits = Pick<DefaultRequestHandlerOptions, (typeof LIMIT_KEYS)[number]> &
  PrincipalLimitOptions;

const LIMIT_KEYS = [
  'maxTaskParts',
  'maxTaskBytes',
  'idempotencyTtlMs',
  'maxStreamQueueEvents',
  'maxStreamQueueBytes',
] as const;

/** The limits that are set, and only those (so the handler's defaults apply to the rest). */
export function pickLimits(
  limits: ServerLimits | undefined,
): Pick<DefaultRequestHandlerOptions, (typeof LIMIT_KEYS)[number]> {
  const picked: Record<string, unknown> = {};
  for (const key of LIMIT_KEYS) if (limits?.[key] !== undefined) picked[key] = limits[key];
  return picked as ServerLimits;
}
