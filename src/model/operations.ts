/**
 * The eleven A2A operations: their method names (identical on JSON-RPC and gRPC) and the
 * schema of each request, so every binding validates the same way.
 */
import type { TSchema } from '@sinclair/typebox';
import {
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetExtendedAgentCardRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTasksRequest,
  SendMessageRequest,
  SubscribeToTaskRequest,
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

/** Facts about one operation. */
export interface OperationInfo {
  readonly method: A2AMethod;
  /** Schema of the request message. */
  readonly request: TSchema;
  /** True for the two server-streaming operations. */
  readonly streaming: boolean;
}

/** Every operation by method name. */
export const OPERATIONS: Readonly<Record<A2AMethod, OperationInfo>> = {
  SendMessage: { method: 'SendMessage', request: SendMessageRequest, streaming: false },
  SendStreamingMessage: { method: 'SendStreamingMessage', request: SendMessageRequest, streaming: true },
  GetTask: { method: 'GetTask', request: GetTaskRequest, streaming: false },
  ListTasks: { method: 'ListTasks', request: ListTasksRequest, streaming: false },
  CancelTask: { method: 'CancelTask', request: CancelTaskRequest, streaming: false },
  SubscribeToTask: { method: 'SubscribeToTask', request: SubscribeToTaskRequest, streaming: true },
  CreateTaskPushNotificationConfig: {
    method: 'CreateTaskPushNotificationConfig',
    request: TaskPushNotificationConfig,
    streaming: false,
  },
  GetTaskPushNotificationConfig: {
    method: 'GetTaskPushNotificationConfig',
    request: GetTaskPushNotificationConfigRequest,
    streaming: false,
  },
  ListTaskPushNotificationConfigs: {
    method: 'ListTaskPushNotificationConfigs',
    request: ListTaskPushNotificationConfigsRequest,
    streaming: false,
  },
  DeleteTaskPushNotificationConfig: {
    method: 'DeleteTaskPushNotificationConfig',
    request: DeleteTaskPushNotificationConfigRequest,
    streaming: false,
  },
  GetExtendedAgentCard: {
    method: 'GetExtendedAgentCard',
    request: GetExtendedAgentCardRequest,
    streaming: false,
  },
};

/** True when `name` is exactly one of the eleven v1.0 method names (case-sensitive, N3). */
export function isA2AMethod(name: unknown): name is A2AMethod {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(OPERATIONS, name);
}

/** The protocol versions this library speaks (Major.Minor). */
export const PROTOCOL_VERSION = '1.0';
