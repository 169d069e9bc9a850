/**
 * Long-polling GetTask (A2A 1.1 draft, GEN-3): a GetTask with `currentGeneration` is held until
 * the task's generation passes it, the bound is reached, the client goes away or the server
 * closes, then answers with the task as stored. It waits on the EventBus, so an event written
 * by another replica (PostgreSQL bus) wakes it too. Waiters are bounded per principal: past the
 * bound a call returns at once (the draft allows an early return), so nothing grows unbounded.
 */
import type { StoredTask, TaskScope } from '../stores/task-store.js';
import type { HandlerDependencies } from './dependencies.js';

export class LongPolls {
  /** Waiting calls per `tenant \0 principal`. */
  readonly #held = new Map<string, number>();
  /** Wakes every waiting call (close()). */
  readonly #wakers = new Set<() => void>();

  constructor(
    private readonly deps: HandlerDependencies,
    private readonly maxMs: number,
    private readonly maxPerPrincipal: number,
  ) {}

  /** How many calls are held now (for tests and metrics). */
  get size(): number {
    return this.#wakers.size;
  }

  /**
   * The task once its version is past `after`, or as it is when the wait ends. `first` is the
   * record the caller read: returned as it is when it is already past (the draft's MUST).
   */
  async wait(
    scope: TaskScope,
    first: StoredTask,
    after: number,
    signal: AbortSignal | undefined,
  ): Promise<StoredTask | undefined> {
    if (first.version > after || this.maxMs === 0 || this.deps.closed) return first;
    const taskId = first.task.id;
    const key = `${scope.tenant}\u0000${scope.owner}`;
    const held = this.#held.get(key) ?? 0;
    if (held >= this.maxPerPrincipal) return first;
    this.#held.set(key, held + 1);
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    const unsubscribe = this.deps.bus.subscribe(
      { tenant: scope.tenant, taskId, owner: scope.owner },
      (event) => {
        if (event.version > after) wake();
      },
    );
    const timer = setTimeout(wake, this.maxMs);
    timer.unref?.();
    signal?.addEventListener('abort', wake, { once: true });
    this.#wakers.add(wake);
    try {
      // Subscribed first: a change written after `first` was read either shows here or wakes us.
      const now = await this.deps.manager.get(scope, taskId);
      if (!now || now.version > after) return now;
      await woken;
      return await this.deps.manager.get(scope, taskId);
    } finally {
      this.#wakers.delete(wake);
      unsubscribe();
      clearTimeout(timer);
      signal?.removeEventListener('abort', wake);
      const left = (this.#held.get(key) ?? 1) - 1;
      if (left === 0) this.#held.delete(key);
      else this.#held.set(key, left);
    }
  }

  /** Answers every held call now (the server is closing). */
  wakeAll(): void {
    for (const wake of [...this.#wakers]) wake();
  }
}
