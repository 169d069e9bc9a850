/**
 * v0.3 JSON-RPC content ↔ v1.0 model (SRV-COMPAT-4, SRV-COMPAT-5): parts, messages, artifacts, tasks and
 * stream events, both directions.
 *
 * Reading v0.3 (`…FromV03`) is lenient: it rewrites what it recognises into the v1.0 shape and
 * passes anything else through, so the v1.0 validators report it with its path. Only v0.3-only
 * mistakes (an unknown `kind`, a file with both `uri` and `bytes`) are reported here.
 */
import { InvalidParamsError } from '../../errors/a2a-error.js';
import { Role, TaskState } from '../../model/enums.js';
import type {
  Artifact,
  Message,
  Part,
  StreamResponse,
  Task,
  TaskArtifactUpdateEvent,
  TaskStatus,
  TaskStatusUpdateEvent,
} from '../../model/schema.js';
import type {
  V03Artifact,
  V03Message,
  V03Part,
  V03Role,
  V03StreamEvent,
  V03Task,
  V03TaskArtifactUpdateEvent,
  V03TaskState,
  V03TaskStatus,
  V03TaskStatusUpdateEvent,
} from './types.js';

/** A JSON object. */
export type Json = Record<string, unknown>;

/** True for a plain JSON object. */
export function isJson(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An InvalidParamsError naming one v0.3 path. */
export function invalidV03(path: string, description: string): InvalidParamsError {
  return new InvalidParamsError(`Invalid parameters: ${path}: ${description}`, {
    violations: [{ path, description }],
  });
}

/** The metadata key the SDKs use to mark a wrapped non-object data part (SRV-COMPAT-5). */
export const DATA_PART_COMPAT_KEY = 'data_part_compat';

// ---- enums ---------------------------------------------------------------------------------

const STATE_TO_V03: Readonly<Record<TaskState, V03TaskState>> = {
  [TaskState.UNSPECIFIED]: 'unknown',
  [TaskState.SUBMITTED]: 'submitted',
  [TaskState.WORKING]: 'working',
  [TaskState.COMPLETED]: 'completed',
  [TaskState.FAILED]: 'failed',
  [TaskState.CANCELED]: 'canceled',
  [TaskState.INPUT_REQUIRED]: 'input-required',
  [TaskState.REJECTED]: 'rejected',
  [TaskState.AUTH_REQUIRED]: 'auth-required',
};

const STATE_FROM_V03: Readonly<Record<string, TaskState>> = Object.fromEntries(
  Object.entries(STATE_TO_V03).map(([v1, v03]) => [v03, v1 as TaskState]),
);

/** v1.0 state → v0.3 spelling. */
export function stateToV03(state: TaskState): V03TaskState {
  return STATE_TO_V03[state] ?? 'unknown';
}

/** v0.3 spelling → v1.0 state; anything else is passed through for the validator. */
export function stateFromV03(state: unknown): unknown {
  // Own keys only: `constructor` or `toString` is not a state.
  return typeof state === 'string' && Object.hasOwn(STATE_FROM_V03, state) ? STATE_FROM_V03[state] : state;
}

function roleToV03(role: Role): V03Role {
  return role === Role.AGENT ? 'agent' : 'user';
}

function roleFromV03(role: unknown): unknown {
  if (role === 'user') return Role.USER;
  if (role === 'agent') return Role.AGENT;
  return role;
}

// ---- v1.0 → v0.3 ---------------------------------------------------------------------------

/** One v1.0 part as v0.3: `kind`, and file content nested under `file`. */
export function partToV03(part: Part): V03Part {
  const metadata = part.metadata;
  const meta = metadata === undefined ? {} : { metadata };
  if (part.text !== undefined) return { kind: 'text', text: part.text, ...meta };
  if (part.url !== undefined || part.raw !== undefined) {
    return {
      kind: 'file',
      file: {
        ...(part.url !== undefined ? { uri: part.url } : { bytes: part.raw as string }),
        ...(part.mediaType !== undefined ? { mimeType: part.mediaType } : {}),
        ...(part.filename !== undefined ? { name: part.filename } : {}),
      },
      ...meta,
    };
  }
  if (isJson(part.data)) return { kind: 'data', data: part.data, ...meta };
  // v0.3 data parts hold objects only: wrap, and mark it as the SDKs do.
  return {
    kind: 'data',
    data: { value: part.data },
    metadata: { ...metadata, [DATA_PART_COMPAT_KEY]: true },
  };
}

export function messageToV03(message: Message): V03Message {
  return {
    kind: 'message',
    messageId: message.messageId,
    role: roleToV03(message.role),
    parts: message.parts.map(partToV03),
    ...(message.contextId ? { contextId: message.contextId } : {}),
    ...(message.taskId ? { taskId: message.taskId } : {}),
    ...(message.metadata !== undefined ? { metadata: message.metadata } : {}),
    ...(message.extensions?.length ? { extensions: message.extensions } : {}),
    ...(message.referenceTaskIds?.length ? { referenceTaskIds: message.referenceTaskIds } : {}),
  };
}

export function artifactToV03(artifact: Artifact): V03Artifact {
  return {
    artifactId: artifact.artifactId,
    ...(artifact.name !== undefined ? { name: artifact.name } : {}),
    ...(artifact.description !== undefined ? { description: artifact.description } : {}),
    parts: artifact.parts.map(partToV03),
    ...(artifact.metadata !== undefined ? { metadata: artifact.metadata } : {}),
    ...(artifact.extensions?.length ? { extensions: artifact.extensions } : {}),
  };
}

export function statusToV03(status: TaskStatus): V03TaskStatus {
  return {
    state: stateToV03(status.state),
    ...(status.message ? { message: messageToV03(status.message) } : {}),
    ...(status.timestamp !== undefined ? { timestamp: status.timestamp } : {}),
  };
}

export function taskToV03(task: Task): V03Task {
  return {
    kind: 'task',
    id: task.id,
    contextId: task.contextId ?? '',
    status: statusToV03(task.status),
    ...(task.artifacts ? { artifacts: task.artifacts.map(artifactToV03) } : {}),
    ...(task.history ? { history: task.history.map(messageToV03) } : {}),
    ...(task.metadata !== undefined ? { metadata: task.metadata } : {}),
  };
}

/** A status update as v0.3, with `final` as the caller decided it. */
export function statusUpdateToV03(event: TaskStatusUpdateEvent, final: boolean): V03TaskStatusUpdateEvent {
  return {
    kind: 'status-update',
    taskId: event.taskId,
    contextId: event.contextId,
    status: statusToV03(event.status),
    final,
    ...(event.metadata !== undefined ? { metadata: event.metadata } : {}),
  };
}

export function artifactUpdateToV03(event: TaskArtifactUpdateEvent): V03TaskArtifactUpdateEvent {
  return {
    kind: 'artifact-update',
    taskId: event.taskId,
    contextId: event.contextId,
    artifact: artifactToV03(event.artifact),
    ...(event.append !== undefined ? { append: event.append } : {}),
    ...(event.lastChunk !== undefined ? { lastChunk: event.lastChunk } : {}),
    ...(event.metadata !== undefined ? { metadata: event.metadata } : {}),
  };
}

/** A v1.0 stream event as v0.3; `final` applies to status updates only. */
export function streamEventToV03(event: StreamResponse, final: boolean): V03StreamEvent {
  if (event.task) return taskToV03(event.task);
  if (event.message) return messageToV03(event.message);
  if (event.statusUpdate) return statusUpdateToV03(event.statusUpdate, final);
  return artifactUpdateToV03(event.artifactUpdate as TaskArtifactUpdateEvent);
}

// ---- v0.3 → v1.0 ---------------------------------------------------------------------------

/** One v0.3 part as v1.0 JSON (validated afterwards). A part without `kind` passes as is. */
export function partFromV03(part: unknown, path: string): unknown {
  if (!isJson(part)) return part;
  const kind = part.kind;
  if (kind === undefined) return part;
  const out: Json = {};
  let metadata = part.metadata;
  switch (kind) {
    case 'text':
      out.text = part.text;
      break;
    case 'file': {
      const file = part.file;
      if (!isJson(file)) throw invalidV03(`${path}.file`, 'must be an object with uri or bytes');
      const hasUri = file.uri !== undefined && file.uri !== null;
      const hasBytes = file.bytes !== undefined && file.bytes !== null;
      if (hasUri === hasBytes) throw invalidV03(`${path}.file`, 'needs exactly one of uri, bytes');
      if (hasUri) out.url = file.uri;
      else out.raw = file.bytes;
      if (file.mimeType !== undefined) out.mediaType = file.mimeType;
      if (file.name !== undefined) out.filename = file.name;
      break;
    }
    case 'data': {
      let data = part.data;
      if (data === undefined || data === null) throw invalidV03(`${path}.data`, 'is required');
      if (isJson(metadata) && metadata[DATA_PART_COMPAT_KEY] === true && isJson(data) && 'value' in data) {
        data = data.value;
        const { [DATA_PART_COMPAT_KEY]: _marker, ...rest } = metadata;
        metadata = Object.keys(rest).length > 0 ? rest : undefined;
      }
      out.data = data;
      break;
    }
    default:
      throw invalidV03(`${path}.kind`, `must be "text", "file" or "data", not ${JSON.stringify(kind)}`);
  }
  if (metadata !== undefined) out.metadata = metadata;
  return out;
}

function partsFromV03(parts: unknown, path: string): unknown {
  return Array.isArray(parts) ? parts.map((p, i) => partFromV03(p, `${path}[${i}]`)) : parts;
}

function expectKind(value: Json, kind: string, path: string): void {
  if (value.kind !== undefined && value.kind !== kind) {
    throw invalidV03(`${path}.kind`, `must be "${kind}", not ${JSON.stringify(value.kind)}`);
  }
}

/** A v0.3 message as v1.0 JSON: no `kind`, `ROLE_*` roles, v1.0 parts. */
export function messageFromV03(message: unknown, path = 'message'): unknown {
  if (!isJson(message)) return message;
  expectKind(message, 'message', path);
  const { kind: _kind, role, parts, ...rest } = message;
  return { ...rest, role: roleFromV03(role), parts: partsFromV03(parts, `${path}.parts`) };
}

export function artifactFromV03(artifact: unknown, path = 'artifact'): unknown {
  if (!isJson(artifact)) return artifact;
  return { ...artifact, parts: partsFromV03(artifact.parts, `${path}.parts`) };
}

export function statusFromV03(status: unknown, path = 'status'): unknown {
  if (!isJson(status)) return status;
  const out: Json = { ...status, state: stateFromV03(status.state) };
  if (status.message !== undefined && status.message !== null) {
    out.message = messageFromV03(status.message, `${path}.message`);
  }
  return out;
}

/** A v0.3 Task as v1.0 JSON. */
export function taskFromV03(task: unknown, path = 'task'): unknown {
  if (!isJson(task)) return task;
  expectKind(task, 'task', path);
  const { kind: _kind, status, artifacts, history, ...rest } = task;
  const out: Json = { ...rest, status: statusFromV03(status, `${path}.status`) };
  if (Array.isArray(artifacts))
    out.artifacts = artifacts.map((a, i) => artifactFromV03(a, `${path}.artifacts[${i}]`));
  if (Array.isArray(history)) out.history = history.map((m, i) => messageFromV03(m, `${path}.history[${i}]`));
  return out;
}

/** A v0.3 `message/send` result (bare Task or Message) as a v1.0 SendMessageResponse. */
export function sendResultFromV03(result: unknown): unknown {
  if (!isJson(result)) return result;
  if (result.kind === 'message') return { message: messageFromV03(result, 'result') };
  if (result.kind === 'task' || 'status' in result) return { task: taskFromV03(result, 'result') };
  return { message: messageFromV03(result, 'result') };
}

/** A v0.3 stream event (by `kind`) as a v1.0 StreamResponse; `final` is dropped. */
export function streamEventFromV03(event: unknown): unknown {
  if (!isJson(event)) return event;
  switch (event.kind) {
    case 'task':
      return { task: taskFromV03(event, 'result') };
    case 'message':
      return { message: messageFromV03(event, 'result') };
    case 'status-update': {
      const { kind: _kind, final: _final, status, ...rest } = event;
      return { statusUpdate: { ...rest, status: statusFromV03(status, 'result.status') } };
    }
    case 'artifact-update': {
      const { kind: _kind, artifact, ...rest } = event;
      return { artifactUpdate: { ...rest, artifact: artifactFromV03(artifact, 'result.artifact') } };
    }
    default:
      return event;
  }
}
