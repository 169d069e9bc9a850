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
 *
 * A plain text message (role, ids and text parts, nothing else: most messages) is hashed as a
 * JSON array the native serializer writes flat: building the canonical string piece by piece
 * and hashing it was the costliest step of a short send. (Holding a short array as it is, with
 * no hash, measured 39 more bytes of heap per stored task than its digest.)
 */
export function requestFingerprint(request: SendMessageRequest): string {
  const plain = plainTextForm(request);
  return plain !== undefined ? digest(plain) : canonicalFingerprint(request);
}

/**
 * True when a record's fingerprint (`stored`) names the same request as `fingerprint`, the
 * fingerprint of `request`. A record written before plain text forms existed holds the digest
 * of the canonical form: that one is computed only then, on a mismatch.
 */
export function sameRequest(stored: string, fingerprint: string, request: SendMessageRequest): boolean {
  return stored === fingerprint || stored === canonicalFingerprint(request);
}

function digest(text: string): string {
  // The whole digest: a flat string, where a slice of it would keep the digest alive beside it
  // (the record holds the fingerprint for the idempotency window).
  return hash('sha256', text, 'base64url');
}

function canonicalFingerprint(request: SendMessageRequest): string {
  return digest(`[${canonicalMessage(request.message)},${canonicalJson(request.metadata)}]`);
}

/**
 * `[role, taskId, contextId, text, ...]` as JSON (one flat string from the native serializer),
 * or undefined when the request carries anything else. It starts with `["` and a canonical
 * form with `[{`, so no plain form is the canonical form of another message.
 */
function plainTextForm(request: SendMessageRequest): string | undefined {
  const message = request.message;
  const plain =
    isDefault(request.metadata) &&
    isDefault(message.metadata) &&
    isDefault(message.extensions) &&
    isDefault(message.referenceTaskIds);
  if (!plain) return undefined;
  const form: string[] = [message.role, message.taskId ?? '', message.contextId ?? ''];
  for (const part of message.parts) {
    const text = part.text;
    if (typeof text !== 'string' || text === '') return undefined;
    for (const key of NON_TEXT_PART_FIELDS) if (!isDefault(part[key])) return undefined;
    form.push(text);
  }
  return JSON.stringify(form);
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
const NON_TEXT_PART_FIELDS = PART_FIELDS.filter(
  (key): key is Exclude<(typeof PART_FIELDS)[number], 'text'> => key !== 'text',
);

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
