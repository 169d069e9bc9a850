/**
 * The v0.3 REST (and gRPC) wire form: the ProtoJSON of the v0.3 proto (package `a2a.v1`), which
 * differs from v0.3 JSON-RPC and from v1.0 (SRV-COMPAT-5): `Message.content` instead of `parts`,
 * parts `{text} | {file:{fileWithUri|fileWithBytes, mimeType}} | {data:{data}}`, the state
 * `TASK_STATE_CANCELLED`, `configuration.pushNotification`, resource names `tasks/{id}` and
 * `tasks/{id}/pushNotificationConfigs/{configId}`. Readers accept snake_case names too, as the
 * v0.3 SDKs wrote them.
 */
import { TaskState } from '../../model/enums.js';
import type {
  AgentCard,
  Artifact,
  Message,
  Part,
  SecurityRequirement,
  StreamResponse,
  Task,
  TaskPushNotificationConfig,
  TaskStatus,
} from '../../model/schema.js';
import { legacyCardFields } from './card.js';
import { invalidV03, isJson, type Json } from './content.js';
import { pushConfigFromV03, readBlocking } from './requests.js';

/** `obj[camel]`, else `obj[snake]` (the v0.3 SDKs wrote both). */
function field(obj: Json, camel: string, snake?: string): unknown {
  const v = obj[camel];
  if (v !== undefined && v !== null) return v;
  return snake === undefined ? undefined : obj[snake];
}

const V03_CANCELLED = 'TASK_STATE_CANCELLED';

/** v1.0 state → v0.3 proto enum name (CANCELLED with two Ls). */
export function protoStateToV03(state: TaskState): string {
  return state === TaskState.CANCELED ? V03_CANCELLED : state;
}

// ---- v1.0 → v0.3 ProtoJSON ---------------------------------------------------------------

function partToProto(part: Part): Json {
  if (part.text !== undefined) return { text: part.text };
  if (part.url !== undefined || part.raw !== undefined) {
    const file: Json = part.url !== undefined ? { fileWithUri: part.url } : { fileWithBytes: part.raw };
    if (part.mediaType !== undefined) file.mimeType = part.mediaType;
    return { file };
  }
  // v0.3 DataPart holds a Struct: a non-object value is wrapped (the v0.3 proto Part has no metadata).
  return { data: { data: isJson(part.data) ? part.data : { value: part.data } } };
}

export function messageToProto(message: Message): Json {
  return {
    messageId: message.messageId,
    ...(message.contextId ? { contextId: message.contextId } : {}),
    ...(message.taskId ? { taskId: message.taskId } : {}),
    role: message.role,
    content: message.parts.map(partToProto),
    ...(message.metadata !== undefined ? { metadata: message.metadata } : {}),
    ...(message.extensions?.length ? { extensions: message.extensions } : {}),
  };
}

function artifactToProto(artifact: Artifact): Json {
  return {
    artifactId: artifact.artifactId,
    ...(artifact.name !== undefined ? { name: artifact.name } : {}),
    ...(artifact.description !== undefined ? { description: artifact.description } : {}),
    parts: artifact.parts.map(partToProto),
    ...(artifact.metadata !== undefined ? { metadata: artifact.metadata } : {}),
    ...(artifact.extensions?.length ? { extensions: artifact.extensions } : {}),
  };
}

function statusToProto(status: TaskStatus): Json {
  return {
    state: protoStateToV03(status.state),
    ...(status.message ? { message: messageToProto(status.message) } : {}),
    ...(status.timestamp !== undefined ? { timestamp: status.timestamp } : {}),
  };
}

export function taskToProto(task: Task): Json {
  return {
    id: task.id,
    contextId: task.contextId ?? '',
    status: statusToProto(task.status),
    ...(task.artifacts?.length ? { artifacts: task.artifacts.map(artifactToProto) } : {}),
    ...(task.history?.length ? { history: task.history.map(messageToProto) } : {}),
    ...(task.metadata !== undefined ? { metadata: task.metadata } : {}),
  };
}

