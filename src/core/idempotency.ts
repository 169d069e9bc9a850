/**
 * SendMessage idempotency: a messageId names one message. A repeat of the same message returns
 * the first result; a repeat whose content differs is refused, the way a payment API treats a
 * reused idempotency key. Messages are compared by a fingerprint of their canonical form.
 */
import { hash } from 'node:crypto';
import { InvalidParamsError } from '../errors/a2a-error.js';
import type { Message, Part, SendMessageRequest } from '../model/schema.js';

/** Default idempotency window: 24 hours. */
export const DEFAULT_IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * The fingerprint of what a SendMessage asks for: the message without its `messageId` (role,
 * parts, taskId, contextId, metadata, extensions, referenceTaskIds) and the request's
 * `metadata`. `configuration` is left out: it shapes the answer (blocking, history length,
 * output modes), not the work. Keys are sorted and proto3 defaults (absent, `""`, `[]`) are
 * dropped, so the same message sent over any binding has the same fingerprint.
 */
export function requestFingerprint(request: SendMessageRequest): string {
  const canonical = `[${canonicalMessage(request.message)},${canonicalJson(request.metadata)}]`;
  // The whole digest: a flat string, where a slice of it would keep the digest alive beside it
  // (the record holds the fingerprint for the idempotency window).
  return hash('sha256', canonical, 'base64url');
}

// The fields of Message (but messageId) and of Part in sorted order: the known shapes skip the
// generic path's Object.keys and sort, which cost more than the hash itself. Keys a validated
// message cannot carry are not looked at.
const MESSAGE_FIELDS = [
  'contextId',
  'extensions',
  'metadata',
  'parts',
  'referenceTaskIds',
  'role',
  'taskId',
] as const;
const PART_FIELDS = ['data', 'filename', 'mediaType', 'metadata', 'raw', 'text', 'url'] as const;

function canonicalMessage(message: Message): string {
  let out = '{';
  for (const key of MESSAGE_FIELDS) {
    const item = message[key];
    if (isDefault(item)) continue;
    const text = key === 'parts' ? canonicalParts(message.parts) : canonicalJson(item);
    out += (out.length > 1 ? ',"' : '"') + key + '":' + text;
  }
  return out + '}';
}

function canonicalParts(parts: readonly Part[]): string {
  let out = '[';
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    let one = '{';
    for (const key of PART_FIELDS) {
      const item = part[key];
      if (isDefault(item)) continue;
      one += (one.length > 1 ? ',"' : '"') + key + '":' + canonicalJson(item);
    }
    out += (i > 0 ? ',' : '') + one + '}';
  }
  return out + ']';
}

/** `value` as JSON with sorted keys and proto3 defaults omitted. */
function canonicalJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i > 0 ? ',' : '') + canonicalJson(value[i]);
    return out + ']';
  }
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    sortSmall(keys);
    let out = '{';
    for (const key of keys) {
      const item = record[key];
      if (isDefault(item)) continue;
      out += (out.length > 1 ? ',' : '') + JSON.stringify(key) + ':' + canonicalJson(item);
    }
    return out + '}';
  }
  return JSON.stringify(value) ?? 'null';
}

/** Sorts in place: insertion sort for the few keys of most objects (no allocation), else sort(). */
function sortSmall(keys: string[]): void {
  if (keys.length > 16) {
    keys.sort();
    return;
  }
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > key) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = key;
  }
}

function isDefault(value: unknown): boolean {
  return (
    value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0)
  );
}

/** The error for a messageId reused with another message. */
export function messageIdReused(messageId: string): InvalidParamsError {
  const description =
    'was already used for another message; a repeated messageId must carry the same message (send a new message with a fresh messageId)';
  return new InvalidParamsError(`message.messageId ${JSON.stringify(messageId)} ${description}`, {
    violations: [{ path: 'message.messageId', description }],
  });
}

/** Checks an idempotency window option: `0` turns de-duplication off, `Infinity` never expires. */
export function checkIdempotencyTtl(value: number | undefined): number {
  if (value === undefined) return DEFAULT_IDEMPOTENCY_TTL_MS;
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0) {
    throw new RangeError(
      `idempotencyTtlMs must be a number of milliseconds >= 0 (0: off, Infinity: no expiry), got ${String(value)}`,
    );
  }
  return value;
}
