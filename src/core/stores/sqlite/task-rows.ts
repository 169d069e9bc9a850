/**
 * The task row of the SQLite store: its statements, and the compare-and-set write shared by the
 * task store, its staged writes and the push outbox (which writes the row in its own
 * transaction).
 */
import type { Statement } from 'better-sqlite3';
import type { TaskState } from '../../../model/enums.js';
import { trimBelow } from '../sql/event-log.js';
import {
  TaskVersionConflictError,
  type EventLogWrite,
  type SaveChange,
  type StoredTask,
} from '../task-store.js';
import type { SqliteDatabase } from './database.js';
import type { TaskCountChanges } from './task-counts.js';

/** The statements of {@link writeTaskRow}, prepared once per connection. */
export interface TaskRowStatements {
  readonly insert: Statement;
  /** Only the version and document: no indexed column is set, so no index entry moves. */
  readonly updateDoc: Statement;
  readonly updateStatus: Statement;
  /** The state of a row at a version (when the writer did not say what it replaces). */
  readonly stateAt: Statement<[string, string, string, number], { state: TaskState }>;
  /** The connection's task counts, changed with each row's state. */
  readonly counts: TaskCountChanges;
  /** A2A 1.1 draft (GEN-5): an event log entry, and the trim of a task's older entries. */
  readonly insertEvent: Statement;
  readonly trimEvents: Statement;
}

/** Prepares the statements of {@link writeTaskRow} on `database`. */
export function prepareTaskRowStatements(database: SqliteDatabase): TaskRowStatements {
  const db = database.db;
  return {
    insert: db.prepare(
      `INSERT INTO a2a_tasks (tenant, owner, id, context_id, state, status_time_ms, version, doc)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
    ),
    updateDoc: db.prepare(
      `UPDATE a2a_tasks SET version = ?, doc = ?
       WHERE tenant = ? AND owner = ? AND id = ? AND version = ? AND state = ? AND status_time_ms = ?`,
    ),
    // context_id is never set again: a task keeps the context it was created in.
    updateStatus: db.prepare(
      `UPDATE a2a_tasks SET state = ?, status_time_ms = ?, version = ?, doc = ?
       WHERE tenant = ? AND owner = ? AND id = ? AND version = ?`,
    ),
    stateAt: db.prepare(
      'SELECT state FROM a2a_tasks WHERE tenant = ? AND owner = ? AND id = ? AND version = ?',
    ),
    counts: database.taskCounts,
    insertEvent: db.prepare(
      `INSERT OR REPLACE INTO a2a_task_events (tenant, owner, task_id, generation, state, doc)
       VALUES (?, ?, ?, ?, ?, ?)`,
    ),
    trimEvents: db.prepare(
      'DELETE FROM a2a_task_events WHERE tenant = ? AND owner = ? AND task_id = ? AND generation <= ?',
    ),
  };
}

/** Writes the event log entries of a change (GEN-5), in the transaction of its row write. */
function writeEventLog(statements: TaskRowStatements, record: StoredTask, log: EventLogWrite): void {
  const { tenant, owner } = record;
  const id = record.task.id;
  for (const e of log.events) {
    statements.insertEvent.run(
      tenant,
      owner,
      id,
      e.generation,
      e.state,
      e.response ? JSON.stringify(e.response) : null,
    );
  }
  const below = trimBelow(record.version, log.keep);
  if (below >= 0) statements.trimEvents.run(tenant, owner, id, below);
}

/**
 * The compare-and-set write of a task row (`insert` for a new task, else an update where the
 * version is still `expectedVersion`), shared with the push outbox, which writes the row in its
 * own transaction. Throws TaskVersionConflictError when the row was not the expected one.
 *
 * An update whose status is unchanged (an artifact, a client message on a running task) sets
 * only the version and document, on the condition that the stored state and status time are
 * the ones being written: then no index (each holds the status time) is touched, which is most
 * of an update's cost. Otherwise (a status change, or that condition failing) the status
 * columns are set too. `change`: the writer's hints (whether the status is unchanged, the
 * state being replaced); without them, the document-only update is tried first and the
 * replaced state is read. A row's state change is counted in the transaction's task counts.
 */
export function writeTaskRow(
  statements: TaskRowStatements,
  record: StoredTask,
  expectedVersion: number,
  doc: string,
  change?: SaveChange,
): void {
  const task = record.task;
  const state: TaskState = task.status.state;
  const { tenant, owner } = record;
  if (expectedVersion === 0) {
    const changes = statements.insert.run(
      tenant,
      owner,
      task.id,
      task.contextId ?? null,
      state,
      record.statusTimeMs,
      record.version,
      doc,
    ).changes;
    if (changes !== 1) throw new TaskVersionConflictError(task.id);
    statements.counts.add(tenant, owner, state, 1);
    if (change?.log) writeEventLog(statements, record, change.log);
    return;
  }
  const version = record.version;
  const statusTimeMs = record.statusTimeMs;
  if (
    change?.statusUnchanged !== false &&
    statements.updateDoc.run(version, doc, tenant, owner, task.id, expectedVersion, state, statusTimeMs)
      .changes === 1
  ) {
    if (change?.log) writeEventLog(statements, record, change.log);
    return;
  }
  const previous =
    change?.previousState ?? statements.stateAt.get(tenant, owner, task.id, expectedVersion)?.state;
  const changes = statements.updateStatus.run(
    state,
    statusTimeMs,
    version,
    doc,
    tenant,
    owner,
    task.id,
    expectedVersion,
  ).changes;
  if (changes !== 1) throw new TaskVersionConflictError(task.id);
  if (previous !== state) {
    statements.counts.add(tenant, owner, previous!, -1);
    statements.counts.add(tenant, owner, state, 1);
  }
  if (change?.log) writeEventLog(statements, record, change.log);
}
