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
} from './request-handler.js';
export type { DefaultRequestHandlerOptions, RequestHandler } from './request-handler.js';
export { ANONYMOUS, createCallContext } from './context.js';
export type { Principal, ServerCallContext } from './context.js';
export type {
  AgentExecutor,
  ArtifactChunkOptions,
  ArtifactInput,
  MessageInput,
  RequestContext,
  TaskEventSink,
} from './executor.js';
export { MemoryPushConfigStore, MemoryTaskStore, type MemoryTaskStoreOptions } from './stores/memory.js';
export type { TaskStore } from './stores/task-store.js';
export { TaskTooLargeError } from './task-size.js';
export type { PushConfigStore } from './stores/push-config-store.js';
export type { EventBus } from './event-bus/event-bus.js';
export { InProcessEventBus } from './event-bus/in-process.js';
export { JsonRpcBinding } from '../bindings/jsonrpc/server.js';
export { RestBinding } from '../bindings/rest/server.js';
export { GrpcBinding, DEFAULT_MAX_MESSAGE_BYTES } from '../bindings/grpc/server.js';
export type { GrpcAuthRequest, GrpcBindingOptions } from '../bindings/grpc/server.js';
export * from '../errors/index.js';
