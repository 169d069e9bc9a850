/**
 * The eleven A2A operations in one table: method names (identical on JSON-RPC and gRPC),
 * request and response schemas, streaming, retry safety and the card capability each needs,
 * so every binding validates the same way and the client's wrappers derive from one list.
 */
import type { TSchema } from '@sinclair/typebox';
import {
  AgentCard,
  CancelTaskRequest,
  Empty,
  DeleteTaskPushNotificationConfigRequest,
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
} from './schema.js';

/** An A2A v1.0 method name. */
export type A2AMethod =
  | 'SendMessage'
  | 'SendStreamingMessage'
  | 'GetTask'
  | 'ListTasks'
  | 'CancelTask'
  | 'SubscribeToTask'
  | 'CreateTaskPushNotificationConfig'
  | 'GetTaskPushNotificationConfig'
  | 'ListTaskPushNotificationConfigs'
  | 'DeleteTaskPushNotificationConfig'
  | 'GetExtendedAgentCard';

/** The card capability an operation needs (`capabilities.<flag>` true), if any. */
export type OperationCapability = 'streaming' | 'pushNotifications' | 'extendedAgentCard';

/**
 * Whether a client may send an operation again after a failure that may have reached the
 * server: `true` when a repeat does no harm (reads, cancel, SendMessage with its unchanged
 * messageId), `false` when it may (a stream that began may have delivered its message),
 * `'with-id'` when only a request carrying a client-chosen `id` is safe (without one, a
 * repeat creates a second push config).
 */
export type RetrySafety = boolean | 'with-id';

/** Facts about one operation. */
export interface OperationInfo {
  readonly method: A2AMethod;
  /** Schema of the request message. */
  readonly request: TSchema;
  /** Schema of the response message; of each event for the streaming operations. */
  readonly response: TSchema;
  /** True for the two server-streaming operations. */
  readonly streaming: boolean;
  /** Whether repeating the call is harmless (see {@link RetrySafety}). */
  readonly safeToRetry: RetrySafety;
  /** The card capability the operation needs; undefined when it needs none. */
  readonly capability: OperationCapability | undefined;
}

const op = (
  method: A2AMethod,
  request: TSchema,
  response: TSchema,
  streaming: boolean,
  safeToRetry: RetrySafety,
  capability?: OperationCapability,
): OperationInfo => ({ method, request, response, streaming, safeToRetry, capability });

/** Every operation by method name: the one table bindings, handler and client derive from. */
export const OPERATIONS: Readonly<Record<A2AMethod, OperationInfo>> = {
  SendMessage: op('SendMessage', SendMessageRequest, SendMessageResponse, false, true),
  SendStreamingMessage: op(
    'SendStreamingMessage',
    SendMessageRequest,
    StreamResponse,
    true,
    false,
    'streaming',
  ),
  GetTask: op('GetTask', GetTaskRequest, Task, false, true),
  ListTasks: op('ListTasks', ListTasksRequest, ListTasksResponse, false, true),
  CancelTask: op('CancelTask', CancelTaskRequest, Task, false, true),
  SubscribeToTask: op('SubscribeToTask', SubscribeToTaskRequest, StreamResponse, true, true, 'streaming'),
  CreateTaskPushNotificationConfig: op(
    'CreateTaskPushNotificationConfig',
    TaskPushNotificationConfig,
    TaskPushNotificationConfig,
    false,
    'with-id',
    'pushNotifications',
  ),
  GetTaskPushNotificationConfig: op(
    'GetTaskPushNotificationConfig',
    GetTaskPushNotificationConfigRequest,
    TaskPushNotificationConfig,
    false,
    true,
    'pushNotifications',
  ),
  ListTaskPushNotificationConfigs: op(
    'ListTaskPushNotificationConfigs',
    ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse,
    false,
    true,
    'pushNotifications',
  ),
  DeleteTaskPushNotificationConfig: op(
    'DeleteTaskPushNotificationConfig',
    DeleteTaskPushNotificationConfigRequest,
    Empty,
    false,
    true,
    'pushNotifications',
  ),
  GetExtendedAgentCard: op(
    'GetExtendedAgentCard',
    GetExtendedAgentCardRequest,
    AgentCard,
    false,
    true,
    'extendedAgentCard',
  ),
};

/** All eleven method names, in the order of the table. */
export const A2A_METHODS = Object.keys(OPERATIONS) as readonly A2AMethod[];

/** True when repeating this request is harmless (the table's `safeToRetry` applied to it). */
export function isSafeToRetry(method: A2AMethod, request: unknown): boolean {
  const safety = OPERATIONS[method].safeToRetry;
  if (safety !== 'with-id') return safety;
  const id = (request as { id?: unknown } | null)?.id;
  return typeof id === 'string' && id !== '';
}

/** True when `name` is exactly one of the eleven v1.0 method names (case-sensitive, N3). */
export function isA2AMethod(name: unknown): name is A2AMethod {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(OPERATIONS, name);
}

/** The protocol versions this library speaks (Major.Minor). */
export const PROTOCOL_VERSION = '1.0';
