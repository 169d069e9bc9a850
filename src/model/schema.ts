/**
 * Every message of `proto/lf/a2a/v1/a2a.proto` as a TypeBox schema in its ProtoJSON shape,
 * with the TypeScript type derived from it. REQUIRED fields (the proto's field_behavior)
 * are required here; oneofs admit exactly one member.
 */
import { Type, type Static } from '@sinclair/typebox';
import {
  Bytes,
  Id,
  Int32,
  Int64,
  OneOf,
  OptId,
  RoleSchema,
  Struct,
  TaskStateSchema,
  Timestamp,
} from './schema-kit.js';

const Str = () => Type.String();
const OptStr = () => Type.Optional(Type.String());
const StrList = () => Type.Optional(Type.Array(Type.String()));
const StringMap = () => Type.Record(Type.String(), Type.String());

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

// ---- agent card ----------------------------------------------------------------------

/** TypeBox schema of `AgentInterface`: validates its ProtoJSON form. */
export const AgentInterface = Type.Object(
  {
    url: Type.String({ minLength: 1 }),
    protocolBinding: Type.String({ minLength: 1 }),
    tenant: OptStr(),
    protocolVersion: Type.String({ minLength: 1 }),
  },
  { $id: 'AgentInterface' },
);
/** Where and how the agent is reached: a URL, a binding, a protocol version. */
export type AgentInterface = Static<typeof AgentInterface>;

/** TypeBox schema of `AgentProvider`: validates its ProtoJSON form. */
export const AgentProvider = Type.Object({ url: Str(), organization: Str() }, { $id: 'AgentProvider' });
/** The organization behind an agent. */
export type AgentProvider = Static<typeof AgentProvider>;

/** TypeBox schema of `AgentExtension`: validates its ProtoJSON form. */
export const AgentExtension = Type.Object(
  {
    uri: OptStr(),
    description: OptStr(),
    required: Type.Optional(Type.Boolean()),
    params: Type.Optional(Struct()),
  },
  { $id: 'AgentExtension' },
);
/** A protocol extension the agent supports. */
export type AgentExtension = Static<typeof AgentExtension>;

/** TypeBox schema of `AgentCapabilities`: validates its ProtoJSON form. */
export const AgentCapabilities = Type.Object(
  {
    streaming: Type.Optional(Type.Boolean()),
    pushNotifications: Type.Optional(Type.Boolean()),
    extensions: Type.Optional(Type.Array(AgentExtension)),
    extendedAgentCard: Type.Optional(Type.Boolean()),
  },
  { $id: 'AgentCapabilities' },
);
/** Optional features the agent really offers. */
export type AgentCapabilities = Static<typeof AgentCapabilities>;

/** TypeBox schema of `StringList`: validates its ProtoJSON form. */
export const StringList = Type.Object({ list: StrList() }, { $id: 'StringList' });
/** A list of strings (the proto's wrapper, used by security requirements). */
export type StringList = Static<typeof StringList>;

/** TypeBox schema of `SecurityRequirement`: validates its ProtoJSON form. */
export const SecurityRequirement = Type.Object(
  { schemes: Type.Optional(Type.Record(Type.String(), StringList)) },
  { $id: 'SecurityRequirement' },
);
/** Schemes that must all be satisfied (the array of requirements lists alternatives). */
export type SecurityRequirement = Static<typeof SecurityRequirement>;

/** TypeBox schema of `AgentSkill`: validates its ProtoJSON form. */
export const AgentSkill = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    name: Str(),
    description: Str(),
    tags: Type.Array(Type.String()),
    examples: StrList(),
    inputModes: StrList(),
    outputModes: StrList(),
    securityRequirements: Type.Optional(Type.Array(SecurityRequirement)),
  },
  { $id: 'AgentSkill' },
);
/** Something the agent can do. */
export type AgentSkill = Static<typeof AgentSkill>;

/** TypeBox schema of `AgentCardSignature`: validates its ProtoJSON form. */
export const AgentCardSignature = Type.Object(
  {
    protected: Type.String({ minLength: 1 }),
    signature: Type.String({ minLength: 1 }),
    header: Type.Optional(Struct()),
  },
  { $id: 'AgentCardSignature' },
);
/** A detached JWS over the canonical card (spec 8.4). */
export type AgentCardSignature = Static<typeof AgentCardSignature>;

/** TypeBox schema of `APIKeySecurityScheme`: validates its ProtoJSON form. */
export const APIKeySecurityScheme = Type.Object(
  { description: OptStr(), location: Type.String({ minLength: 1 }), name: Type.String({ minLength: 1 }) },
  { $id: 'APIKeySecurityScheme' },
);
/** An API key security scheme: where the key travels and under which name. */
export type APIKeySecurityScheme = Static<typeof APIKeySecurityScheme>;
/** TypeBox schema of `HTTPAuthSecurityScheme`: validates its ProtoJSON form. */
export const HTTPAuthSecurityScheme = Type.Object(
  { description: OptStr(), scheme: Type.String({ minLength: 1 }), bearerFormat: OptStr() },
  { $id: 'HTTPAuthSecurityScheme' },
);
/** An HTTP authentication security scheme (`Bearer`, `Basic`, ...). */
export type HTTPAuthSecurityScheme = Static<typeof HTTPAuthSecurityScheme>;

