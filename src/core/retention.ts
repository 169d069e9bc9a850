/**
 * The retention job of a handler: at start and then every `intervalMs`, deletes the
 * idempotency records older than their age (the idempotency window by default) and, when an
 * age is configured, the terminal tasks older than it. Each store deletes in bounded chunks,
 * one transaction each, so other writes go on meanwhile. Every replica on a shared store runs
 * it; the deletes are idempotent, so replicas racing only repeat each other's work.
 */
import type { TaskStore } from './stores/task-store.js';

/** Options of the retention job (`DefaultRequestHandlerOptions.retention`). */
export interface RetentionOptions {
  /**
   * Idempotency records whose messageId was first used longer ago than this are deleted.
   * Never shorter than the idempotency window (`idempotencyTtlMs`): a repeat inside the
   * window must still find its record. `Infinity` keeps them.
   * @default the idempotency window (24 hours; 24 hours too when de-duplication is off)
   */
  idempotencyRecordsMaxAgeMs?: number;
  /**
   * Terminal tasks (COMPLETED, FAILED, CANCELED, REJECTED) whose `status.timestamp` is older
   * than this are deleted, with their push configs. @default Infinity (kept)
   */
  terminalTasksMaxAgeMs?: number;
  /** How often the job runs. @default 600000 (10 minutes) */
  intervalMs?: number;
}

/** What one run deleted. */
export interface RetentionRun {
  readonly idempotencyRecords: number;
  readonly terminalTasks: number;
}

const DEFAULT_INTERVAL_MS = 10 * 60_000;
const DAY_MS = 24 * 60 * 60_000;

/** A handler's retention job over its task store. */
export class StoreRetention {
  readonly #store: TaskStore;
  readonly #idempotencyMaxAgeMs: number;
  readonly #terminalMaxAgeMs: number;
  readonly #intervalMs: number;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<RetentionRun> | undefined;
  #closed = false;

  /** `idempotencyTtlMs` is the handler's idempotency window (`0`: de-duplication off). */
  constructor(store: TaskStore, options: RetentionOptions, idempotencyTtlMs: number) {
    this.#store = store;
    const window = idempotencyTtlMs > 0 ? idempotencyTtlMs : DAY_MS;
    this.#idempotencyMaxAgeMs = options.idempotencyRecordsMaxAgeMs ?? window;
    this.#terminalMaxAgeMs = options.terminalTasksMaxAgeMs ?? Infinity;
    this.#intervalMs = options.intervalMs ?? DEFAULT_INTERVAL_MS;
    if (!(this.#idempotencyMaxAgeMs >= idempotencyTtlMs)) {
      throw new RangeError(
        `retention.idempotencyRecordsMaxAgeMs must be at least idempotencyTtlMs (${idempotencyTtlMs} ms), got ${String(options.idempotencyRecordsMaxAgeMs)}`,
      );
    }
    if (!(this.#terminalMaxAgeMs >= 0)) {
      throw new RangeError(
        `retention.terminalTasksMaxAgeMs must be >= 0 ms, got ${String(options.terminalTasksMaxAgeMs)}`,
      );
    }
    if (!(this.#intervalMs > 0) || !Number.isFinite(this.#intervalMs)) {
      throw new RangeError(
        `retention.intervalMs must be a finite number > 0, got ${String(options.intervalMs)}`,
      );
    }
  }

  /** True when there is something this job would delete on this store. */
  get active(): boolean {
    return (
      (Number.isFinite(this.#idempotencyMaxAgeMs) && this.#store.purgeIdempotencyBefore !== undefined) ||
      (Number.isFinite(this.#terminalMaxAgeMs) && this.#store.purgeTerminalBefore !== undefined)
    );
  }

  /** Runs once now, then every interval (the timer does not keep the process alive). */
  start(): void {
    if (!this.active || this.#closed) return;
    this.#timer = setInterval(() => void this.run().catch(() => {}), this.#intervalMs);
    this.#timer.unref?.(); // workerd: timers without unref
    void this.run().catch(() => {});
  }

  /** One run (joins the one under way); rejects when the store fails (the next run retries). */
  run(now = Date.now()): Promise<RetentionRun> {
    this.#running ??= this.#purge(now).finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #purge(now: number): Promise<RetentionRun> {
    const store = this.#store;
    let idempotencyRecords = 0;
    let terminalTasks = 0;
    if (Number.isFinite(this.#idempotencyMaxAgeMs) && store.purgeIdempotencyBefore && !this.#closed) {
      idempotencyRecords = await store.purgeIdempotencyBefore(now - this.#idempotencyMaxAgeMs);
    }
    if (Number.isFinite(this.#terminalMaxAgeMs) && store.purgeTerminalBefore && !this.#closed) {
      terminalTasks = await store.purgeTerminalBefore(now - this.#terminalMaxAgeMs);
    }
    return { idempotencyRecords, terminalTasks };
  }

  /**
   * Stops the job. A run under way is not waited for: it stops at its next step, or fails
   * harmlessly once the store is closed (what it deleted stays deleted).
   */
  close(): void {
    this.#closed = true;
    clearInterval(this.#timer);
  }
}
