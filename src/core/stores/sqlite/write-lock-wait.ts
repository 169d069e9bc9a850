/**
 * How a batch waits for SQLite's write lock held by another connection or process (a `sqlite3`
 * shell in a transaction, a second server on the file): off the event loop. better-sqlite3 is
 * synchronous, so its busy timeout would hold the event loop for the whole wait (2 s by default)
 * at each batch; instead a batch tries the lock without waiting and, when it is taken, is tried
 * again on a timer with backoff until the busy timeout has passed since its first try.
 */

/** The longest pause between two tries. */
const MAX_PAUSE_MS = 50;

/** The wait of the batch at the head of the queue, while the lock is held elsewhere. */
export class WriteLockWait {
  #since: number | undefined;
  #attempt = 0;
  #timer: NodeJS.Timeout | undefined;

  /** `busyTimeoutMs`: how long a batch may wait in all; `retry`: tries the batch again. */
  constructor(
    private readonly busyTimeoutMs: number,
    private readonly retry: () => void,
  ) {}

  /** True while a batch waits for its next try (nothing else may be flushed meanwhile). */
  get waiting(): boolean {
    return this.#timer !== undefined;
  }

  /**
   * The batch found the lock taken: true when it is to be tried again later (the caller puts it
   * back at the head of the queue), false once it has waited the busy timeout (it fails).
   */
  tryLater(): boolean {
    const now = Date.now();
    this.#since ??= now;
    if (now - this.#since >= this.busyTimeoutMs) {
      this.done();
      return false;
    }
    const pause = Math.min(MAX_PAUSE_MS, 2 ** this.#attempt++);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.retry();
    }, pause);
    return true;
  }

  /** The batch got the lock (or gave up): the next one starts its own wait. */
  done(): void {
    this.#since = undefined;
    this.#attempt = 0;
  }

  /** Stops waiting (the connection closes: what is queued is written with the blocking timeout). */
  cancel(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.done();
  }
}
