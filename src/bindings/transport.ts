/**
 * The client side of a binding: one typed call per operation. `A2AClient` picks a transport
 * from the card and adds the conveniences (ids, polling, reconnection, auth).
 */
import type {
  AgentCard,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  Empty,
  GetExtendedAgentCardRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  SendMessageRequest,
  SendMessageResponse,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '../model/schema.js';

/** Per-call options every transport honours. */
export interface CallOptions {
  /** Aborts the call (and, for streams, closes the connection). */
  signal?: AbortSignal;
  /** Service parameters and credentials as headers / gRPC metadata (lowercase keys for gRPC). */
  headers?: Record<string, string>;
  /** Give up after this many milliseconds (a gRPC deadline on gRPC). */
  timeoutMs?: number;
  /** Extra query parameters (an API key in the query); HTTP bindings only, ignored by gRPC. */
  query?: Record<string, string>;
}

/** A binding's client. Errors are thrown as typed A2AError subclasses or transport errors. */
export interface Transport {
  /** `JSONRPC`, `HTTP+JSON` or `GRPC`. */
  readonly binding: string;
  sendMessage(request: SendMessageRequest, options?: CallOptions): Promise<SendMessageResponse>;
  sendStreamingMessage(request: SendMessageRequest, options?: CallOptions): AsyncIterable<StreamResponse>;
  getTask(request: GetTaskRequest, options?: CallOptions): Promise<Task>;
  listTasks(request: ListTasksRequest, options?: CallOptions): Promise<ListTasksResponse>;
  cancelTask(request: CancelTaskRequest, options?: CallOptions): Promise<Task>;
  subscribeToTask(request: SubscribeToTaskRequest, options?: CallOptions): AsyncIterable<StreamResponse>;
  createTaskPushNotificationConfig(
    request: TaskPushNotificationConfig,
    options?: CallOptions,
  ): Promise<TaskPushNotificationConfig>;
  getTaskPushNotificationConfig(
    request: GetTaskPushNotificationConfigRequest,
    options?: CallOptions,
  ): Promise<TaskPushNotificationConfig>;
  listTaskPushNotificationConfigs(
    request: ListTaskPushNotificationConfigsRequest,
    options?: CallOptions,
  ): Promise<ListTaskPushNotificationConfigsResponse>;
  deleteTaskPushNotificationConfig(
    request: DeleteTaskPushNotificationConfigRequest,
    options?: CallOptions,
  ): Promise<Empty>;
  getExtendedAgentCard(request: GetExtendedAgentCardRequest, options?: CallOptions): Promise<AgentCard>;
  /** Releases connections (gRPC channels). */
  close(): Promise<void>;
}