/** TypeBox schema of `AuthorizationCodeOAuthFlow`: validates its ProtoJSON form. */
export const AuthorizationCodeOAuthFlow = Type.Object({
  authorizationUrl: Str(),
  tokenUrl: Str(),
  refreshUrl: OptStr(),
  scopes: StringMap(),
  pkceRequired: Type.Optional(Type.Boolean()),
});
/** TypeBox schema of `ClientCredentialsOAuthFlow`: validates its ProtoJSON form. */
export const ClientCredentialsOAuthFlow = Type.Object({
  tokenUrl: Str(),
  refreshUrl: OptStr(),
  scopes: StringMap(),
});
/** TypeBox schema of `ImplicitOAuthFlow`: validates its ProtoJSON form. */
export const ImplicitOAuthFlow = Type.Object({
  authorizationUrl: OptStr(),
  refreshUrl: OptStr(),
  scopes: Type.Optional(StringMap()),
});
/** TypeBox schema of `PasswordOAuthFlow`: validates its ProtoJSON form. */
export const PasswordOAuthFlow = Type.Object({
  tokenUrl: OptStr(),
  refreshUrl: OptStr(),
  scopes: Type.Optional(StringMap()),
});
/** TypeBox schema of `DeviceCodeOAuthFlow`: validates its ProtoJSON form. */
export const DeviceCodeOAuthFlow = Type.Object({
  deviceAuthorizationUrl: Str(),
  tokenUrl: Str(),
  refreshUrl: OptStr(),
  scopes: StringMap(),
});

/** Exactly one OAuth 2.0 flow (`implicit` and `password` are deprecated: read, never emit). */
export const OAuthFlows = OneOf(
  {
    authorizationCode: AuthorizationCodeOAuthFlow,
    clientCredentials: ClientCredentialsOAuthFlow,
    implicit: ImplicitOAuthFlow,
    password: PasswordOAuthFlow,
    deviceCode: DeviceCodeOAuthFlow,
  },
  {},
  { $id: 'OAuthFlows' },
);
export type OAuthFlows = Static<typeof OAuthFlows>;

/** TypeBox schema of `OAuth2SecurityScheme`: validates its ProtoJSON form. */
export const OAuth2SecurityScheme = Type.Object(
  { description: OptStr(), flows: OAuthFlows, oauth2MetadataUrl: OptStr() },
  { $id: 'OAuth2SecurityScheme' },
);
/** An OAuth 2.0 security scheme and its flow. */
export type OAuth2SecurityScheme = Static<typeof OAuth2SecurityScheme>;
/** TypeBox schema of `OpenIdConnectSecurityScheme`: validates its ProtoJSON form. */
export const OpenIdConnectSecurityScheme = Type.Object(
  { description: OptStr(), openIdConnectUrl: Type.String({ minLength: 1 }) },
  { $id: 'OpenIdConnectSecurityScheme' },
);
/** An OpenID Connect security scheme: the URL of its discovery document. */
export type OpenIdConnectSecurityScheme = Static<typeof OpenIdConnectSecurityScheme>;
/** TypeBox schema of `MutualTlsSecurityScheme`: validates its ProtoJSON form. */
export const MutualTlsSecurityScheme = Type.Object(
  { description: OptStr() },
  { $id: 'MutualTlsSecurityScheme' },
);
/** A mutual TLS security scheme: the caller presents a client certificate. */
export type MutualTlsSecurityScheme = Static<typeof MutualTlsSecurityScheme>;

/** One declared authentication scheme: exactly one member. */
export const SecurityScheme = OneOf(
  {
    apiKeySecurityScheme: APIKeySecurityScheme,
    httpAuthSecurityScheme: HTTPAuthSecurityScheme,
    oauth2SecurityScheme: OAuth2SecurityScheme,
    openIdConnectSecurityScheme: OpenIdConnectSecurityScheme,
    mtlsSecurityScheme: MutualTlsSecurityScheme,
  },
  {},
  { $id: 'SecurityScheme' },
);
export type SecurityScheme = Static<typeof SecurityScheme>;

/** An agent's self-description, served at `/.well-known/agent-card.json`. */
export const AgentCard = Type.Object(
  {
    name: Str(),
    description: Str(),
    supportedInterfaces: Type.Array(AgentInterface),
    provider: Type.Optional(AgentProvider),
    version: Str(),
    documentationUrl: OptStr(),
    capabilities: AgentCapabilities,
    securitySchemes: Type.Optional(Type.Record(Type.String(), SecurityScheme)),
    securityRequirements: Type.Optional(Type.Array(SecurityRequirement)),
    defaultInputModes: Type.Array(Type.String()),
    defaultOutputModes: Type.Array(Type.String()),
    skills: Type.Array(AgentSkill),
    signatures: Type.Optional(Type.Array(AgentCardSignature)),
    iconUrl: OptStr(),
  },
  { $id: 'AgentCard' },
);
export type AgentCard = Static<typeof AgentCard>;

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
