/**
 * The task counts per scope and state (`a2a_task_counts`, which ListTasks' totalSize reads),
 * kept by the writes of a transaction and written once at its end: a batch that creates and
 * finishes tasks of one caller changes two or three count rows, where a trigger per task row
 * ran three statements per task (migration 7 dropped the insert and update triggers; the
 * delete trigger stays for retention's deletes).
 */
import type Database from 'better-sqlite3';
import type { Statement } from 'better-sqlite3';

/** One count row's change. */
interface CountChange {
  readonly tenant: string;
  readonly owner: string;
  readonly state: string;
  delta: number;
}

/**
 * Count changes of one write transaction. A write's changes are staged while it runs and kept
 * only when it returns: a write that throws changed no row (the store's writes are atomic), so
 * its counts change nothing either.
 */
export class TaskCountChanges {
  readonly #upsert: Statement;
  /** Changes of the writes kept so far in this transaction, by scope and state. */
  readonly #kept = new Map<string, CountChange>();
  /** Changes of the running write (kept or dropped when it ends). */
  #staged: CountChange[] = [];

  constructor(db: Database.Database) {
    this.#upsert = db.prepare(
      `INSERT INTO a2a_task_counts (tenant, owner, state, n) VALUES (?, ?, ?, ?)
       ON CONFLICT (tenant, owner, state) DO UPDATE SET n = n + excluded.n`,
    );
  }

  /** Counts a task row of `state` added (+1) or left (-1) by the running write. */
  add(tenant: string, owner: string, state: string, delta: number): void {
    this.#staged.push({ tenant, owner, state, delta });
  }

  /** The running write returned: its changes count. */
  keep(): void {
    const staged = this.#staged;
    if (staged.length === 0) return;
    for (const change of staged) {
      const key = `${change.tenant}\u0000${change.owner}\u0000${change.state}`;
      const kept = this.#kept.get(key);
      if (kept) kept.delta += change.delta;
      else this.#kept.set(key, change);
    }
    this.#staged = [];
  }

  /** The running write threw (or the transaction is abandoned): its changes do not count. */
  drop(): void {
    if (this.#staged.length > 0) this.#staged = [];
  }

  /** Writes the kept changes (inside the transaction, before its commit). */
  flush(): void {
    if (this.#kept.size === 0) return;
    try {
      for (const change of this.#kept.values()) {
        if (change.delta !== 0) this.#upsert.run(change.tenant, change.owner, change.state, change.delta);
      }
    } finally {
      this.#kept.clear();
    }
  }

  /** Forgets everything (the transaction was rolled back). */
  reset(): void {
    this.#kept.clear();
    this.#staged = [];
  }
}
