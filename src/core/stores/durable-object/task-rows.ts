/**
 * The compare-and-set write of a task row in a Durable Object's SQLite storage, with its event
 * log entries (GEN-5): the same statements as the SQLite store's (sqlite/task-rows.ts), run
 * synchronously, counting changed rows by `RETURNING` (task counts are kept by triggers here).
 */
import { trimBelow } from '../sql/event-log.js';
import {
  TaskVersionConflictError,
  type EventLogWrite,
  type SaveChange,
  type StoredTask,
} from '../task-store.js';
import { changedRows, type SqlStorageLike } from './sql-storage.js';

function writeEventLog(sql: SqlStorageLike, record: StoredTask, log: EventLogWrite): void {
  const { tenant, owner } = record;
  const id = record.task.id;
  for (const e of log.events) {
    sql.exec(
      `INSERT OR REPLACE INTO a2a_task_events (tenant, owner, task_id, generation, state, doc)
       VALUES (?, ?, ?, ?, ?, ?)`,
      tenant,
      owner,
      id,
      e.generation,
      e.state,
      e.response ? JSON.stringify(e.response) : null,
    );
  }
  const below = trimBelow(record.version, log.keep);
  if (below >= 0) {
    sql.exec(
      'DELETE FROM a2a_task_events WHERE tenant = ? AND owner = ? AND task_id = ? AND generation <= ?',
      tenant,
      owner,
      id,
      below,
    );
  }
}

/**
 * Inserts (`expectedVersion` 0) or updates the row of `record` where it is still at
 * `expectedVersion`; throws TaskVersionConflictError otherwise, having changed nothing. An
 * update whose status is unchanged sets only the version and document, on the condition that
 * the stored state and status time are the ones written: no index entry moves (each index holds
 * the status time), which is most of the rows an update writes.
 */
export function writeTaskRow(
  sql: SqlStorageLike,
  record: StoredTask,
  expectedVersion: number,
  change: SaveChange | undefined,
): void {
  const task = record.task;
  const { tenant, owner, version, statusTimeMs } = record;
  const state = task.status.state;
  const doc = JSON.stringify(task);
  let changed: number;
  if (expectedVersion === 0) {
    changed = changedRows(
      sql.exec(
        `INSERT INTO a2a_tasks (tenant, owner, id, context_id, state, status_time_ms, version, doc)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING 1 AS changed`,
        tenant,
        owner,
        task.id,
        task.contextId ?? null,
        state,
        statusTimeMs,
        version,
        doc,
      ),
    );
  } else {
    changed =
      change?.statusUnchanged === false
        ? 0
        : changedRows(
            sql.exec(
              `UPDATE a2a_tasks SET version = ?, doc = ?
               WHERE tenant = ? AND owner = ? AND id = ? AND version = ? AND state = ? AND status_time_ms = ?
               RETURNING 1 AS changed`,
              version,
              doc,
              tenant,
              owner,
              task.id,
              expectedVersion,
              state,
              statusTimeMs,
            ),
          );
    // context_id is never set again: a task keeps the context it was created in.
    if (changed === 0) {
      changed = changedRows(
        sql.exec(
          `UPDATE a2a_tasks SET state = ?, status_time_ms = ?, version = ?, doc = ?
           WHERE tenant = ? AND owner = ? AND id = ? AND version = ? RETURNING 1 AS changed`,
          state,
          statusTimeMs,
          version,
          doc,
          tenant,
          owner,
          task.id,
          expectedVersion,
        ),
      );
    }
  }
  if (changed !== 1) throw new TaskVersionConflictError(task.id);
  if (change?.log) writeEventLog(sql, record, change.log);
}
