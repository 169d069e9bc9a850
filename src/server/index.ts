/**
 * `a2a-kit/server`: host an A2A agent. Start with {@link createA2AServer}; write an
 * {@link AgentExecutor}; throw the error classes re-exported here.
 */
export { createA2AServer } from './http.js';
export type {
  A2AServer,
  A2AServerOptions,
  ExtendedCardConfig,
  ListenInfo,
  NodeHandler,
  FetchConnectionInfo,
  ServerLimits,
  // Security wiring (issue 11): the security, tls and per-caller limits options.
  AnonymousAccess,
  PrincipalLimitOptions,
  ServerSecurityOptions,
  ServerTlsOptions,
  // Extra paths beside the A2A ones (the `routes` option).
  ServerRoute,
  HttpRequest,
  HttpReply,
} from './http.js';
export {
  buildAgentCard,
  validateAgentCard,
  InvalidAgentCardError,
  JSONRPC_PATH,
  REST_ROOT,
  WELL_KNOWN_CARD_PATH,
} from './card/build.js';
export type { AgentCardConfig, CardFacts } from './card/build.js';
// Framework adapters that need nothing of their framework (Hono and Fastify: `a2a-kit/hono`, `a2a-kit/fastify`).
export { a2aNext } from './adapters/next.js';
export type { A2ANextHandlers, A2ANextOptions, NextRouteContext, NextRouteHandler } from './adapters/next.js';
export { DefaultRequestHandler } from '../core/handler/default-handler.js';
export { InterruptedWaitExpiredReason, TaskCanceledReason } from '../core/handler/abort-reasons.js';
export type { DefaultRequestHandlerOptions } from '../core/handler/options.js';
export type { RequestHandler } from '../core/handler/request-handler.js';
export { ANONYMOUS, createCallContext } from '../core/context.js';
export type { Principal, ProtocolBindingName, ServerCallContext } from '../core/context.js';
export { interceptHandler } from '../core/handler/interceptor.js';
export type { OperationCall, OperationNext, ServerInterceptor } from '../core/handler/interceptor.js';
export type {
  AgentExecutor,
  ArtifactChunkOptions,
  ArtifactInput,
  MessageInput,
  RequestContext,
  TaskEventSink,
} from '../core/executor.js';
export { MemoryPushConfigStore } from '../core/stores/memory/push-config-store.js';
export { MemoryTaskStore, type MemoryTaskStoreOptions } from '../core/stores/memory/task-store.js';
// What a store or event-bus author implements against.
export type {
  IdempotencyKey,
  IdempotencyRecord,
  IdempotencyRecordFacts,
  InterruptedTaskRef,
  ListPosition,
  SaveChange,
  StoredTask,
  TaskPage,
  TaskQuery,
  TaskScope,
  TaskStore,
} from '../core/stores/task-store.js';
export { TaskVersionConflictError } from '../core/stores/task-store.js';
export { openStores, isStoreSpec } from '../core/stores/open.js';
export type { OpenedStores, OpenStoresOptions, StoreSpec } from '../core/stores/open.js';
// The SQL stores, also at `a2a-kit/sqlite` and `a2a-kit/postgres`: their drivers load on first
// use (core/node-modules.ts), so these re-exports keep this entry loadable on workerd.
export { SqliteDatabase } from '../core/stores/sqlite/database.js';
export type { SqliteOptions } from '../core/stores/sqlite/database.js';
export { SqliteTaskStore } from '../core/stores/sqlite/task-store.js';
export { SqlitePushConfigStore } from '../core/stores/sqlite/push-config-store.js';
export { SqlitePushOutbox } from '../core/stores/sqlite/push-outbox.js';
export { PostgresDatabase } from '../core/stores/postgres/database.js';
export type { PostgresOptions } from '../core/stores/postgres/database.js';
export { PostgresTaskStore } from '../core/stores/postgres/task-store.js';
export { PostgresPushConfigStore } from '../core/stores/postgres/push-config-store.js';
export { PostgresPushOutbox } from '../core/stores/postgres/push-outbox.js';
export type { SqlPushOutboxOptions } from '../core/stores/sql/push-outbox-rows.js';
export { PostgresEventBus } from '../core/event-bus/postgres.js';
export { SchemaTooNewError, StoreOpenError } from '../core/stores/sql/shared.js';
export type { RecoveryOptions } from '../core/recovery.js';
export type { RetentionOptions, RetentionRun } from '../core/retention.js';
// A2A 1.1 draft support (issue 31): the `generation` option and the names it negotiates with.
export {
  DEFAULT_EVENT_LOG_PER_TASK,
  DEFAULT_LONG_POLL_MAX_MS,
  DEFAULT_LONG_POLL_WAITERS_PER_PRINCIPAL,
  DRAFT_PROTOCOL_VERSION,
  GENERATION_EXTENSION,
  type GenerationOptions,
} from '../core/generation.js';
export { TaskTooLargeError } from '../core/task-size.js';
export type { PushConfigPage, PushConfigStore, StoredPushConfig } from '../core/stores/push-config-store.js';
export type { EventBus, TaskEvent, TaskEventListener, TaskTopic } from '../core/event-bus/event-bus.js';
// Push delivery (issue 12).
export type { PushOptions } from './push/hosting.js';
export type {
  PushAttempt,
  PushChangeWriter,
  PushDelivery,
  PushDeliveryQuery,
  PushDeliveryState,
  PushOutbox,
  PushSettlement,
} from '../core/push/outbox.js';
export { MemoryPushOutbox, type MemoryPushOutboxOptions } from '../core/push/memory-outbox.js';
export { RetryPolicy, type RetryOptions as PushRetryOptions } from '../core/push/retry-policy.js';
export {
  WebhookAddressError,
  refusedAddressReason,
  type AddressPolicy,
  type HostResolver,
} from './push/address-guard.js';
export {
  NotificationSigner,
  PUSH_JWKS_PATH,
  PUSH_SIGNING_EXTENSION,
  PUSH_SIGNATURE_HEADER,
  PUSH_ID_HEADER,
  type PushSigningKey,
} from '../core/push/notification-signing.js';
export { PUSH_TOKEN_HEADER } from './push/delivery-worker.js';
export type { WebhookTls } from './push/webhook-request.js';
export { MAX_PUSH_TOKEN_LENGTH, MAX_PUSH_CREDENTIALS_LENGTH } from './push/config-check.js';
export { InProcessEventBus } from '../core/event-bus/in-process.js';
export { JsonRpcBinding } from '../bindings/jsonrpc/server.js';
export { RestBinding } from '../bindings/rest/server.js';
export * from '../errors/index.js';
export {
  HeaderMap,
  createAuthRequest,
  authRequestFromNode,
  authRequestFromFetch,
  authRequestFromGrpc,
  peerCertificateOf,
  peerCertificateFromNode,
  parseCookies,
  AuthenticationFailedError,
  InsufficientScopeError,
  authFailureError,
  createApiKeyAuthenticator,
  createBasicAuthenticator,
  staticBasicCredentials,
  createBearerAuthenticator,
  DEFAULT_JWT_ALGORITHMS,
  createOpenIdConnectAuthenticator,
  createOAuth2Authenticator,
  createMutualTlsAuthenticator,
  createSecurityGate,
  satisfiesRequirements,
  authorizeSkill,
  holdsTenant,
  tenantGuard,
  securityHeadersFor,
  constantTimeEqual,
  readTlsConfig,
  httpsServerOptions,
} from './auth/index.js';
export type {
  AuthRequest,
  AuthRequestInit,
  Authenticate,
  GrpcCallView,
  HeaderInit,
  PeerCertificate,
  AuthPrincipal,
  AuthFailure,
  AuthFailureKind,
  AuthOutcome,
  Authenticator,
  ApiKeyAuthenticatorOptions,
  ApiKeyLocation,
  BasicAuthenticatorOptions,
  BasicVerify,
  BearerAuthenticatorOptions,
  JwtKeySource,
  JwtValidationOptions,
  OAuthAuthenticator,
  OpenIdConnectAuthenticatorOptions,
  OAuth2AuthenticatorOptions,
  MutualTlsAuthenticatorOptions,
  SecurityGate,
  SecurityGateOptions,
  PrincipalIdMapping,
  FailedAuthOptions,
  TlsConfig,
} from './auth/index.js';
export { cardSecurity, checkCardSecurity, withCardSecurity } from './card/security.js';
export type { CardSecurity } from './card/security.js';
export { signAgentCard } from './card/sign.js';
export type { CardSigningAlgorithm, CardSigningKey, SignAgentCardOptions } from './card/sign.js';
export {
  RateLimiter,
  ConcurrencyLimiter,
  ConnectionLimiter,
  principalKey,
  httpConnectionLimits,
  httpServerTimeouts,
} from './limits/index.js';
export type {
  RateLimitOptions,
  RateDecision,
  ConcurrencyLimitOptions,
  ConnectionLimitOptions,
  HttpTimeoutOptions,
} from './limits/index.js';
// Observability (issue 15): logs, traces, metrics.
export {
  INSTRUMENTATION_SCOPE,
  RPC_SERVICE,
  createLogger,
  formatPretty,
  loggingInterceptor,
  metricsInterceptor,
  observeEventBus,
  observeExecutor,
  pushInstruments,
  pushLogger,
  redactValue,
  scrubText,
  serverInstruments,
  traceTaskStore,
  tracingInterceptor,
} from './observability/index.js';
export type {
  Logger,
  LoggerOptions,
  PushDeliveryOutcome,
  PushInstruments,
  PushLogger,
  ServerInstruments,
} from './observability/index.js';
