/**
 * A2A v0.3 wire types, JSON-RPC flavour (the v0.3.0 `types.ts` shapes, SRV-COMPAT-1..7). Only
 * the compatibility layer uses them: everything else speaks the v1.0 model.
 */

/** v0.3 task states: lowercase, kebab-case. */
export type V03TaskState =
  | 'submitted'
  | 'working'
  | 'input-required'
  | 'completed'
  | 'canceled'
  | 'failed'
  | 'rejected'
  | 'auth-required'
  | 'unknown';

/** v0.3 message roles. */
export type V03Role = 'user' | 'agent';

type Metadata = Record<string, unknown>;

export interface V03TextPart {
  kind: 'text';
  text: string;
  metadata?: Metadata;
}

/** A file by reference (`uri`) or inline (`bytes`, base64). */
export interface V03FileContent {
  uri?: string;
  bytes?: string;
  mimeType?: string;
  name?: string;
}

export interface V03FilePart {
  kind: 'file';
  file: V03FileContent;
  metadata?: Metadata;
}

/** v0.3 data parts hold an object only (a v1.0 non-object value is wrapped, SRV-COMPAT-5). */
export interface V03DataPart {
  kind: 'data';
  data: Record<string, unknown>;
  metadata?: Metadata;
}

export type V03Part = V03TextPart | V03FilePart | V03DataPart;

export interface V03Message {
  kind: 'message';
  messageId: string;
  role: V03Role;
  parts: V03Part[];
  contextId?: string;
  taskId?: string;
  metadata?: Metadata;
  extensions?: string[];
  referenceTaskIds?: string[];
}

export interface V03TaskStatus {
  state: V03TaskState;
  message?: V03Message;
  timestamp?: string;
}

export interface V03Artifact {
  artifactId: string;
  name?: string;
  description?: string;
  parts: V03Part[];
  metadata?: Metadata;
  extensions?: string[];
}

export interface V03Task {
  kind: 'task';
  id: string;
  contextId: string;
  status: V03TaskStatus;
  artifacts?: V03Artifact[];
  history?: V03Message[];
  metadata?: Metadata;
}

export interface V03TaskStatusUpdateEvent {
  kind: 'status-update';
  taskId: string;
  contextId: string;
  status: V03TaskStatus;
  /** True on the last event of the stream (v1.0 dropped the field). */
  final: boolean;
  metadata?: Metadata;
}

export interface V03TaskArtifactUpdateEvent {
  kind: 'artifact-update';
  taskId: string;
  contextId: string;
  artifact: V03Artifact;
  append?: boolean;
  lastChunk?: boolean;
  metadata?: Metadata;
}

/** What `message/send` returns. */
export type V03SendResult = V03Task | V03Message;

/** One event of `message/stream` or `tasks/resubscribe`. */
export type V03StreamEvent = V03Task | V03Message | V03TaskStatusUpdateEvent | V03TaskArtifactUpdateEvent;

export interface V03AuthenticationInfo {
  schemes: string[];
  credentials?: string;
}

export interface V03PushNotificationConfig {
  id?: string;
  url: string;
  token?: string;
  authentication?: V03AuthenticationInfo;
}

/** The nested v0.3 shape of a task's push config (v1.0 flattened it). */
export interface V03TaskPushNotificationConfig {
  taskId: string;
  pushNotificationConfig: V03PushNotificationConfig;
}

export interface V03MessageSendConfiguration {
  acceptedOutputModes?: string[];
  historyLength?: number;
  pushNotificationConfig?: V03PushNotificationConfig;
  /** v0.3: wait for a terminal or interrupted state. v1.0 says `returnImmediately = !blocking`. */
  blocking?: boolean;
}

export interface V03MessageSendParams {
  message: V03Message;
  configuration?: V03MessageSendConfiguration;
  metadata?: Metadata;
}

export interface V03TaskQueryParams {
  id: string;
  historyLength?: number;
  metadata?: Metadata;
}

export interface V03TaskIdParams {
  id: string;
  metadata?: Metadata;
}

/** get and delete: the task id in `id`, the config id in `pushNotificationConfigId`. */
export interface V03PushConfigParams {
  id: string;
  pushNotificationConfigId?: string;
  metadata?: Metadata;
}

/** A JSON-RPC error object as v0.3 sends it: `data` is free-form. */
export interface V03JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

export interface V03AgentInterface {
  url: string;
  transport: string;
}

/** v0.3 security schemes: a `type` discriminator (the v1.0 card uses oneof member names). */
export type V03SecurityScheme =
  | { type: 'apiKey'; in: string; name: string; description?: string }
  | { type: 'http'; scheme: string; bearerFormat?: string; description?: string }
  | {
      type: 'oauth2';
      flows: Record<string, unknown>;
      oauth2MetadataUrl?: string;
      description?: string;
    }
  | { type: 'openIdConnect'; openIdConnectUrl: string; description?: string }
  | { type: 'mutualTLS'; description?: string };

export interface V03AgentSkill {
  id: string;
  name: string;
  description: string;
  tags: string[];
  examples?: string[];
  inputModes?: string[];
  outputModes?: string[];
  security?: Record<string, string[]>[];
}

export interface V03AgentCard {
  protocolVersion: string;
  name: string;
  description: string;
  url: string;
  preferredTransport?: string;
  additionalInterfaces?: V03AgentInterface[];
  provider?: { organization: string; url: string };
  version: string;
  documentationUrl?: string;
  iconUrl?: string;
  capabilities: {
    streaming?: boolean;
    pushNotifications?: boolean;
    stateTransitionHistory?: boolean;
    extensions?: { uri: string; description?: string; required?: boolean; params?: Metadata }[];
  };
  securitySchemes?: Record<string, V03SecurityScheme>;
  security?: Record<string, string[]>[];
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skills: V03AgentSkill[];
  supportsAuthenticatedExtendedCard?: boolean;
  signatures?: { protected: string; signature: string; header?: Metadata }[];
}

/** The version string v0.3 cards carry. */
export const V03_PROTOCOL_VERSION = '0.3.0';
