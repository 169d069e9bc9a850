/**
 * The PostgreSQL push outbox's change statements: a task row write and, in the same statement,
 * one notification per push config of the task for each change the write holds (one, or
 * several when staged changes were joined), only when the row was written.
 */
import type pg from 'pg';
import { MAX_CONFIGS_PER_TASK, type QueuedNotification } from '../sql/push-outbox-rows.js';
import { eventLogJson, trimBelow } from '../sql/event-log.js';
import { TaskVersionConflictError, type EventLogWrite, type StoredTask } from '../task-store.js';
import { eventLogCtes } from './event-log-sql.js';
import { toNumber } from './database.js';
import type { TaskRowStatement } from './row-writes.js';

interface ChangeRow {
  saved: string;
  queued: string;
}

/**
 * Enqueues the change's notification (`$p` payload, `$n` now) once `saved` wrote the task row;
 * its generation is the version written (`$7`, GEN-6).
 */
function enqueueSql(p: number, n: number): string {
  return `queued AS (
    INSERT INTO a2a_push_outbox
      (id, tenant, owner, task_id, config_id, payload, generation, state, head, created_ms, next_attempt_ms)
    SELECT gen_random_uuid()::text, c.tenant, c.owner, c.task_id, c.id, $${p}, $7::bigint, 'pending',
      a2a_push_is_head(c.tenant, c.owner, c.task_id, c.id), $${n}, $${n}
    FROM a2a_push_configs c
    WHERE c.tenant = $1 AND c.owner = $2 AND c.task_id = $3 AND $${p}::text IS NOT NULL
      AND EXISTS (SELECT 1 FROM saved)
    ORDER BY c.id LIMIT ${MAX_CONFIGS_PER_TASK}
    RETURNING 1)
  SELECT (SELECT count(*) FROM saved) AS saved, (SELECT count(*) FROM queued) AS queued`;
}

/**
 * The same for several changes joined into one row write (staged): `$p` is a JSON array of
 * `{payload, generation}` (each stage's own version), enqueued in order per config (so in `seq`
 * order); only a config's first one can be its head, the later ones queue behind it.
 */
function enqueueManySql(p: number, n: number): string {
  return `queued AS (
    INSERT INTO a2a_push_outbox
      (id, tenant, owner, task_id, config_id, payload, generation, state, head, created_ms, next_attempt_ms)
    SELECT gen_random_uuid()::text, c.tenant, c.owner, c.task_id, c.id, e.payload, e.generation, 'pending',
      e.n = 1 AND a2a_push_is_head(c.tenant, c.owner, c.task_id, c.id), $${n}, $${n}
    FROM (
      SELECT tenant, owner, task_id, id FROM a2a_push_configs
      WHERE tenant = $1 AND owner = $2 AND task_id = $3 AND EXISTS (SELECT 1 FROM saved)
      ORDER BY id LIMIT ${MAX_CONFIGS_PER_TASK}) c
    CROSS JOIN ROWS FROM (json_to_recordset($${p}::json) AS (payload text, generation bigint))
      WITH ORDINALITY AS e(payload, generation, n)
    ORDER BY e.n, c.id
    RETURNING 1)
  SELECT (SELECT count(*) FROM saved) AS saved, (SELECT count(*) FROM queued) AS queued`;
}

// Parameters: $1 tenant, $2 owner, $3 id, $4 context_id, $5 state, $6 status_time_ms,
// $7 version, $8 doc, $9 expected version (update only), then payload(s) and now, then (GEN-5)
// the event log entries and the trim.
const INSERT_ROW = `WITH saved AS (
    INSERT INTO a2a_tasks (tenant, owner, id, context_id, state, status_time_ms, version, doc)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING RETURNING 1),`;
const UPDATE_ROW = `WITH saved AS (
    UPDATE a2a_tasks SET context_id = $4, state = $5, status_time_ms = $6, version = $7, doc = $8
    WHERE tenant = $1 AND owner = $2 AND id = $3 AND version = $9 RETURNING 1),`;

/** The change statements by [insert, many payloads, logged] (built once each). */
const CHANGE_SQL = new Map<string, string>();
function changeSql(insert: boolean, many: boolean, logged: boolean): string {
  const key = `${insert}${many}${logged}`;
  let sql = CHANGE_SQL.get(key);
  if (sql === undefined) {
    const p = insert ? 9 : 10;
    const log = logged ? `${eventLogCtes(1, 2, 3, p + 2)},\n  ` : '';
    sql = `${insert ? INSERT_ROW : UPDATE_ROW}\n  ${log}${(many ? enqueueManySql : enqueueSql)(p, p + 1)}`;
    CHANGE_SQL.set(key, sql);
  }
  return sql;
}

/** The row write of `record` with its notifications (`payloads`: one per change, in order, with the version it made). */
export function changeStatement(
  record: StoredTask,
  expectedVersion: number,
  payloads: readonly QueuedNotification[],
  log: EventLogWrite | undefined,
): TaskRowStatement {
  const task = record.task;
  const doc = JSON.stringify(task);
  // One whose change made the version written: its generation is that version ($7).
  const many = payloads.length > 1 || (payloads.length === 1 && payloads[0]!.generation !== record.version);
  const payload = many ? JSON.stringify(payloads) : (payloads[0]?.payload ?? null);
  const row = [
    record.tenant,
    record.owner,
    task.id,
    task.contextId ?? null,
    task.status.state,
    record.statusTimeMs,
    record.version,
    doc,
  ];
  const params: unknown[] =
    expectedVersion === 0 ? [...row, payload, Date.now()] : [...row, expectedVersion, payload, Date.now()];
  if (log) params.push(eventLogJson(log), trimBelow(record.version, log.keep));
  return {
    sql: changeSql(expectedVersion === 0, many, log !== undefined),
    params,
    record,
    doc,
    expectedVersion,
  };
}

/** How many notifications a change statement enqueued; refuses one that wrote no row. */
export function checkChange(result: pg.QueryResult, statement: TaskRowStatement): number {
  const counts = result.rows[0] as ChangeRow | undefined;
  if (toNumber(counts?.saved ?? 0) !== 1) throw new TaskVersionConflictError(statement.record.task.id);
  return toNumber(counts?.queued ?? 0);
}