/** A v1.0 stream event as a v0.3 `StreamResponse`, `final` on status updates. */
export function streamEventToProto(event: StreamResponse, final: boolean): Json {
  if (event.task) return { task: taskToProto(event.task) };
  if (event.message) return { message: messageToProto(event.message) };
  if (event.statusUpdate) {
    const e = event.statusUpdate;
    return {
      statusUpdate: {
        taskId: e.taskId,
        contextId: e.contextId,
        status: statusToProto(e.status),
        ...(final ? { final: true } : {}),
        ...(e.metadata !== undefined ? { metadata: e.metadata } : {}),
      },
    };
  }
  const e = event.artifactUpdate;
  if (!e) return {};
  return {
    artifactUpdate: {
      taskId: e.taskId,
      contextId: e.contextId,
      artifact: artifactToProto(e.artifact),
      ...(e.append ? { append: true } : {}),
      ...(e.lastChunk ? { lastChunk: true } : {}),
      ...(e.metadata !== undefined ? { metadata: e.metadata } : {}),
    },
  };
}

/** The resource name of a push config. */
export function pushConfigName(taskId: string, configId: string): string {
  return `tasks/${taskId}/pushNotificationConfigs/${configId}`;
}

/** A flat v1.0 push config as the v0.3 proto `TaskPushNotificationConfig {name, pushNotificationConfig}`. */
export function pushConfigToProto(config: TaskPushNotificationConfig): Json {
  const inner: Json = { ...(config.id ? { id: config.id } : {}), url: config.url };
  if (config.token) inner.token = config.token;
  if (config.authentication) {
    inner.authentication = {
      schemes: [config.authentication.scheme],
      ...(config.authentication.credentials ? { credentials: config.authentication.credentials } : {}),
    };
  }
  return { name: pushConfigName(config.taskId ?? '', config.id ?? ''), pushNotificationConfig: inner };
}

/** A v1.0 card as the v0.3 proto `AgentCard` (oneof security schemes, as v1.0 has them). */
export function cardToProto(card: AgentCard): Json {
  const {
    supportedInterfaces: _i,
    capabilities,
    skills,
    securityRequirements,
    iconUrl: _icon,
    ...rest
  } = card;
  const { extendedAgentCard: _x, ...caps } = capabilities;
  const legacy = legacyCardFields(card);
  const first = card.supportedInterfaces[0];
  return {
    ...rest,
    protocolVersion: legacy?.protocolVersion ?? '0.3.0',
    url: legacy?.url ?? first?.url ?? '',
    preferredTransport: legacy?.preferredTransport ?? first?.protocolBinding ?? 'JSONRPC',
    additionalInterfaces: legacy?.additionalInterfaces ?? [],
    capabilities: caps,
    ...(securityRequirements ? { security: securityRequirements } : {}),
    skills: skills.map(({ securityRequirements: s, ...skill }) => ({
      ...skill,
      ...(s ? { security: s satisfies SecurityRequirement[] } : {}),
    })),
    supportsAuthenticatedExtendedCard: capabilities.extendedAgentCard === true,
  };
}

// ---- v0.3 ProtoJSON → v1.0 (lenient; validated afterwards) ---------------------------------

function partFromProto(part: unknown, path: string): unknown {
  if (!isJson(part)) return part;
  const text = field(part, 'text');
  if (text !== undefined) return { text };
  const file = field(part, 'file');
  if (isJson(file)) {
    const uri = field(file, 'fileWithUri', 'file_with_uri');
    const bytes = field(file, 'fileWithBytes', 'file_with_bytes');
    if ((uri === undefined) === (bytes === undefined)) {
      throw invalidV03(`${path}.file`, 'needs exactly one of fileWithUri, fileWithBytes');
    }
    const mimeType = field(file, 'mimeType', 'mime_type');
    return {
      ...(uri !== undefined ? { url: uri } : { raw: bytes }),
      ...(mimeType !== undefined && mimeType !== '' ? { mediaType: mimeType } : {}),
    };
  }
  const data = field(part, 'data');
  if (isJson(data)) return { data: isJson(data.data) ? data.data : data };
  return part;
}

