/**
 * Comparing secrets without leaking them through timing: both sides are hashed to a fixed
 * length first, so neither the content nor the length of a stored secret shows in how long a
 * comparison takes.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** SHA-256 of a UTF-8 string. */
export function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** True when `a` and `b` are equal, in time independent of where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  return timingSafeEqual(sha256(a), sha256(b));
}

/**
 * Looks secrets up by their SHA-256, so that a lookup costs the same whatever the presented
 * value; the map never holds the secrets themselves.
 */
export class SecretTable<T> {
  readonly #byDigest = new Map<string, T>();

  constructor(entries: Iterable<readonly [secret: string, value: T]>) {
    for (const [secret, value] of entries) {
      if (secret.length === 0) throw new Error('an empty secret is not allowed');
      const key = sha256(secret).toString('base64');
      if (this.#byDigest.has(key)) throw new Error('the same secret is configured twice');
      this.#byDigest.set(key, value);
    }
  }

  /** The value stored for `secret`, if any. */
  lookup(secret: string): T | undefined {
    return this.#byDigest.get(sha256(secret).toString('base64'));
  }

  get size(): number {
    return this.#byDigest.size;
  }
}
