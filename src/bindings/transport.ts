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
import type { A2AMethod } from '../model/operations.js';

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
  /** SendMessage: sends a message; answers with the task, or with the agent's direct Message. */
  sendMessage(request: SendMessageRequest, options?: CallOptions): Promise<SendMessageResponse>;
  /** SendStreamingMessage: sends a message and streams what follows (the task, then its updates). */
  sendStreamingMessage(request: SendMessageRequest, options?: CallOptions): AsyncIterable<StreamResponse>;
  /** GetTask: the task as stored, its history cut to `historyLength` when given. */
  getTask(request: GetTaskRequest, options?: CallOptions): Promise<Task>;
  /** ListTasks: one page of the caller's tasks, newest first. */
  listTasks(request: ListTasksRequest, options?: CallOptions): Promise<ListTasksResponse>;
  /** CancelTask: cancels the task and answers with it. */
  cancelTask(request: CancelTaskRequest, options?: CallOptions): Promise<Task>;
  /** SubscribeToTask: streams the task (as it is now) and its updates from then on. */
  subscribeToTask(request: SubscribeToTaskRequest, options?: CallOptions): AsyncIterable<StreamResponse>;
  /** CreateTaskPushNotificationConfig: stores a push config for a task. */
  createTaskPushNotificationConfig(
    request: TaskPushNotificationConfig,
    options?: CallOptions,
  ): Promise<TaskPushNotificationConfig>;
  /** GetTaskPushNotificationConfig: one push config of a task. */
  getTaskPushNotificationConfig(
    request: GetTaskPushNotificationConfigRequest,
    options?: CallOptions,
  ): Promise<TaskPushNotificationConfig>;
  /** ListTaskPushNotificationConfigs: a page of a task's push configs. */
  listTaskPushNotificationConfigs(
    request: ListTaskPushNotificationConfigsRequest,
    options?: CallOptions,
  ): Promise<ListTaskPushNotificationConfigsResponse>;
  /** DeleteTaskPushNotificationConfig: deletes one push config of a task. */
  deleteTaskPushNotificationConfig(
    request: DeleteTaskPushNotificationConfigRequest,
    options?: CallOptions,
  ): Promise<Empty>;
  /** GetExtendedAgentCard: the extended card, for this caller. */
  getExtendedAgentCard(request: GetExtendedAgentCardRequest, options?: CallOptions): Promise<AgentCard>;
  /** Releases connections (gRPC channels). */
  close(): Promise<void>;
}

/** The transport method of an operation: its v1.0 name with a lower-case first letter. */
export type TransportMethodOf<M extends A2AMethod> = Uncapitalize<M>;
/** The request type of operation `M`. */
export type RequestOf<M extends A2AMethod> = Parameters<Transport[TransportMethodOf<M>]>[0];
/**
 * The response of each operation: the resolved value, or for the two streaming operations the
 * iterable of events (checked against {@link Transport} below).
 */
export interface OperationResponses {
  SendMessage: SendMessageResponse;
  SendStreamingMessage: AsyncIterable<StreamResponse>;
  GetTask: Task;
  ListTasks: ListTasksResponse;
  CancelTask: Task;
  SubscribeToTask: AsyncIterable<StreamResponse>;
  CreateTaskPushNotificationConfig: TaskPushNotificationConfig;
  GetTaskPushNotificationConfig: TaskPushNotificationConfig;
  ListTaskPushNotificationConfigs: ListTaskPushNotificationConfigsResponse;
  DeleteTaskPushNotificationConfig: Empty;
  GetExtendedAgentCard: AgentCard;
}
/** The response of operation `M` (see {@link OperationResponses}). */
export type ResponseOf<M extends A2AMethod> = OperationResponses[M];
/** The reply of operation `M` on a transport: a promise of its response, or its event iterable. */
export type TransportReplyOf<M extends A2AMethod> = ReturnType<Transport[TransportMethodOf<M>]>;
// Compile-time check that the map agrees with the Transport interface.
type Agrees = {
  [M in A2AMethod]: Awaited<TransportReplyOf<M>> extends ResponseOf<M>
    ? ResponseOf<M> extends Awaited<TransportReplyOf<M>>
      ? true
      : M
    : M;
}[A2AMethod];
const agrees: Agrees = true;
void agrees;

/** `SendMessage` → `sendMessage`. */
export function transportMethodOf<M extends A2AMethod>(method: M): TransportMethodOf<M> {
  return (method.charAt(0).toLowerCase() + method.slice(1)) as TransportMethodOf<M>;
}

/** Calls operation `method` on `transport`; streams are returned as their (lazy) iterable. */
export function callTransport<M extends A2AMethod>(
  transport: Transport,
  method: M,
  request: RequestOf<M>,
  options?: CallOptions,
): TransportReplyOf<M> {
  const fn = transport[transportMethodOf(method)] as (r: unknown, o?: CallOptions) => TransportReplyOf<M>;
  return fn.call(transport, request, options);
}
