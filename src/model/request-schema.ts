/** The requests and responses of the eleven operations as TypeBox schemas (see schema.ts). */
import { Type, type Static } from '@sinclair/typebox';
import {
  Id,
  Int32,
  Int64,
  OneOf,
  OptId,
  OptStr,
  StrList,
  Struct,
  TaskStateSchema,
  Timestamp,
} from './schema-kit.js';
import { Message, Task, TaskPushNotificationConfig } from './task-schema.js';

// ---- requests and responses of the eleven operations -------------------------------

/** TypeBox schema of `SendMessageConfiguration`: validates its ProtoJSON form. */
export const SendMessageConfiguration = Type.Object(
  {
    acceptedOutputModes: StrList(),
    taskPushNotificationConfig: Type.Optional(TaskPushNotificationConfig),
    historyLength: Type.Optional(Int32({ minimum: 0 })),
    returnImmediately: Type.Optional(Type.Boolean()),
    /** A2A 1.1 draft: refuse unless the task is at this generation (GEN-4); honoured only when opted in. */
    ifGenerationMatch: Type.Optional(Int64()),
  },
  { $id: 'SendMessageConfiguration' },
);
/** How the server should handle a sent message. */
export type SendMessageConfiguration = Static<typeof SendMessageConfiguration>;

/** TypeBox schema of `SendMessageRequest`: validates its ProtoJSON form. */
export const SendMessageRequest = Type.Object(
  {
    tenant: OptStr(),
    message: Message,
    configuration: Type.Optional(SendMessageConfiguration),
    metadata: Type.Optional(Struct()),
  },
  { $id: 'SendMessageRequest' },
);
/** SendMessage and SendStreamingMessage input. */
export type SendMessageRequest = Static<typeof SendMessageRequest>;

/** SendMessage output: exactly one of `task`, `message`. */
export const SendMessageResponse = OneOf(
  { task: Task, message: Message },
  {},
  { $id: 'SendMessageResponse' },
);
export type SendMessageResponse = Static<typeof SendMessageResponse>;

/** TypeBox schema of `GetTaskRequest`: validates its ProtoJSON form. */
export const GetTaskRequest = Type.Object(
  {
    tenant: OptStr(),
    id: Id(),
    historyLength: Type.Optional(Int32({ minimum: 0 })),
    /** A2A 1.1 draft: hold the call until the task's generation passes this (GEN-3); honoured only when opted in. */
    currentGeneration: Type.Optional(Int64()),
  },
  { $id: 'GetTaskRequest' },
);
/** The GetTask request: the task's id and an optional `historyLength`. */
export type GetTaskRequest = Static<typeof GetTaskRequest>;

/** TypeBox schema of `ListTasksRequest`: validates its ProtoJSON form. */
export const ListTasksRequest = Type.Object(
  {
    tenant: OptStr(),
    contextId: OptId(),
    status: Type.Optional(TaskStateSchema),
    pageSize: Type.Optional(Int32({ minimum: 1, maximum: 100 })),
    pageToken: Type.Optional(Type.String({ maxLength: 1024 })),
    historyLength: Type.Optional(Int32({ minimum: 0 })),
    statusTimestampAfter: Type.Optional(Timestamp()),
    includeArtifacts: Type.Optional(Type.Boolean()),
  },
  { $id: 'ListTasksRequest' },
);
/** The ListTasks request: filters and paging. */
export type ListTasksRequest = Static<typeof ListTasksRequest>;

/** TypeBox schema of `ListTasksResponse`: validates its ProtoJSON form. */
export const ListTasksResponse = Type.Object(
  { tasks: Type.Array(Task), nextPageToken: Type.String(), pageSize: Int32(), totalSize: Int32() },
  { $id: 'ListTasksResponse' },
);
/** One page of tasks, the token of the next page and the total count. */
export type ListTasksResponse = Static<typeof ListTasksResponse>;

/** TypeBox schema of `CancelTaskRequest`: validates its ProtoJSON form. */
export const CancelTaskRequest = Type.Object(
  { tenant: OptStr(), id: Id(), metadata: Type.Optional(Struct()) },
  { $id: 'CancelTaskRequest' },
);
/** The CancelTask request: the task's id. */
export type CancelTaskRequest = Static<typeof CancelTaskRequest>;

/** TypeBox schema of `SubscribeToTaskRequest`: validates its ProtoJSON form. */
export const SubscribeToTaskRequest = Type.Object(
  { tenant: OptStr(), id: Id() },
  { $id: 'SubscribeToTaskRequest' },
);
/** The SubscribeToTask request: the task's id. */
export type SubscribeToTaskRequest = Static<typeof SubscribeToTaskRequest>;

/** TypeBox schema of `GetTaskPushNotificationConfigRequest`: validates its ProtoJSON form. */
export const GetTaskPushNotificationConfigRequest = Type.Object(
  { tenant: OptStr(), taskId: Id(), id: Id() },
  { $id: 'GetTaskPushNotificationConfigRequest' },
);
/** The GetTaskPushNotificationConfig request: the task's and the config's ids. */
export type GetTaskPushNotificationConfigRequest = Static<typeof GetTaskPushNotificationConfigRequest>;

/** TypeBox schema of `DeleteTaskPushNotificationConfigRequest`: validates its ProtoJSON form. */
export const DeleteTaskPushNotificationConfigRequest = Type.Object(
  { tenant: OptStr(), taskId: Id(), id: Id() },
  { $id: 'DeleteTaskPushNotificationConfigRequest' },
);
/** The DeleteTaskPushNotificationConfig request: the task's and the config's ids. */
export type DeleteTaskPushNotificationConfigRequest = Static<typeof DeleteTaskPushNotificationConfigRequest>;

/** TypeBox schema of `ListTaskPushNotificationConfigsRequest`: validates its ProtoJSON form. */
export const ListTaskPushNotificationConfigsRequest = Type.Object(
  {
    tenant: OptStr(),
    taskId: Id(),
    pageSize: Type.Optional(Int32({ minimum: 0, maximum: 100 })),
    pageToken: Type.Optional(Type.String({ maxLength: 1024 })),
  },
  { $id: 'ListTaskPushNotificationConfigsRequest' },
);
/** The ListTaskPushNotificationConfigs request: a task's id and paging. */
export type ListTaskPushNotificationConfigsRequest = Static<typeof ListTaskPushNotificationConfigsRequest>;

/** TypeBox schema of `ListTaskPushNotificationConfigsResponse`: validates its ProtoJSON form. */
export const ListTaskPushNotificationConfigsResponse = Type.Object(
  { configs: Type.Optional(Type.Array(TaskPushNotificationConfig)), nextPageToken: OptStr() },
  { $id: 'ListTaskPushNotificationConfigsResponse' },
);
/** One page of a task's push configs, with the token of the next page. */
export type ListTaskPushNotificationConfigsResponse = Static<typeof ListTaskPushNotificationConfigsResponse>;

/** TypeBox schema of `GetExtendedAgentCardRequest`: validates its ProtoJSON form. */
export const GetExtendedAgentCardRequest = Type.Object(
  { tenant: OptStr() },
  { $id: 'GetExtendedAgentCardRequest' },
);
/** The GetExtendedAgentCard request (a tenant at most). */
export type GetExtendedAgentCardRequest = Static<typeof GetExtendedAgentCardRequest>;

/** `google.protobuf.Empty`. */
export const Empty = Type.Object({}, { $id: 'Empty' });
export type Empty = Static<typeof Empty>;
