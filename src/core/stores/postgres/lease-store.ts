/**
 * Execution leases on PostgreSQL (`a2a_leases`), shared by every replica: a lease is taken,
 * renewed and released by its worker, and an expired one is taken over by one replica only.
 * PostgresTaskStore is one (the leases live beside the tasks, in the same database).
 */
import type { LeaseRef, LeaseStore } from '../leases.js';
import { faultAt, type WritePoint } from '../fault-points.js';
import { toNumber, type PostgresDatabase } from './database.js';

/** The {@link LeaseStore} half of the PostgreSQL task store. */
export class PostgresLeaseStore implements LeaseStore {
  constructor(readonly database: PostgresDatabase) {}

  /** A batched write that is safe to repeat as it is (an upsert or a delete). */
  protected async idempotentWrite(point: WritePoint, sql: string, params: unknown[]): Promise<void> {
    faultAt?.(point);
    await this.database.writeRepeatable(sql, params);
  }

  async acquireLease(ref: LeaseRef, untilMs: number): Promise<void> {
    await this.idempotentWrite(
      'lease.acquire',
      `INSERT INTO a2a_leases (tenant, owner, task_id, worker, until_ms) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (tenant, owner, task_id, worker) DO UPDATE SET until_ms = excluded.until_ms`,
      [ref.tenant, ref.owner, ref.taskId, ref.worker, untilMs],
    );
  }

  async renewLeases(worker: string, untilMs: number): Promise<void> {
    await this.idempotentWrite('lease.renew', 'UPDATE a2a_leases SET until_ms = $1 WHERE worker = $2', [
      untilMs,
      worker,
    ]);
  }

  async releaseLease(ref: LeaseRef): Promise<void> {
    await this.idempotentWrite(
      'lease.release',
      'DELETE FROM a2a_leases WHERE tenant = $1 AND owner = $2 AND task_id = $3 AND worker = $4',
      [ref.tenant, ref.owner, ref.taskId, ref.worker],
    );
  }

  async hasLiveLease(tenant: string, owner: string, taskId: string, nowMs: number): Promise<boolean> {
    const { rows } = await this.database.query<{ n: string }>(
      'SELECT count(*) AS n FROM a2a_leases WHERE tenant = $1 AND owner = $2 AND task_id = $3 AND until_ms >= $4',
      [tenant, owner, taskId, nowMs],
    );
    return toNumber(rows[0]?.n ?? 0) > 0;
  }

  async expiredLeases(nowMs: number, limit: number): Promise<LeaseRef[]> {
    const { rows } = await this.database.query<{
      tenant: string;
      owner: string;
      task_id: string;
      worker: string;
    }>(
      'SELECT tenant, owner, task_id, worker FROM a2a_leases WHERE until_ms < $1 ORDER BY until_ms LIMIT $2',
      [nowMs, limit],
    );
    return rows.map((row) => ({
      tenant: row.tenant,
      owner: row.owner,
      taskId: row.task_id,
      worker: row.worker,
    }));
  }

  async takeOverLease(ref: LeaseRef, worker: string, nowMs: number, untilMs: number): Promise<boolean> {
    faultAt?.('lease.takeover');
    // One statement: the expired lease is moved to `worker` only if it is still expired and
    // still the old worker's (two replicas racing: one wins).
    const { rowCount } = await this.database.query(
      `UPDATE a2a_leases SET worker = $5, until_ms = $6
       WHERE tenant = $1 AND owner = $2 AND task_id = $3 AND worker = $4 AND until_ms < $7`,
      [ref.tenant, ref.owner, ref.taskId, ref.worker, worker, untilMs, nowMs],
    );
    return rowCount === 1;
  }
}
