/** The prepared statements of the SQLite push outbox (`SqlitePushOutbox`). */
import type Database from 'better-sqlite3';
import type { Statement } from 'better-sqlite3';
import { DELIVERY_COLUMNS, PRUNE_CHUNK, type AttemptRow, type DeliveryRow } from '../sql/push-outbox-rows.js';

/** One config's queue of notifications (its pending rows, in `seq` order). */
const QUEUE = 'tenant = ? AND owner = ? AND task_id = ? AND config_id = ?';

/** What the outbox runs, prepared once per file. */
export interface PushOutboxStatements {
  /** The ids of a task's configs (plucked: plain strings, no row objects). */
  readonly configIds: Statement<[string, string, string, number], string>;
  readonly enqueue: Statement;
  // Claims name the index of due heads: without statistics SQLite would pick the (state, seq)
  // index and walk every pending row, heads or not.
  readonly claim: Statement<[string, number, number, number, number], DeliveryRow>;
  readonly settle: Statement;
  readonly recordAttempt: Statement;
  readonly trimAttempts: Statement;
  readonly promote: Statement;
  readonly renew: Statement;
  readonly get: Statement<[string], DeliveryRow>;
  readonly attempts: Statement<[string], AttemptRow>;
  readonly replay: Statement;
  readonly nextDue: Statement<[], { at: number | null }>;
  readonly pruneOld: Statement;
  readonly pruneMany: Statement;
}

/** Prepares the outbox's statements on `db`. */
export function preparePushOutboxStatements(db: Database.Database): PushOutboxStatements {
  return {
    configIds: db
      .prepare<[string, string, string, number], string>(
        'SELECT id FROM a2a_push_configs WHERE tenant = ? AND owner = ? AND task_id = ? ORDER BY id LIMIT ?',
      )
      .pluck(),
    enqueue: db.prepare(
      `INSERT INTO a2a_push_outbox
         (id, tenant, owner, task_id, config_id, payload, generation, state, head, created_ms, next_attempt_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, 'pending',
         NOT EXISTS (SELECT 1 FROM a2a_push_outbox WHERE ${QUEUE} AND state = 'pending'), ?, ?)`,
    ),
    claim: db.prepare(
      `UPDATE a2a_push_outbox SET lease_owner = ?, lease_until_ms = ?
       WHERE seq IN (
         SELECT seq FROM a2a_push_outbox INDEXED BY a2a_push_outbox_due
         WHERE state = 'pending' AND head = 1 AND next_attempt_ms <= ? AND lease_until_ms <= ?
         ORDER BY next_attempt_ms LIMIT ?)
       RETURNING ${DELIVERY_COLUMNS}`,
    ),
    settle: db.prepare(
      `UPDATE a2a_push_outbox SET state = ?, head = ?, attempts = attempts + 1, recorded = recorded + 1,
         next_attempt_ms = ?, last_error = ?, settled_ms = ?, lease_owner = NULL, lease_until_ms = 0
       WHERE id = ? AND state = 'pending' AND lease_owner = ?
       RETURNING tenant, owner, task_id, config_id, recorded`,
    ),
    recordAttempt: db.prepare(
      `INSERT INTO a2a_push_attempts (delivery_id, n, at_ms, duration_ms, ok, status, error)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ),
    trimAttempts: db.prepare('DELETE FROM a2a_push_attempts WHERE delivery_id = ? AND n <= ?'),
    promote: db.prepare(
      `UPDATE a2a_push_outbox SET head = 1 WHERE seq = (
         SELECT seq FROM a2a_push_outbox WHERE ${QUEUE} AND state = 'pending' ORDER BY seq LIMIT 1)
       AND NOT EXISTS (SELECT 1 FROM a2a_push_outbox WHERE ${QUEUE} AND state = 'pending' AND head = 1)`,
    ),
    renew: db.prepare(
      `UPDATE a2a_push_outbox SET lease_until_ms = ? WHERE id = ? AND state = 'pending' AND lease_owner = ?`,
    ),
    get: db.prepare(`SELECT ${DELIVERY_COLUMNS} FROM a2a_push_outbox WHERE id = ?`),
    attempts: db.prepare(
      'SELECT at_ms, duration_ms, ok, status, error FROM a2a_push_attempts WHERE delivery_id = ? ORDER BY n',
    ),
    replay: db.prepare(
      `UPDATE a2a_push_outbox AS o SET state = 'pending', attempts = 0, next_attempt_ms = ?, last_error = NULL,
         settled_ms = NULL, lease_owner = NULL, lease_until_ms = 0,
         head = NOT EXISTS (SELECT 1 FROM a2a_push_outbox p WHERE p.tenant = o.tenant AND p.owner = o.owner
           AND p.task_id = o.task_id AND p.config_id = o.config_id AND p.state = 'pending')
       WHERE id = ? AND state = 'dead'`,
    ),
    nextDue: db.prepare(
      `SELECT min(max(next_attempt_ms, lease_until_ms)) AS at FROM a2a_push_outbox INDEXED BY a2a_push_outbox_due
       WHERE state = 'pending' AND head = 1`,
    ),
    pruneOld: db.prepare(
      `DELETE FROM a2a_push_outbox WHERE seq IN (
         SELECT seq FROM a2a_push_outbox WHERE state <> 'pending' AND settled_ms < ? LIMIT ${PRUNE_CHUNK})`,
    ),
    pruneMany: db.prepare(
      `DELETE FROM a2a_push_outbox WHERE seq IN (
         SELECT seq FROM a2a_push_outbox WHERE state <> 'pending'
         ORDER BY settled_ms DESC LIMIT ${PRUNE_CHUNK} OFFSET ?)`,
    ),
  };
}
