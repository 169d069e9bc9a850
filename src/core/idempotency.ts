/**
 * SendMessage idempotency: a messageId names one message. A repeat of the same message returns
 * the first result; a repeat whose content differs is refused, the way a payment API treats a
 * reused idempotency key. Messages are compared by a fingerprint of their canonical form.
 */
import { hash } from 'node:crypto';
import { InvalidParamsError } from '../errors/a2a-error.js';
import type { SendMessageRequest } from '../model/schema.js';

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
  // One string and the one-shot hash: far cheaper than a Hash object fed piece by piece.
  const canonical = `[${canonicalJson(request.message, 'messageId')},${canonicalJson(request.metadata)}]`;
  // 128 bits: ample to tell messages of one caller apart, half the storage of the full hash.
  return hash('sha256', canonical, 'base64url').slice(0, 22);
}

/** `value` as JSON with sorted keys and proto3 defaults omitted. */
function canonicalJson(value: unknown, skipKey?: string): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i > 0 ? ',' : '') + canonicalJson(value[i]);
    return out + ']';
  }
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    if (!isSorted(keys)) keys.sort();
    let out = '{';
    for (const key of keys) {
      const item = record[key];
      if (key === skipKey || isDefault(item)) continue;
      out += (out.length > 1 ? ',' : '') + JSON.stringify(key) + ':' + canonicalJson(item);
    }
    return out + '}';
  }
  return JSON.stringify(value) ?? 'null';
}

function isSorted(keys: readonly string[]): boolean {
  for (let i = 1; i < keys.length; i++) if (keys[i - 1]! > keys[i]!) return false;
  return true;
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
