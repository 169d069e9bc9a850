/**
 * A {@link TaskStore} in one SQLite file (better-sqlite3). One row per task: the scope, id,
 * the columns ListTasks filters and sorts on, the version, and the task as JSON. Reads run at
 * once; writes are batched per turn of the event loop (see {@link SqliteDatabase.write}).
 */
import { randomBytes } from 'node:crypto';
import type { Statement } from 'better-sqlite3';
import { INTERRUPTED_STATE_SQL, TERMINAL_STATE_SQL, listSql, storedTask } from '../sql/shared.js';
import { loggedEvent, type EventRow } from '../sql/event-log.js';
import {
  TaskVersionConflictError,
  type IdempotencyKey,
  type IdempotencyRecord,
  type InterruptedTaskRef,
  type LoggedTaskEvent,
  type SaveChange,
  type StoredTask,
  type TaskPage,
  type TaskQuery,
  type TaskScope,
  type TaskStore,
} from '../task-store.js';
import type { LeaseRef, LeaseStore } from '../leases.js';
import { AT_COMMIT, SqliteDatabase, type SqliteOptions } from './database.js';
import { faultAt } from '../fault-points.js';
import { StagedTaskWrites } from './staged-writes.js';
import { prepareTaskRowStatements, writeTaskRow, type TaskRowStatements } from './task-rows.js';

interface TaskRow {
  version: number;
  status_time_ms: number;
  doc: string;
}

/** Tasks removed per retention transaction (the writer lock is held that long, no longer). */
const PURGE_CHUNK = 500;

/** A {@link TaskStore} in SQLite. */
export class SqliteTaskStore implements TaskStore, LeaseStore {
  readonly database: SqliteDatabase;
  readonly #get: Statement<[string, string, string], TaskRow>;
  readonly #rows: TaskRowStatements;
  readonly #staged: StagedTaskWrites;
  readonly #claim: Statement;
  readonly #readClaim: Statement<[string, string, string], { record: string }>;
  readonly #upsertClaim: Statement;
  readonly #deleteClaim: Statement;
  readonly #replaceClaim: Statement;
  readonly #liveLease: Statement<[string, string, string, number], { n: number }>;
  readonly #upsertLease: Statement;
  readonly #renewLeases: Statement;
  readonly #deleteLease: Statement;
  /** Prepared ListTasks statements by SQL text (at most 16 filter combinations, times 2). */
  readonly #listStatements = new Map<string, Statement>();
  #closed = false;
  /** GEN-5: prepared on first use (a store nobody resumes from never prepares it). */
  #readEvents: Statement | undefined;

