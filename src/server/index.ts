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
  ServerLimits,
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
export {
  DefaultRequestHandler,
  InterruptedWaitExpiredReason,
  TaskCanceledReason,
} from '../core/handler/request-handler.js';
export type { DefaultRequestHandlerOptions, RequestHandler } from '../core/handler/request-handler.js';
export { ANONYMOUS, createCallContext } from '../core/context.js';
export type { Principal, ServerCallContext } from '../core/context.js';
export type {
  AgentExecutor,
  ArtifactChunkOptions,
  ArtifactInput,
  MessageInput,
  RequestContext,
  TaskEventSink,
} from '../core/executor.js';
export {
  MemoryPushConfigStore,
  MemoryTaskStore,
  type MemoryTaskStoreOptions,
} from '../core/stores/memory.js';
export type { TaskStore } from '../core/stores/task-store.js';
export { TaskTooLargeError } from '../core/task-size.js';
export type { PushConfigStore } from '../core/stores/push-config-store.js';
export type { EventBus } from '../core/event-bus/event-bus.js';
export { InProcessEventBus } from '../core/event-bus/in-process.js';
export { JsonRpcBinding } from '../bindings/jsonrpc/server.js';
export { RestBinding } from '../bindings/rest/server.js';
export { GrpcBinding, DEFAULT_MAX_MESSAGE_BYTES } from '../bindings/grpc/server.js';
export type { GrpcAuthRequest, GrpcBindingOptions } from '../bindings/grpc/server.js';
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
  securityHeadersFor,
  constantTimeEqual,
  readTlsConfig,
  httpsServerOptions,
  grpcServerCredentials,
} from './auth/index.js';
export type {
  AuthRequest,
  AuthRequestInit,
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
  TlsConfig,
} from './auth/index.js';
export { cardSecurity, checkCardSecurity, withCardSecurity } from './card/security.js';
export type { CardSecurity } from './card/security.js';
export { signAgentCard } from './card/sign.js';
export type { CardSigningAlgorithm, CardSigningKey, SignAgentCardOptions } from './card/sign.js';
export { RateLimiter, ConcurrencyLimiter, principalKey, httpServerTimeouts } from './limits/index.js';
export type {
  RateLimitOptions,
  RateDecision,
  ConcurrencyLimitOptions,
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
