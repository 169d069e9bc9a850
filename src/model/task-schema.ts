/** The proto's content, task, event and push-config messages as TypeBox schemas (see schema.ts). */
import { Type, type Static } from '@sinclair/typebox';
import {
  Bytes,
  Id,
  Int64,
  OneOf,
  OptId,
  OptStr,
  RoleSchema,
  StrList,
  Struct,
  TaskStateSchema,
  Timestamp,
} from './schema-kit.js';

// ---- content -------------------------------------------------------------------------

/** A piece of content: exactly one of `text`, `raw` (base64), `url`, `data` (any JSON). */
export const Part = OneOf(
  { text: Type.String(), raw: Bytes(), url: Type.String({ minLength: 1 }), data: Type.Unknown() },
  { metadata: Type.Optional(Struct()), filename: OptStr(), mediaType: OptStr() },
  { $id: 'Part' },
);
export type Part = Static<typeof Part>;

/** One turn of communication between a client and an agent. */
export const Message = Type.Object(
  {
    messageId: Id(),
    contextId: OptId(),
    taskId: OptId(),
    role: RoleSchema,
    parts: Type.Array(Part, { minItems: 1 }),
    metadata: Type.Optional(Struct()),
    extensions: StrList(),
    referenceTaskIds: StrList(),
  },
  { $id: 'Message' },
);
export type Message = Static<typeof Message>;

/** An output of a task. */
export const Artifact = Type.Object(
  {
    artifactId: Id(),
    name: OptStr(),
    description: OptStr(),
    parts: Type.Array(Part, { minItems: 1 }),
    metadata: Type.Optional(Struct()),
    extensions: StrList(),
  },
  { $id: 'Artifact' },
);
export type Artifact = Static<typeof Artifact>;

// ---- tasks and events ----------------------------------------------------------------

/** A task's state, with the message that explains it and when it was set. */
export const TaskStatus = Type.Object(
  { state: TaskStateSchema, message: Type.Optional(Message), timestamp: Type.Optional(Timestamp()) },
  { $id: 'TaskStatus' },
);
export type TaskStatus = Static<typeof TaskStatus>;

/** A stateful unit of work. */
export const Task = Type.Object(
  {
    id: Id(),
    contextId: OptId(),
    status: TaskStatus,
    artifacts: Type.Optional(Type.Array(Artifact)),
    history: Type.Optional(Type.Array(Message)),
    metadata: Type.Optional(Struct()),
    /** A2A 1.1 draft: the task's generation (GEN-2); only sent to a call that opted in. */
    generation: Type.Optional(Int64()),
  },
  { $id: 'Task' },
);
export type Task = Static<typeof Task>;

/** A change of a task's status, as streamed. */
export const TaskStatusUpdateEvent = Type.Object(
  {
    taskId: Id(),
    contextId: Id(),
    status: TaskStatus,
    metadata: Type.Optional(Struct()),
    /** A2A 1.1 draft: the task's generation after this change (GEN-2). */
    generation: Type.Optional(Int64()),
  },
  { $id: 'TaskStatusUpdateEvent' },
);
export type TaskStatusUpdateEvent = Static<typeof TaskStatusUpdateEvent>;

/** A new or extended artifact, as streamed. */
export const TaskArtifactUpdateEvent = Type.Object(
  {
    taskId: Id(),
    contextId: Id(),
    artifact: Artifact,
    append: Type.Optional(Type.Boolean()),
    lastChunk: Type.Optional(Type.Boolean()),
    metadata: Type.Optional(Struct()),
    /** A2A 1.1 draft: the task's generation after this change (GEN-2). */
    generation: Type.Optional(Int64()),
  },
  { $id: 'TaskArtifactUpdateEvent' },
);
export type TaskArtifactUpdateEvent = Static<typeof TaskArtifactUpdateEvent>;

/** One event of a stream: exactly one of `task`, `message`, `statusUpdate`, `artifactUpdate`. */
export const StreamResponse = OneOf(
  {
    task: Task,
    message: Message,
    statusUpdate: TaskStatusUpdateEvent,
    artifactUpdate: TaskArtifactUpdateEvent,
  },
  {},
  { $id: 'StreamResponse' },
);
export type StreamResponse = Static<typeof StreamResponse>;

// ---- push notifications --------------------------------------------------------------

/** Credentials the agent sends to a webhook: `Authorization: <scheme> <credentials>`. */
export const AuthenticationInfo = Type.Object(
  { scheme: Type.String({ minLength: 1 }), credentials: OptStr() },
  { $id: 'AuthenticationInfo' },
);
export type AuthenticationInfo = Static<typeof AuthenticationInfo>;

/** A webhook registered for a task's updates. */
export const TaskPushNotificationConfig = Type.Object(
  {
    tenant: OptStr(),
    id: OptId(),
    taskId: OptId(),
    url: Type.String({ minLength: 1, maxLength: 2048 }),
    token: OptStr(),
    authentication: Type.Optional(AuthenticationInfo),
  },
  { $id: 'TaskPushNotificationConfig' },
);
export type TaskPushNotificationConfig = Static<typeof TaskPushNotificationConfig>;