  /**
   * A store on `database` (shared with a {@link SqlitePushConfigStore} when both are given the
   * same one), or on the file at `path`.
   */
  constructor(database: SqliteDatabase | string, options: SqliteOptions = {}) {
    this.database = typeof database === 'string' ? SqliteDatabase.open(database, options) : database.retain();
    const db = this.database.db;
    this.#get = db.prepare(
      'SELECT version, status_time_ms, doc FROM a2a_tasks WHERE tenant = ? AND owner = ? AND id = ?',
    );
    this.#rows = prepareTaskRowStatements(this.database);
    const rows = this.#rows;
    this.#staged = new StagedTaskWrites(this.database, (record, expectedVersion, doc, _payloads, change) => {
      writeTaskRow(rows, record, expectedVersion, doc, change);
      return 0;
    });
    this.#claim = db.prepare(
      `INSERT INTO a2a_idempotency (tenant, principal, message_id, status, record, created_ms)
       VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
    );
    this.#readClaim = db.prepare(
      'SELECT record FROM a2a_idempotency WHERE tenant = ? AND principal = ? AND message_id = ?',
    );
    this.#upsertClaim = db.prepare(
      `INSERT INTO a2a_idempotency (tenant, principal, message_id, status, record, created_ms)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (tenant, principal, message_id) DO UPDATE SET status = excluded.status, record = excluded.record`,
    );
    this.#deleteClaim = db.prepare(
      'DELETE FROM a2a_idempotency WHERE tenant = ? AND principal = ? AND message_id = ?',
    );
    this.#replaceClaim = db.prepare(
      `UPDATE a2a_idempotency SET status = ?, record = ?, created_ms = ?
       WHERE tenant = ? AND principal = ? AND message_id = ? AND record = ?`,
    );
    this.#liveLease = db.prepare(
      'SELECT count(*) AS n FROM a2a_leases WHERE tenant = ? AND owner = ? AND task_id = ? AND until_ms >= ?',
    );
    this.#upsertLease = db.prepare(
      `INSERT INTO a2a_leases (tenant, owner, task_id, worker, until_ms) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (tenant, owner, task_id, worker) DO UPDATE SET until_ms = excluded.until_ms`,
    );
    this.#renewLeases = db.prepare('UPDATE a2a_leases SET until_ms = ? WHERE worker = ?');
    this.#deleteLease = db.prepare(
      'DELETE FROM a2a_leases WHERE tenant = ? AND owner = ? AND task_id = ? AND worker = ?',
    );
  }

  get(scope: TaskScope, id: string): Promise<StoredTask | undefined> {
    try {
      this.database.check();
      const row = this.#get.get(scope.tenant, scope.owner, id);
      return Promise.resolve(
        row ? storedTask(scope.tenant, scope.owner, row.version, row.status_time_ms, row.doc) : undefined,
      );
    } catch (error) {
      return Promise.reject(error);
    }
  }

  save(record: StoredTask, expectedVersion: number, change?: SaveChange): Promise<void> {
    const task = record.task;
    if (record.version !== expectedVersion + 1) return Promise.reject(new TaskVersionConflictError(task.id));
    const doc = JSON.stringify(task);
    return this.database.write(() => {
      faultAt?.(expectedVersion === 0 ? 'task.create' : 'task.update');
      return writeTaskRow(this.#rows, record, expectedVersion, doc, change);
    });
  }

  stage(record: StoredTask, expectedVersion: number, change?: SaveChange): Promise<void> {
    return this.#staged.stage(record, expectedVersion, change);
  }

  readEvents(scope: TaskScope, taskId: string, after: number, limit: number): Promise<LoggedTaskEvent[]> {
    try {
      this.#readEvents ??= this.database.db.prepare(
        `SELECT generation, state, doc FROM a2a_task_events
         WHERE tenant = ? AND owner = ? AND task_id = ? AND generation > ? ORDER BY generation LIMIT ?`,
      );
      const rows = this.#readEvents.all(scope.tenant, scope.owner, taskId, after, limit) as EventRow[];
      return Promise.resolve(rows.map(loggedEvent));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  list(query: TaskQuery): Promise<TaskPage> {
    try {
      this.database.check();
      const sql = listSql(query, () => '?');
      const count = this.#statement(sql.countSql);
      const page = this.#statement(
        `SELECT id, version, status_time_ms, doc FROM a2a_tasks WHERE ${sql.pageWhere}
         ORDER BY status_time_ms DESC, id DESC LIMIT ?`,
      );
      const rows = page.all(...sql.pageParams, query.limit + 1) as (TaskRow & { id: string })[];
      const { n } = count.get(...sql.filterParams) as { n: number };
      const hasMore = rows.length > query.limit;
      if (hasMore) rows.pop();
      return Promise.resolve({
        tasks: rows.map((row) =>
          storedTask(query.tenant, query.owner, row.version, row.status_time_ms, row.doc),
        ),
        totalSize: n,
        hasMore,
      });
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #statement(sql: string): Statement {
    let statement = this.#listStatements.get(sql);
    if (!statement) {
      statement = this.database.db.prepare(sql);
      this.#listStatements.set(sql, statement);
    }
    return statement;
  }

  listInterrupted(): Promise<InterruptedTaskRef[]> {
    try {
      this.database.check();
      const rows = this.database.db
        .prepare(
          `SELECT tenant, owner, id, status_time_ms FROM a2a_tasks
           WHERE state IN (${INTERRUPTED_STATE_SQL}) ORDER BY status_time_ms`,
        )
        .all() as { tenant: string; owner: string; id: string; status_time_ms: number }[];
      return Promise.resolve(
        rows.map((row) => ({
          tenant: row.tenant,
          owner: row.owner,
          taskId: row.id,
          statusTimeMs: row.status_time_ms,
        })),
      );
    } catch (error) {
      return Promise.reject(error);
    }
  }

  claimIdempotencyKey(
    key: IdempotencyKey,
    record: IdempotencyRecord,
  ): Promise<IdempotencyRecord | undefined> {
    const json = JSON.stringify(record);
    // At its commit: a claim tells nobody anything by itself, and the task's first write,
    // acknowledged on disk, is later in the log and so makes the claim durable too.
    return this.database.write(() => {
      faultAt?.('idempotency.claim');
      const { tenant, principal, messageId } = key;
      if (this.#claim.run(tenant, principal, messageId, record.status, json, Date.now()).changes === 1) {
        return undefined;
      }
      const existing = this.#readClaim.get(tenant, principal, messageId);
      return existing ? (JSON.parse(existing.record) as IdempotencyRecord) : undefined;
    }, AT_COMMIT);
  }

  replaceIdempotencyRecord(
    key: IdempotencyKey,
    expected: IdempotencyRecord,
    next: IdempotencyRecord,
  ): Promise<boolean> {
    const before = JSON.stringify(expected);
    const after = JSON.stringify(next);
    return this.database.write(() => {
      faultAt?.('idempotency.retake');
      return (
        this.#replaceClaim.run(
          next.status,
          after,
          Date.now(),
          key.tenant,
          key.principal,
          key.messageId,
          before,
        ).changes === 1
      );
    });
  }

  setIdempotencyRecord(key: IdempotencyKey, record: IdempotencyRecord | undefined): Promise<void> {
    const json = record === undefined ? undefined : JSON.stringify(record);
    return this.database.write(() => {
      faultAt?.(record === undefined ? 'idempotency.clear' : 'idempotency.record');
      if (record === undefined) this.#deleteClaim.run(key.tenant, key.principal, key.messageId);
      else this.#upsertClaim.run(key.tenant, key.principal, key.messageId, record.status, json, Date.now());
    });
  }

  async purgeTerminalBefore(cutoffMs: number): Promise<number> {
    const db = this.database.db;
    // Each caller's terminal tasks, oldest first, through a2a_tasks_state; the callers holding
    // any are in the counts table.
    const scopes = db.prepare(
      `SELECT tenant, owner, state FROM a2a_task_counts WHERE state IN (${TERMINAL_STATE_SQL}) AND n > 0`,
    );
    const select = db.prepare(
      `SELECT id FROM a2a_tasks WHERE tenant = ? AND owner = ? AND state = ? AND status_time_ms < ?
       ORDER BY status_time_ms LIMIT ${PURGE_CHUNK}`,
    );
    const deleteTask = db.prepare(
      'DELETE FROM a2a_tasks WHERE tenant = ? AND owner = ? AND id = ? AND state = ?',
    );
    const deleteConfigs = db.prepare(
      'DELETE FROM a2a_push_configs WHERE tenant = ? AND owner = ? AND task_id = ?',
    );
    const deleteEvents = db.prepare(
      'DELETE FROM a2a_task_events WHERE tenant = ? AND owner = ? AND task_id = ?',
    );
    let total = 0;
    const groups = scopes.all() as { tenant: string; owner: string; state: string }[];
    for (const { tenant, owner, state } of groups) {
      // Bounded chunks, each its own transaction through the write queue: other writes interleave.
      for (;;) {
        const removed = await this.database.write(() => {
          faultAt?.('retention.purge');
          const rows = select.all(tenant, owner, state, cutoffMs) as { id: string }[];
          let n = 0;
          for (const row of rows) {
            if (deleteTask.run(tenant, owner, row.id, state).changes === 1) {
              if (deleteConfigs.run(tenant, owner, row.id).changes > 0) this.database.pushConfigs.removed();
              deleteEvents.run(tenant, owner, row.id);
              n++;
            }
          }
          return { n, more: rows.length === PURGE_CHUNK };
        });
        total += removed.n;
        if (!removed.more) break;
      }
    }
    return total;
  }

  async purgeIdempotencyBefore(cutoffMs: number): Promise<number> {
    // Rowids grow with each new key, so the oldest records come first in rowid order: each
    // chunk looks at the next PURGE_CHUNK of them and stops the walk at the first young one.
    const purge = this.database.db.prepare(
      `DELETE FROM a2a_idempotency WHERE rowid IN (
         SELECT rowid FROM (SELECT rowid, created_ms FROM a2a_idempotency ORDER BY rowid LIMIT ${PURGE_CHUNK})
         WHERE created_ms < ?)`,
    );
    let total = 0;
    for (;;) {
      const n = await this.database.write(() => {
        faultAt?.('retention.purge');
        return purge.run(cutoffMs).changes;
      });
      total += n;
      if (n < PURGE_CHUNK) return total;
    }
  }

  getOrCreateSecret(name: string): Promise<Uint8Array> {
    return this.database.write(() => {
      faultAt?.('secret.create');
      const db = this.database.db;
      db.prepare('INSERT INTO a2a_secrets (name, value) VALUES (?, ?) ON CONFLICT DO NOTHING').run(
        name,
        randomBytes(32),
      );
      const row = db.prepare('SELECT value FROM a2a_secrets WHERE name = ?').get(name) as { value: Buffer };
      return new Uint8Array(row.value);
    });
  }

  acquireLease(ref: LeaseRef, untilMs: number): Promise<void> {
    // At its commit: the task's writes that wait for it come later in the log, so one of
    // them acknowledged on disk makes the lease durable too (and a lost lease has no task).
    return this.database.write(() => {
      faultAt?.('lease.acquire');
      this.#upsertLease.run(ref.tenant, ref.owner, ref.taskId, ref.worker, untilMs);
    }, AT_COMMIT);
  }

  hasLiveLease(tenant: string, owner: string, taskId: string, nowMs: number): Promise<boolean> {
    try {
      return Promise.resolve((this.#liveLease.get(tenant, owner, taskId, nowMs)?.n ?? 0) > 0);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  renewLeases(worker: string, untilMs: number): Promise<void> {
    return this.database.write(() => {
      faultAt?.('lease.renew');
      this.#renewLeases.run(untilMs, worker);
    });
  }

  releaseLease(ref: LeaseRef): Promise<void> {
    return this.database.write(() => {
      faultAt?.('lease.release');
      this.#deleteLease.run(ref.tenant, ref.owner, ref.taskId, ref.worker);
    });
  }

  expiredLeases(nowMs: number, limit: number): Promise<LeaseRef[]> {
    try {
      this.database.check();
      const rows = this.database.db
        .prepare(
          'SELECT tenant, owner, task_id, worker FROM a2a_leases WHERE until_ms < ? ORDER BY until_ms LIMIT ?',
        )
        .all(nowMs, limit) as { tenant: string; owner: string; task_id: string; worker: string }[];
      return Promise.resolve(
        rows.map((row) => ({
          tenant: row.tenant,
          owner: row.owner,
          taskId: row.task_id,
          worker: row.worker,
        })),
      );
    } catch (error) {
      return Promise.reject(error);
    }
  }

  takeOverLease(ref: LeaseRef, worker: string, nowMs: number, untilMs: number): Promise<boolean> {
    return this.database.write(() => {
      faultAt?.('lease.takeover');
      const db = this.database.db;
      const taken = db
        .prepare(
          `DELETE FROM a2a_leases WHERE tenant = ? AND owner = ? AND task_id = ? AND worker = ? AND until_ms < ?`,
        )
        .run(ref.tenant, ref.owner, ref.taskId, ref.worker, nowMs).changes;
      if (taken !== 1) return false;
      db.prepare(
        `INSERT INTO a2a_leases (tenant, owner, task_id, worker, until_ms) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (tenant, owner, task_id, worker) DO UPDATE SET until_ms = excluded.until_ms`,
      ).run(ref.tenant, ref.owner, ref.taskId, worker, untilMs);
      return true;
    });
  }

  close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      this.database.release();
    }
    return Promise.resolve();
  }
}
