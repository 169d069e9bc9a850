/** `a2a-kit/client`: discover A2A agents and talk to them over any binding. */
export {
  A2AClient,
  type ConnectedA2AClient,
  backoff,
  isRetryable,
  isTransportFailure,
  isUndelivered,
  statusOf,
  toStreamEvent,
  type A2AClientOptions,
  type FollowOptions,
  type RetryOptions,
  type SendInput,
  type SendResult,
  type StreamEvent,
  type WaitOptions,
} from './client.js';
export {
  applyInterceptors,
  interceptTransport,
  isCallOf,
  isInterceptedTransport,
  type InterceptedTransport,
  type ClientCall,
  type ClientInterceptor,
  type ClientNext,
} from './interceptor.js';
export { grpcCallDefaults, tenantInterceptor } from './interface-interceptors.js';
export { inMemoryFetch, type FetchHandler } from './in-memory.js';
export {
  AgentCardResolver,
  AGENT_CARD_PATH,
  LEGACY_AGENT_CARD_PATH,
  cardUrlOf,
  type CardResolverOptions,
  type ResolvedCard,
} from './card-resolver.js';
export { parseAgentCard } from '../bindings/card-parse.js';
export {
  ALL_BINDINGS,
  bindingName,
  createTransport,
  selectInterface,
  usableInterfaces,
  type BindingName,
} from './binding-selection.js';
export {
  apiKeyAuth,
  bearerAuth,
  customAuth,
  oauth2ClientCredentials,
  type ApiKeyOptions,
  type AuthContext,
  type AuthHandler,
  type ClientCredentialsOptions,
  type RequestCredentials,
} from './auth.js';
export { credentialOrigin } from './credential-scope.js';
export { ArtifactAssembler, textOf } from './artifacts.js';
export {
  createPushHandler,
  createPushReceiver,
  type PushHttpReply,
  type PushHttpRequest,
  type PushNotificationInfo,
  type PushReceiverOptions,
} from './push-receiver.js';
export {
  createPushSignatureVerifier,
  pushJwksUrlOf,
  pushJwksOnAgentOrigin,
  agentOriginsOf,
  PushSignatureError,
  type VerifiedNotification,
  PUSH_SIGNING_EXTENSION_URI,
  type PushSignatureOptions,
  type PushSignatureVerifier,
} from './push-signature.js';
export {
  A2AClientError,
  A2ADeadlineError,
  A2AInterfacesUnreachableError,
  A2AInvalidResponseError,
  A2ANoCompatibleInterfaceError,
  A2ATimeoutError,
  A2ATransportError,
  A2AUntrustedInterfaceError,
  type InterfaceFailure,
  type InvalidResponseReason,
} from '../errors/client-errors.js';
export type {
  CallOptions,
  OperationResponses,
  RequestOf,
  ResponseOf,
  Transport,
} from '../bindings/transport.js';
export { JsonRpcTransport, type JsonRpcTransportOptions } from '../bindings/jsonrpc/client.js';
export { RestTransport, type RestTransportOptions } from '../bindings/rest/client.js';
export type { HttpTransportOptions } from '../bindings/http/client-http.js';
export {
  verifyAgentCard,
  cardSignatureVerifier,
  verifiedCardJson,
  AgentCardSignatureError,
  type VerifiedCardJson,
  DEFAULT_CARD_ALGORITHMS,
  type VerifyAgentCardOptions,
  type CardVerification,
  type CardVerificationFailure,
} from './card-signature.js';
export { injectTraceContext } from './tracing.js'; // observability (issue 15)
// A2A 1.1 draft support (issue 31): the extension a client asks for, the draft's version.
export { DRAFT_PROTOCOL_VERSION, GENERATION_EXTENSION } from '../model/draft.js';
// The protocol errors an agent answers with, so callers can `instanceof` them (TaskNotFoundError, ...).
export {
  A2AError,
  TaskNotFoundError,
  TaskNotCancelableError,
  PushNotificationNotSupportedError,
  UnsupportedOperationError,
  ContentTypeNotSupportedError,
  InvalidAgentResponseError,
  ExtendedAgentCardNotConfiguredError,
  ExtensionSupportRequiredError,
  VersionNotSupportedError,
  TaskGenerationMismatchError,
  ParseError,
  InvalidRequestError,
  MethodNotFoundError,
  InvalidParamsError,
  InternalError,
  UnavailableError,
  UnauthenticatedError,
  PermissionDeniedError,
  ResourceExhaustedError,
  type ErrorDetail,
} from '../errors/a2a-error.js';
