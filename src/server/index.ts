/**
 * `a2a-kit/server`: host an A2A agent. Start with {@link createA2AServer}; write an
 * {@link AgentExecutor}; throw the error classes re-exported here.
 */
export { createA2AServer } from './http.js';
export type { A2AServer, A2AServerOptions, ExtendedCardConfig, ListenInfo, NodeHandler } from './http.js';
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
export { MemoryPushConfigStore, MemoryTaskStore } from './stores/memory.js';
export type { TaskStore } from './stores/task-store.js';
export type { PushConfigStore } from './stores/push-config-store.js';
export { openStores, isStoreSpec } from './stores/open.js';
export type { OpenedStores, OpenStoresOptions, StoreSpec } from './stores/open.js';
export { SqliteDatabase } from './stores/sqlite/database.js';
export type { SqliteOptions } from './stores/sqlite/database.js';
export { SqliteTaskStore } from './stores/sqlite/task-store.js';
export { SqlitePushConfigStore } from './stores/sqlite/push-config-store.js';
export { PostgresDatabase } from './stores/postgres/database.js';
export type { PostgresOptions } from './stores/postgres/database.js';
export { PostgresTaskStore } from './stores/postgres/task-store.js';
export { PostgresPushConfigStore } from './stores/postgres/push-config-store.js';
export { SchemaTooNewError, StoreOpenError } from './stores/sql/shared.js';
export type { EventBus } from './event-bus/event-bus.js';
export { InProcessEventBus } from './event-bus/in-process.js';
export { JsonRpcBinding } from '../bindings/jsonrpc/server.js';
export { RestBinding } from '../bindings/rest/server.js';
export * from '../errors/index.js';
