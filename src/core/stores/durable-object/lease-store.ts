/**
 * The execution leases of crash recovery (see ../leases.ts) in a Durable Object's storage, the
 * SQLite store's rows and statements: the part of `DurableObjectTaskStore` that is the
 * {@link LeaseStore}. Leases outlive the object in memory: after a restart, the next
 * incarnation's heartbeat finds those of the one that went away expired and ends their tasks.
 */
import type { LeaseRef, LeaseStore } from '../leases.js';
import { changedRows, settle, type DurableObjectStorageLike, type SqlStorageLike } from './sql-storage.js';

interface LeaseRow {
  [column: string]: string;
  tenant: string;
  owner: string;
  task_id: string;
  worker: string;
}

/** A {@link LeaseStore} over a Durable Object's storage (its table made by the schema's migrations). */
export class DurableObjectLeaseStore implements LeaseStore {
  readonly #storage: DurableObjectStorageLike;
  readonly #sql: SqlStorageLike;

  constructor(storage: DurableObjectStorageLike) {
    this.#storage = storage;
    this.#sql = storage.sql;
  }

  acquireLease(ref: LeaseRef, untilMs: number): Promise<void> {
    return settle(() => this.#upsert(ref, ref.worker, untilMs));
  }

  /** Takes (or extends) the lease of `ref`'s task for `worker` until `untilMs`. */
  #upsert(ref: LeaseRef, worker: string, untilMs: number): void {
    this.#sql.exec(
      `INSERT INTO a2a_leases (tenant, owner, task_id, worker, until_ms) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (tenant, owner, task_id, worker) DO UPDATE SET until_ms = excluded.until_ms`,
      ref.tenant,
      ref.owner,
      ref.taskId,
      worker,
      untilMs,
    );
  }

  hasLiveLease(tenant: string, owner: string, taskId: string, nowMs: number): Promise<boolean> {
    return settle(
      () =>
        this.#sql
          .exec<{ n: number }>(
            'SELECT count(*) AS n FROM a2a_leases WHERE tenant = ? AND owner = ? AND task_id = ? AND until_ms >= ?',
            tenant,
            owner,
            taskId,
            nowMs,
          )
          .one().n > 0,
    );
  }

  renewLeases(worker: string, untilMs: number): Promise<void> {
    return settle(() => {
      this.#sql.exec('UPDATE a2a_leases SET until_ms = ? WHERE worker = ?', untilMs, worker);
    });
  }

  releaseLease(ref: LeaseRef): Promise<void> {
    return settle(() => {
      this.#sql.exec(
        'DELETE FROM a2a_leases WHERE tenant = ? AND owner = ? AND task_id = ? AND worker = ?',
        ref.tenant,
        ref.owner,
        ref.taskId,
        ref.worker,
      );
    });
  }

  expiredLeases(nowMs: number, limit: number): Promise<LeaseRef[]> {
    return settle(() =>
      this.#sql
        .exec<LeaseRow>(
          'SELECT tenant, owner, task_id, worker FROM a2a_leases WHERE until_ms < ? ORDER BY until_ms LIMIT ?',
          nowMs,
          limit,
        )
        .toArray()
        .map((row) => ({ tenant: row.tenant, owner: row.owner, taskId: row.task_id, worker: row.worker })),
    );
  }

  takeOverLease(ref: LeaseRef, worker: string, nowMs: number, untilMs: number): Promise<boolean> {
    return settle(() =>
      this.#storage.transactionSync(() => {
        const taken = changedRows(
          this.#sql.exec(
            `DELETE FROM a2a_leases WHERE tenant = ? AND owner = ? AND task_id = ? AND worker = ? AND until_ms < ?
             RETURNING 1 AS changed`,
            ref.tenant,
            ref.owner,
            ref.taskId,
            ref.worker,
            nowMs,
          ),
        );
        if (taken !== 1) return false;
        this.#upsert(ref, worker, untilMs);
        return true;
      }),
    );
  }
}
