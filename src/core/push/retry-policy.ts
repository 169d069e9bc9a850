/**
 * When a failed push delivery is tried again (SRV-PUSH-4): exponential backoff with jitter,
 * bounded by attempts and by age; after the last attempt the delivery is dead-lettered.
 */
import type { PushDelivery, PushSettlement } from './outbox.js';

/** Options of {@link RetryPolicy}. */
export interface RetryOptions {
  /** Attempts in all, the first included. @default 10 */
  maxAttempts?: number;
  /** No attempt starts later than this after the notification was enqueued. @default 86400000 (24 h) */
  maxAgeMs?: number;
  /** Delay before the second attempt; each later one doubles it. @default 1000 */
  baseDelayMs?: number;
  /** Longest delay between two attempts. @default 300000 (5 min) */
  maxDelayMs?: number;
}

/** Backoff and dead-letter rule of the delivery worker. */
export class RetryPolicy {
  readonly maxAttempts: number;
  readonly maxAgeMs: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;

  constructor(options: RetryOptions = {}) {
    this.maxAttempts = atLeast(options.maxAttempts ?? 10, 1, 'maxAttempts');
    this.maxAgeMs = atLeast(options.maxAgeMs ?? 86_400_000, 0, 'maxAgeMs');
    this.baseDelayMs = atLeast(options.baseDelayMs ?? 1000, 0, 'baseDelayMs');
    this.maxDelayMs = atLeast(options.maxDelayMs ?? 300_000, this.baseDelayMs, 'maxDelayMs');
  }

  /**
   * The delay after failed attempt number `attempt` (1 for the first): `base * 2^(attempt-1)`,
   * capped, then a random point in its upper half ("equal jitter": never less than half the
   * step, so a fleet of retries spreads out without hammering).
   */
  delayMs(attempt: number, random: () => number = Math.random): number {
    const step = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** Math.min(attempt - 1, 40));
    return Math.round(step / 2 + random() * (step / 2));
  }

  /** How to settle `delivery` whose attempt (its `attempts + 1`-th) failed with `error`. */
  afterFailure(delivery: PushDelivery, error: string, now = Date.now()): PushSettlement {
    const attempt = delivery.attempts + 1;
    if (attempt >= this.maxAttempts) {
      return { outcome: 'dead', error: `${error} (gave up after ${attempt} attempts)` };
    }
    const next = now + this.delayMs(attempt);
    if (next - delivery.createdAtMs > this.maxAgeMs) {
      return { outcome: 'dead', error: `${error} (gave up: older than ${this.maxAgeMs} ms)` };
    }
    return { outcome: 'retry', nextAttemptAtMs: next, error };
  }
}

function atLeast(value: number, min: number, name: string): number {
  if (typeof value !== 'number' || Number.isNaN(value) || value < min) {
    throw new RangeError(`push retry ${name} must be a number >= ${min}, got ${String(value)}`);
  }
  return value;
}
