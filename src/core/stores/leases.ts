/**
 * Leases of running executions, for crash recovery. A process (a worker) holds a lease on each
 * task whose agent it is running and renews all of them with one heartbeat; a lease that is
 * not renewed in time belongs to a worker that died (kill -9, a lost machine). Another worker
 * (or the next start) takes it over and ends the task. Implemented by the SQLite and
 * PostgreSQL task stores; the memory store has nothing to recover after a crash.
 */

/** One execution's lease. */
export interface LeaseRef {
  readonly tenant: string;
  readonly owner: string;
  readonly taskId: string;
  /** The worker holding it. */
  readonly worker: string;
}

/** The lease operations a TaskStore may offer (see {@link isLeaseStore}). */
export interface LeaseStore {
  /** Takes (or extends) the lease of `worker` on a task until `untilMs`. */
  acquireLease(ref: LeaseRef, untilMs: number): Promise<void>;
  /** Extends every lease of `worker` to `untilMs` (one statement: the heartbeat). */
  renewLeases(worker: string, untilMs: number): Promise<void>;
  /** Drops a lease (the execution ended). */
  releaseLease(ref: LeaseRef): Promise<void>;
  /** Up to `limit` leases that ran out before `nowMs`, oldest first. */
  expiredLeases(nowMs: number, limit: number): Promise<LeaseRef[]>;
  /**
   * Moves an expired lease of `ref.worker` to `worker` until `untilMs`; false when another
   * worker took it first or it was renewed (the worker is alive after all).
   */
  takeOverLease(ref: LeaseRef, worker: string, nowMs: number, untilMs: number): Promise<boolean>;
  /**
   * True when some worker holds a lease on the task that has not run out at `nowMs` (its
   * execution may still be running). Optional: without it a pending send is taken for gone
   * once the lease time has passed since its claim.
   */
  hasLiveLease?(tenant: string, owner: string, taskId: string, nowMs: number): Promise<boolean>;
}

/** True when `store` keeps execution leases. */
export function isLeaseStore(store: object): store is LeaseStore {
  const candidate = store as Partial<LeaseStore>;
  return (
    typeof candidate.acquireLease === 'function' &&
    typeof candidate.renewLeases === 'function' &&
    typeof candidate.releaseLease === 'function' &&
    typeof candidate.expiredLeases === 'function' &&
    typeof candidate.takeOverLease === 'function'
  );
}
