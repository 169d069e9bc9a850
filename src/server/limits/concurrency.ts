/**
 * Per-principal caps on things that stay open (SSE/gRPC streams, running executions): a
 * counter per key, removed when it drops to zero, so the map is bounded by what is open.
 */
import { ResourceExhaustedError } from '../../errors/a2a-error.js';

/** Options of {@link ConcurrencyLimiter}. */
export interface ConcurrencyLimitOptions {
  /** Most slots one key may hold at once. */
  maxPerKey: number;
  /** Most slots all keys together may hold. @default unlimited */
  maxTotal?: number;
  /** What is limited, for error messages (`streams`, `running executions`). @default 'operations' */
  what?: string;
}

/** Counts open slots per key and refuses beyond the caps. */
export class ConcurrencyLimiter {
  readonly #maxPerKey: number;
  readonly #maxTotal: number;
  readonly #what: string;
  readonly #counts = new Map<string, number>();
  #total = 0;

  constructor(options: ConcurrencyLimitOptions) {
    if (!(options.maxPerKey >= 1)) throw new RangeError('maxPerKey must be >= 1');
    this.#maxPerKey = Math.floor(options.maxPerKey);
    this.#maxTotal = options.maxTotal ?? Number.POSITIVE_INFINITY;
    this.#what = options.what ?? 'operations';
  }

  /** A slot for `key` and the function that frees it (safe to call twice), or `undefined` when full. */
  tryAcquire(key: string): (() => void) | undefined {
    const count = this.#counts.get(key) ?? 0;
    if (count >= this.#maxPerKey || this.#total >= this.#maxTotal) return undefined;
    this.#counts.set(key, count + 1);
    this.#total++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#total--;
      const left = (this.#counts.get(key) ?? 1) - 1;
      if (left <= 0) this.#counts.delete(key);
      else this.#counts.set(key, left);
    };
  }

  /** Like {@link tryAcquire}, throwing {@link ResourceExhaustedError} (429 / RESOURCE_EXHAUSTED) when full. */
  acquire(key: string): () => void {
    const release = this.tryAcquire(key);
    if (release) return release;
    const perKey = (this.#counts.get(key) ?? 0) >= this.#maxPerKey;
    throw new ResourceExhaustedError(
      perKey
        ? `too many concurrent ${this.#what} for this caller (limit ${this.#maxPerKey})`
        : `too many concurrent ${this.#what} on this server`,
    );
  }

  /** Slots `key` holds now. */
  active(key: string): number {
    return this.#counts.get(key) ?? 0;
  }

  /** Slots held by all keys. */
  get total(): number {
    return this.#total;
  }
}
