/**
 * Per-principal rate limiting: one token bucket per key (tenant + principal), held in a map
 * with a size bound. Buckets that have refilled completely carry no state and are dropped;
 * when the map is full the least recently used bucket goes.
 */
import { ResourceExhaustedError } from '../../errors/a2a-error.js';

/** Options of {@link RateLimiter}. */
export interface RateLimitOptions {
  /** Tokens added per second (sustained requests per second). */
  ratePerSecond: number;
  /** Bucket size: the burst a caller may send at once. @default ratePerSecond, at least 1 */
  burst?: number;
  /** Most buckets kept at once. @default 10000 */
  maxKeys?: number;
  /** Clock in ms (for tests). @default Date.now */
  now?: () => number;
}

/** The answer of {@link RateLimiter.take}. */
export type RateDecision =
  | { readonly ok: true; readonly remaining: number }
  | { readonly ok: false; readonly retryAfterSeconds: number };

interface Bucket {
  tokens: number;
  at: number;
}

/** How many idle buckets one call may inspect for removal (keeps each call O(1)). */
const SWEEP_PER_CALL = 4;

/** A token bucket per key. */
export class RateLimiter {
  readonly #rate: number;
  readonly #burst: number;
  readonly #maxKeys: number;
  readonly #now: () => number;
  // Insertion order is recency order: a used bucket is moved to the end.
  readonly #buckets = new Map<string, Bucket>();

  constructor(options: RateLimitOptions) {
    if (!(options.ratePerSecond > 0)) throw new RangeError('ratePerSecond must be > 0');
    this.#rate = options.ratePerSecond / 1000;
    this.#burst = options.burst ?? Math.max(1, options.ratePerSecond);
    if (!(this.#burst >= 1)) throw new RangeError('burst must be >= 1');
    this.#maxKeys = Math.max(1, options.maxKeys ?? 10_000);
    this.#now = options.now ?? Date.now;
  }

  /** Takes `cost` tokens from `key`'s bucket if it has them. */
  take(key: string, cost = 1): RateDecision {
    const now = this.#now();
    this.#sweep(now);
    const bucket = this.#buckets.get(key);
    let tokens = this.#burst;
    if (bucket) {
      tokens = Math.min(this.#burst, bucket.tokens + Math.max(0, now - bucket.at) * this.#rate);
      this.#buckets.delete(key);
    } else if (this.#buckets.size >= this.#maxKeys) {
      const oldest = this.#buckets.keys().next();
      if (!oldest.done) this.#buckets.delete(oldest.value);
    }
    if (tokens >= cost) {
      this.#buckets.set(key, { tokens: tokens - cost, at: now });
      return { ok: true, remaining: Math.floor(tokens - cost) };
    }
    this.#buckets.set(key, { tokens, at: now });
    const waitMs = (cost - tokens) / this.#rate;
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  }

  /** Like {@link take}, throwing {@link ResourceExhaustedError} (429, with Retry-After) when empty. */
  consume(key: string, cost = 1): void {
    const decision = this.take(key, cost);
    if (!decision.ok) {
      throw new ResourceExhaustedError('rate limit exceeded; retry later', {
        retryAfterSeconds: decision.retryAfterSeconds,
      });
    }
  }

  /** Buckets currently held. */
  get size(): number {
    return this.#buckets.size;
  }

  /** Drops least recently used buckets that have refilled: forgetting them changes nothing. */
  #sweep(now: number): void {
    let looked = 0;
    for (const [key, bucket] of this.#buckets) {
      if (looked++ >= SWEEP_PER_CALL) return;
      if (bucket.tokens + (now - bucket.at) * this.#rate < this.#burst) return;
      this.#buckets.delete(key);
    }
  }
}
