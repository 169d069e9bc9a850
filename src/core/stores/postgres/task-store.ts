/**
 * A {@link TaskStore} on PostgreSQL (`pg`). The same row layout as SQLite: scope, id, the
 * ListTasks columns, the version, and the task as JSON text. Shared by every replica: saves
 * are compare-and-set on the version, idempotency keys are claimed with one
 * INSERT .. ON CONFLICT DO NOTHING, and the page-token secret is one row.
 */
import { randomBytes } from 'node:crypto';
import { INTERRUPTED_STATE_SQL, TERMINAL_STATE_SQL, listSql, storedTask } from '../sql/shared.js';
import { eventLogJson, loggedEvent, trimBelow, type EventRow } from '../sql/event-log.js';
import { eventLogCtes } from './event-log-sql.js';
import {
  TaskVersionConflictError,
  type EventLogWrite,
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
import type pg from 'pg';
import { PostgresLeaseStore } from './lease-store.js';
import { StagedRowWrites, taskRowWrite, type TaskRowStatement } from './row-writes.js';
import type { PostgresDatabase } from './database.js';
import { toNumber } from './database.js';
import { faultAt } from '../fault-points.js';

interface TaskRow {
  id: string;
  version: number;
  status_time_ms: string;
  doc: string;
}

/** How often the count deltas are folded (see compactCounts). */
const COMPACT_EVERY_MS = 2_000;
/** Advisory lock key of the count compaction ("a2acount"). */
const COMPACT_LOCK = '7003767450214166132';

/** Tasks removed per retention statement. */
const PURGE_CHUNK = 1000;

const GET_SQL =
  'SELECT version, status_time_ms, doc FROM a2a_tasks WHERE tenant = $1 AND owner = $2 AND id = $3';
const INSERT_SQL = `INSERT INTO a2a_tasks (tenant, owner, id, context_id, state, status_time_ms, version, doc)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`;
const UPDATE_SQL = `UPDATE a2a_tasks SET context_id = $1, state = $2, status_time_ms = $3, version = $4, doc = $5
  WHERE tenant = $6 AND owner = $7 AND id = $8 AND version = $9`;

// A2A 1.1 draft (GEN-5): the same writes with the change's event log entries, in the same
// statement (so in the same transaction).
function loggedSql(save: string, tenant: number, owner: number, id: number, entries: number): string {
  return `WITH saved AS (${save} RETURNING 1),
  ${eventLogCtes(tenant, owner, id, entries)}
  SELECT count(*) AS saved FROM saved`;
}
const INSERT_LOGGED_SQL = loggedSql(INSERT_SQL, 1, 2, 3, 9);
const UPDATE_LOGGED_SQL = loggedSql(UPDATE_SQL, 6, 7, 8, 10);
const READ_EVENTS_SQL = `SELECT generation, state, doc FROM a2a_task_events
  WHERE tenant = $1 AND owner = $2 AND task_id = $3 AND generation > $4 ORDER BY generation LIMIT $5`;

/** The compare-and-set write of `record` (with its event log entries, when the log is on). */
function rowStatement(
  record: StoredTask,
  expectedVersion: number,
  log: EventLogWrite | undefined,
): TaskRowStatement {
  const task = record.task;
  const doc = JSON.stringify(task);
  const contextId = task.contextId ?? null;
  const state = task.status.state;
  const sql = log
    ? expectedVersion === 0
      ? INSERT_LOGGED_SQL
      : UPDATE_LOGGED_SQL
    : expectedVersion === 0
      ? INSERT_SQL
      : UPDATE_SQL;
  const params: unknown[] =
    expectedVersion === 0
      ? [record.tenant, record.owner, task.id, contextId, state, record.statusTimeMs, record.version, doc]
      : [
          contextId,
          state,
          record.statusTimeMs,
          record.version,
          doc,
          record.tenant,
          record.owner,
          task.id,
          expectedVersion,
        ];
  if (log) params.push(eventLogJson(log), trimBelow(record.version, log.keep));
  return { sql, params, record, doc, expectedVersion };
}

/** Refuses a write that changed no row (the row was not at the expected version). */
function checkSaved(result: pg.QueryResult, statement: TaskRowStatement): void {
  // A logged write answers with its count; a plain one with its row count.
  const logged = result.rows[0] as { saved?: string } | undefined;
  const saved = logged?.saved !== undefined ? toNumber(logged.saved) : result.rowCount;
  if (saved !== 1) throw new TaskVersionConflictError(statement.record.task.id);
}

/** A {@link TaskStore} on PostgreSQL. */
export class PostgresTaskStore extends PostgresLeaseStore implements TaskStore {
  #closed = false;
  readonly #staged: StagedRowWrites<void>;

  #compactTimer: NodeJS.Timeout | undefined;
  #compacting = false;

  /** A store on an open database (see {@link PostgresDatabase.open}); shares its pool. */
  constructor(database: PostgresDatabase) {
    super(database);
    database.retain();
    this.#staged = new StagedRowWrites(
      database,
      (chain) => rowStatement(chain.record, chain.expectedVersion, chain.log),
      checkSaved,
      undefined,
    );
    this.#compactTimer = setInterval(() => void this.compactCounts().catch(() => {}), COMPACT_EVERY_MS);
    this.#compactTimer.unref();
  }

  /**
   * Folds the count deltas written since the last run into one row per scope and state, so
   * counting stays a few rows. One replica at a time (an advisory lock; the others skip).
   */
  async compactCounts(): Promise<void> {
    if (this.#compacting || this.#closed) return;
    this.#compacting = true;
    try {
      faultAt?.('task.counts');
      await this.database.query(
        `WITH lock AS (SELECT pg_try_advisory_xact_lock($1) AS held),
         gone AS (
           DELETE FROM a2a_task_counts
           WHERE (SELECT held FROM lock) AND seq <= (SELECT max(seq) FROM a2a_task_counts)
           RETURNING tenant, owner, state, n)
         INSERT INTO a2a_task_counts (tenant, owner, state, n)
           SELECT tenant, owner, state, sum(n) FROM gone GROUP BY tenant, owner, state HAVING sum(n) <> 0`,
        [COMPACT_LOCK],
      );
    } finally {
      this.#compacting = false;
    }
  }

  async get(scope: TaskScope, id: string): Promise<StoredTask | undefined> {
    const { rows } = await this.database.query<TaskRow>(GET_SQL, [scope.tenant, scope.owner, id]);
    const row = rows[0];
    return row
      ? storedTask(scope.tenant, scope.owner, row.version, toNumber(row.status_time_ms), row.doc)
      : undefined;
  }

  save(record: StoredTask, expectedVersion: number, change?: SaveChange): Promise<void> {
    if (record.version !== expectedVersion + 1) {
      return Promise.reject(new TaskVersionConflictError(record.task.id));
    }
    try {
      faultAt?.(expectedVersion === 0 ? 'task.create' : 'task.update');
    } catch (error) {
      return Promise.reject(error);
    }
    const statement = rowStatement(record, expectedVersion, change?.log);
    return this.#staged.inOrder(record, () =>
      this.database.write(taskRowWrite(this.database, () => statement, checkSaved, undefined)),
    );
  }

  stage(record: StoredTask, expectedVersion: number, change?: SaveChange): Promise<void> {
    return this.#staged.stage(record, expectedVersion, change);
  }

  async list(query: TaskQuery): Promise<TaskPage> {
    const sql = listSql(query, (n) => `$${n}`);
    const limitParam = `$${sql.pageParams.length + 1}`;
    const [page, count] = await Promise.all([
      this.database.query<TaskRow>(
        `SELECT id, version, status_time_ms, doc FROM a2a_tasks WHERE ${sql.pageWhere}
         ORDER BY status_time_ms DESC, id DESC LIMIT ${limitParam}`,
        [...sql.pageParams, query.limit + 1],
      ),
      this.database.query<{ n: string }>(sql.countSql, sql.filterParams),
    ]);
    const rows = page.rows;
    const hasMore = rows.length > query.limit;
    if (hasMore) rows.pop();
    return {
      tasks: rows.map((row) =>
        storedTask(query.tenant, query.owner, row.version, toNumber(row.status_time_ms), row.doc),
      ),
      totalSize: toNumber(count.rows[0]?.n ?? 0),
      hasMore,
    };
  }

  listInterrupted(): Promise<InterruptedTaskRef[]> {
    return this.#interrupted('', []);
  }

  listInterruptedBefore(statusTimeMs: number, limit: number): Promise<InterruptedTaskRef[]> {
    return this.#interrupted(' AND status_time_ms <= $1 ORDER BY status_time_ms LIMIT $2', [
      Math.floor(statusTimeMs),
      Math.max(1, Math.floor(limit)),
    ]);
  }

  /** Interrupted tasks, oldest first unless `tail` orders them itself. */
  async #interrupted(tail: string, params: number[]): Promise<InterruptedTaskRef[]> {
    const { rows } = await this.database.query<{
      tenant: string;
      owner: string;
      id: string;
      status_time_ms: string;
    }>(
      `SELECT tenant, owner, id, status_time_ms FROM a2a_tasks
       WHERE state IN (${INTERRUPTED_STATE_SQL})${tail || ' ORDER BY status_time_ms'}`,
      params,
    );
    return rows.map((row) => ({
      tenant: row.tenant,
      owner: row.owner,
      taskId: row.id,
      statusTimeMs: toNumber(row.status_time_ms),
    }));
  }

  async claimIdempotencyKey(
    key: IdempotencyKey,
    record: IdempotencyRecord,
  ): Promise<IdempotencyRecord | undefined> {
    faultAt?.('idempotency.claim');
    const json = JSON.stringify(record);
    const params = [key.tenant, key.principal, key.messageId];
    // A record removed between the insert and the read (a failed send) is claimed again.
    const insertSql = `INSERT INTO a2a_idempotency (tenant, principal, message_id, status, record, created_ms)
      VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`;
    const insertParams = [...params, record.status, json, Date.now()];
    for (let attempt = 0; attempt < 3; attempt++) {
      // Repeating the insert is safe: a row left by a lost first try is recognised below.
      const inserted = await this.database.write({
        sql: insertSql,
        params: insertParams,
        done: (result) => result.rowCount,
        alone: async () => (await this.database.query(insertSql, insertParams)).rowCount,
      });
      if (inserted === 1) return undefined;
      const existing = await this.database.query<{ record: string }>(
        'SELECT record FROM a2a_idempotency WHERE tenant = $1 AND principal = $2 AND message_id = $3',
        params,
      );
      const row = existing.rows[0];
      // Our own insert, committed before a lost connection hid the answer, is ours.
      if (row) return row.record === json ? undefined : (JSON.parse(row.record) as IdempotencyRecord);
    }
    throw new Error(`idempotency key ${key.messageId} keeps changing; retry the request`);
  }

  async replaceIdempotencyRecord(
    key: IdempotencyKey,
    expected: IdempotencyRecord,
    next: IdempotencyRecord,
  ): Promise<boolean> {
    faultAt?.('idempotency.retake');
    // One statement, compared on the record's text: of two replicas retrying at once, one wins.
    const { rowCount } = await this.database.query(
      `UPDATE a2a_idempotency SET status = $4, record = $5, created_ms = $6
       WHERE tenant = $1 AND principal = $2 AND message_id = $3 AND record = $7`,
      [
        key.tenant,
        key.principal,
        key.messageId,
        next.status,
        JSON.stringify(next),
        Date.now(),
        JSON.stringify(expected),
      ],
    );
    return rowCount === 1;
  }

  async setIdempotencyRecord(key: IdempotencyKey, record: IdempotencyRecord | undefined): Promise<void> {
    const params = [key.tenant, key.principal, key.messageId];
    if (record === undefined) {
      await this.idempotentWrite(
        'idempotency.clear',
        'DELETE FROM a2a_idempotency WHERE tenant = $1 AND principal = $2 AND message_id = $3',
        params,
      );
      return;
    }
    await this.idempotentWrite(
      'idempotency.record',
      `INSERT INTO a2a_idempotency (tenant, principal, message_id, status, record, created_ms)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (tenant, principal, message_id) DO UPDATE SET status = excluded.status, record = excluded.record`,
      [...params, record.status, JSON.stringify(record), Date.now()],
    );
  }

  async readEvents(
    scope: TaskScope,
    taskId: string,
    after: number,
    limit: number,
  ): Promise<LoggedTaskEvent[]> {
    const { rows } = await this.database.query<EventRow>(READ_EVENTS_SQL, [
      scope.tenant,
      scope.owner,
      taskId,
      after,
      limit,
    ]);
    return rows.map(loggedEvent);
  }

  async purgeTerminalBefore(cutoffMs: number): Promise<number> {
    let total = 0;
    // Bounded chunks, each one statement (one transaction): the tasks and their push configs.
    for (;;) {
      faultAt?.('retention.purge');
      const { rows } = await this.database.query<{ n: string }>(
        `WITH gone AS (
           DELETE FROM a2a_tasks WHERE ctid IN (
             SELECT ctid FROM a2a_tasks WHERE state IN (${TERMINAL_STATE_SQL}) AND status_time_ms < $1
             LIMIT ${PURGE_CHUNK})
           RETURNING tenant, owner, id),
         configs AS (
           DELETE FROM a2a_push_configs p USING gone
           WHERE p.tenant = gone.tenant AND p.owner = gone.owner AND p.task_id = gone.id),
         events AS (
           DELETE FROM a2a_task_events e USING gone
           WHERE e.tenant = gone.tenant AND e.owner = gone.owner AND e.task_id = gone.id)
         SELECT count(*) AS n FROM gone`,
        [cutoffMs],
      );
      const n = toNumber(rows[0]?.n ?? 0);
      total += n;
      if (n < PURGE_CHUNK) return total;
    }
  }

  async purgeIdempotencyBefore(cutoffMs: number): Promise<number> {
    let total = 0;
    for (;;) {
      // One bounded statement per chunk (safe to repeat: a retry deletes what is still there).
      faultAt?.('retention.purge');
      const { rowCount } = await this.database.query(
        `DELETE FROM a2a_idempotency WHERE ctid IN (
           SELECT ctid FROM a2a_idempotency WHERE created_ms < $1 LIMIT ${PURGE_CHUNK})`,
        [cutoffMs],
      );
      const n = rowCount ?? 0;
      total += n;
      if (n < PURGE_CHUNK) return total;
    }
  }

  async getOrCreateSecret(name: string): Promise<Uint8Array> {
    faultAt?.('secret.create');
    await this.database.query(
      'INSERT INTO a2a_secrets (name, value) VALUES ($1, $2) ON CONFLICT DO NOTHING',
      [name, randomBytes(32)],
    );
    const { rows } = await this.database.query<{ value: Buffer }>(
      'SELECT value FROM a2a_secrets WHERE name = $1',
      [name],
    );
    return new Uint8Array(rows[0]!.value);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#compactTimer);
    await this.database.release();
  }
}