function stateFromProto(state: unknown): unknown {
  return state === V03_CANCELLED ? TaskState.CANCELED : state;
}

/** A v0.3 proto Message as v1.0 JSON (`content` → `parts`). */
export function messageFromProto(message: unknown, path = 'message'): unknown {
  if (!isJson(message)) return message;
  const content = field(message, 'content') ?? field(message, 'parts');
  const out: Json = {};
  for (const [camel, snake] of [
    ['messageId', 'message_id'],
    ['contextId', 'context_id'],
    ['taskId', 'task_id'],
    ['role', undefined],
    ['metadata', undefined],
    ['extensions', undefined],
  ] as const) {
    const v = field(message, camel, snake);
    if (v !== undefined && v !== '') out[camel] = v;
  }
  out.parts = Array.isArray(content)
    ? content.map((p, i) => partFromProto(p, `${path}.content[${i}]`))
    : content;
  return out;
}

function artifactFromProto(artifact: unknown, path: string): unknown {
  if (!isJson(artifact)) return artifact;
  const parts = field(artifact, 'parts');
  return {
    ...artifact,
    artifactId: field(artifact, 'artifactId', 'artifact_id'),
    parts: Array.isArray(parts) ? parts.map((p, i) => partFromProto(p, `${path}.parts[${i}]`)) : parts,
  };
}

function statusFromProto(status: unknown, path: string): unknown {
  if (!isJson(status)) return status;
  const message = field(status, 'message') ?? field(status, 'update');
  return {
    state: stateFromProto(status.state),
    ...(message !== undefined ? { message: messageFromProto(message, `${path}.message`) } : {}),
    ...(status.timestamp !== undefined ? { timestamp: status.timestamp } : {}),
  };
}

/** A v0.3 proto Task as v1.0 JSON. */
export function taskFromProto(task: unknown, path = 'task'): unknown {
  if (!isJson(task)) return task;
  const artifacts = field(task, 'artifacts');
  const history = field(task, 'history');
  return {
    id: task.id,
    contextId: field(task, 'contextId', 'context_id'),
    status: statusFromProto(task.status, `${path}.status`),
    ...(Array.isArray(artifacts)
      ? { artifacts: artifacts.map((a, i) => artifactFromProto(a, `${path}.artifacts[${i}]`)) }
      : {}),
    ...(Array.isArray(history)
      ? { history: history.map((m, i) => messageFromProto(m, `${path}.history[${i}]`)) }
      : {}),
    ...(task.metadata !== undefined ? { metadata: task.metadata } : {}),
  };
}

/** A v0.3 proto SendMessageResponse (`task`, `message` or `msg`) as a v1.0 one. */
export function sendResponseFromProto(value: unknown): unknown {
  if (!isJson(value)) return value;
  if (value.task !== undefined) return { task: taskFromProto(value.task) };
  const message = field(value, 'message') ?? field(value, 'msg');
  return { message: messageFromProto(message) };
}

