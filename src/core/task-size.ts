/**
 * The stored size of a task (parts and JSON characters of its history and artifacts) and the
 * per-task caps. Sizes are cached by the task's `artifacts` array: the TaskManager appends to
 * a task's arrays in place, so the cached size of the current version grows by what each
 * change adds and an append costs the same whatever the task's size.
 */
import type { Artifact, Message, Part, Task } from '../model/schema.js';
import { InvalidAgentResponseError } from '../errors/a2a-error.js';

/** Default cap on the parts (history message parts plus artifact parts) one task holds. */
export const DEFAULT_MAX_TASK_PARTS = 200_000;
/** Default cap on the JSON size of one task's history and artifacts: 64 MiB. */
export const DEFAULT_MAX_TASK_BYTES = 64 * 1024 * 1024;

/** How much a task holds, or how much a change adds to it. */
export interface TaskSize {
  /** Parts of history messages plus parts of artifacts. */
  readonly parts: number;
  /** JSON characters of the history messages and artifacts (about bytes for ASCII text). */
  readonly bytes: number;
}

/** The caps a task's size must stay within. */
export interface TaskLimits {
  readonly maxParts: number;
  readonly maxBytes: number;
}

interface CachedSize {
  parts: number;
  bytes: number;
  /** The history array the size was measured with (the cache entry is keyed by `artifacts`). */
  history: Message[] | undefined;
}

const cache = new WeakMap<Artifact[], CachedSize>();

/**
 * Tasks with fewer parts are measured again when changed (a few part lengths) rather than
 * cached: most tasks are that small, and each cache entry is an ephemeron the collector has to
 * trace specially for as long as the task lives.
 */
const CACHE_FROM_PARTS = 64;

/** Thrown when an agent event would make a task larger than the server's caps. */
export class TaskTooLargeError extends InvalidAgentResponseError {}

/** JSON characters of `value`; an event that is not JSON data is refused. */
function jsonSize(value: unknown): number {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    throw new InvalidAgentResponseError('the event is not JSON data (a BigInt or a cycle?)');
  }
  return json === undefined ? 0 : json.length;
}

/** What one message adds: its parts, ids and role as framing, and its metadata and extensions. */
export function messageSize(message: Message): TaskSize {
  let bytes = partsSize(message.parts).bytes + 160;
  if (message.metadata !== undefined) bytes += jsonSize(message.metadata);
  if (message.extensions !== undefined) bytes += jsonSize(message.extensions);
  if (message.referenceTaskIds !== undefined) bytes += jsonSize(message.referenceTaskIds);
  return { parts: message.parts.length, bytes };
}

/** What a new artifact adds: its parts as {@link partsSize} measures them, plus its framing. */
export function artifactSize(artifact: Artifact): TaskSize {
  let bytes = partsSize(artifact.parts).bytes + 64 + artifact.artifactId.length;
  bytes += (artifact.name?.length ?? 0) + (artifact.description?.length ?? 0);
  if (artifact.metadata !== undefined) bytes += jsonSize(artifact.metadata);
  if (artifact.extensions !== undefined) bytes += jsonSize(artifact.extensions);
  return { parts: artifact.parts.length, bytes };
}

/** What appended parts add (text parts measured without encoding them: length plus framing). */
export function partsSize(parts: readonly Part[]): TaskSize {
  let bytes = 0;
  for (const part of parts) {
    if (typeof part.text !== 'string') {
      bytes += jsonSize(part) + 1;
      continue;
    }
    bytes += part.text.length + 12 + (part.mediaType?.length ?? 0) + (part.filename?.length ?? 0);
    if (part.metadata !== undefined) bytes += jsonSize(part.metadata);
  }
  return { parts: parts.length, bytes };
}

/** `a + b`. */
export function addSizes(a: TaskSize, b: TaskSize): TaskSize {
  return { parts: a.parts + b.parts, bytes: a.bytes + b.bytes };
}

/** The size of `task`: cached for the current version, measured once otherwise. */
export function taskSize(task: Task): TaskSize {
  const artifacts = task.artifacts;
  if (artifacts) {
    const cached = cache.get(artifacts);
    if (cached && cached.history === task.history) return cached;
  }
  let size: TaskSize = { parts: 0, bytes: 0 };
  for (const message of task.history ?? []) size = addSizes(size, messageSize(message));
  for (const artifact of artifacts ?? []) size = addSizes(size, artifactSize(artifact));
  remember(task, size);
  return size;
}

/** Records the size of `task` (after a change that added to it in place). */
export function remember(task: Task, size: TaskSize): void {
  const artifacts = task.artifacts;
  if (!artifacts || size.parts < CACHE_FROM_PARTS) return;
  const cached = cache.get(artifacts);
  if (cached) {
    // The usual case (an append in place): update the entry instead of allocating one.
    cached.parts = size.parts;
    cached.bytes = size.bytes;
    cached.history = task.history;
  } else {
    cache.set(artifacts, { parts: size.parts, bytes: size.bytes, history: task.history });
  }
}

/** Throws {@link TaskTooLargeError} when `size` is over `limits`. */
export function checkTaskSize(taskId: string, size: TaskSize, limits: TaskLimits): void {
  if (size.parts > limits.maxParts) {
    throw new TaskTooLargeError(
      `task ${taskId} would hold ${size.parts} parts, more than this server allows (maxTaskParts ${limits.maxParts})`,
    );
  }
  if (size.bytes > limits.maxBytes) {
    throw new TaskTooLargeError(
      `task ${taskId} would hold ${size.bytes} bytes of history and artifacts, more than this server allows (maxTaskBytes ${limits.maxBytes})`,
    );
  }
}