/** A v0.3 proto StreamResponse as a v1.0 one (`final` dropped). */
export function streamEventFromProto(value: unknown): unknown {
  if (!isJson(value)) return value;
  if (value.task !== undefined) return { task: taskFromProto(value.task) };
  const message = field(value, 'message') ?? field(value, 'msg');
  if (message !== undefined) return { message: messageFromProto(message) };
  const status = field(value, 'statusUpdate', 'status_update');
  if (isJson(status)) {
    return {
      statusUpdate: {
        taskId: field(status, 'taskId', 'task_id'),
        contextId: field(status, 'contextId', 'context_id'),
        status: statusFromProto(status.status, 'statusUpdate.status'),
        ...(status.metadata !== undefined ? { metadata: status.metadata } : {}),
      },
    };
  }
  const artifact = field(value, 'artifactUpdate', 'artifact_update');
  if (isJson(artifact)) {
    const lastChunk = field(artifact, 'lastChunk', 'last_chunk');
    return {
      artifactUpdate: {
        taskId: field(artifact, 'taskId', 'task_id'),
        contextId: field(artifact, 'contextId', 'context_id'),
        artifact: artifactFromProto(artifact.artifact, 'artifactUpdate.artifact'),
        ...(artifact.append !== undefined ? { append: artifact.append } : {}),
        ...(lastChunk !== undefined ? { lastChunk } : {}),
        ...(artifact.metadata !== undefined ? { metadata: artifact.metadata } : {}),
      },
    };
  }
  return value;
}

/**
 * A v0.3 proto SendMessageRequest as v1.0 JSON. `blocking` is a proto3 bool: in a
 * `configuration` that is present, absent means `false` (the v0.3 SDKs omit a false value);
 * with no `configuration` at all the request blocks (SRV-COMPAT-3 REC).
 */
export function sendRequestFromProto(body: Json): Json {
  const message = field(body, 'message') ?? field(body, 'request');
  const out: Json = { message: messageFromProto(message) };
  if (body.metadata !== undefined) out.metadata = body.metadata;
  const c = body.configuration;
  if (isJson(c)) {
    const push = field(c, 'pushNotification', 'push_notification') ?? field(c, 'pushNotificationConfig');
    const accepted = field(c, 'acceptedOutputModes', 'accepted_output_modes');
    const history = field(c, 'historyLength', 'history_length');
    out.configuration = {
      ...(accepted !== undefined ? { acceptedOutputModes: accepted } : {}),
      ...(history !== undefined ? { historyLength: history } : {}),
      ...(push !== undefined ? { taskPushNotificationConfig: pushConfigFromV03(push) } : {}),
      returnImmediately: !readBlocking(c.blocking ?? false),
    };
  } else if (c !== undefined && c !== null) {
    out.configuration = c;
  }
  return out;
}

/** The config id at the end of a resource name `tasks/{t}/pushNotificationConfigs/{c}`. */
function configIdOfName(name: unknown): string | undefined {
  if (typeof name !== 'string') return undefined;
  const m = /^tasks\/[^/]+\/pushNotificationConfigs\/([^/]+)$/.exec(name);
  return m?.[1];
}

/**
 * The body of a v0.3 create: the proto's `CreateTaskPushNotificationConfigRequest {parent,
 * configId, config:{name, pushNotificationConfig}}`, or a bare `TaskPushNotificationConfig
 * {name, pushNotificationConfig}` (what the v0.3 JS SDK client sends), as a flat v1.0 config.
 */
export function createPushConfigFromProto(body: Json, taskId: string): Json {
  const wrapper = isJson(body.config) ? body.config : body;
  const inner = field(wrapper, 'pushNotificationConfig', 'push_notification_config');
  if (!isJson(inner)) throw invalidV03('pushNotificationConfig', 'is required');
  const flat = pushConfigFromV03(inner) as Json;
  const id =
    (flat.id || undefined) ??
    (field(body, 'configId', 'config_id') || undefined) ??
    configIdOfName(wrapper.name);
  const { id: _id, ...rest } = flat;
  return { ...rest, ...(id !== undefined ? { id } : {}), taskId };
}

/** A v0.3 proto TaskPushNotificationConfig (an answer) as the flat v1.0 config. */
export function pushConfigFromProto(value: unknown): unknown {
  if (!isJson(value)) return value;
  const inner = field(value, 'pushNotificationConfig', 'push_notification_config');
  const flat = pushConfigFromV03(inner);
  if (!isJson(flat)) return value;
  const m = typeof value.name === 'string' ? /^tasks\/([^/]+)\//.exec(value.name) : null;
  return { ...flat, ...(m ? { taskId: m[1] } : {}) };
}
