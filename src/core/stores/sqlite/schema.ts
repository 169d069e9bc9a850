/**
 * The SQLite schema as numbered migrations: migration n brings a file from version n-1 to n.
 * Never edit a released migration; add the next one.
 */
import type Database from 'better-sqlite3';
import { INTERRUPTED_STATE_SQL, SchemaTooNewError, TERMINAL_STATE_SQL } from '../sql/shared.js';

// Tables holding documents (tasks, idempotency records) keep a rowid: SQLite advises against
// WITHOUT ROWID for rows larger than a few hundred bytes, and the secondary indexes then point
// at an 8-byte rowid instead of repeating the whole key.
export const SQLITE_MIGRATIONS: readonly string[] = [
  // 1: tasks, idempotency records, push configs.
  `
  CREATE TABLE IF NOT EXISTS a2a_schema_version (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    version INTEGER NOT NULL
  );
  CREATE TABLE a2a_tasks (
    tenant TEXT NOT NULL,
    owner TEXT NOT NULL,
    id TEXT NOT NULL,
    context_id TEXT,
    state TEXT NOT NULL,
    status_time_ms INTEGER NOT NULL,
    version INTEGER NOT NULL,
    doc TEXT NOT NULL,
    PRIMARY KEY (tenant, owner, id)
  );
  CREATE INDEX a2a_tasks_list ON a2a_tasks (tenant, owner, status_time_ms, id);
  CREATE INDEX a2a_tasks_context ON a2a_tasks (tenant, owner, context_id, status_time_ms, id);
  CREATE INDEX a2a_tasks_state ON a2a_tasks (tenant, owner, state, status_time_ms, id);
  CREATE TABLE a2a_idempotency (
    tenant TEXT NOT NULL,
    principal TEXT NOT NULL,
    message_id TEXT NOT NULL,
    status TEXT NOT NULL,
    record TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    PRIMARY KEY (tenant, principal, message_id)
  );
  CREATE TABLE a2a_push_configs (
    tenant TEXT NOT NULL,
    owner TEXT NOT NULL,
    task_id TEXT NOT NULL,
    id TEXT NOT NULL,
    doc TEXT NOT NULL,
    PRIMARY KEY (tenant, owner, task_id, id)
  ) WITHOUT ROWID;
  `,
  // 2: the page-token secret; partial indexes for the interrupted-task timer and retention.
  `
  CREATE TABLE a2a_secrets (
    name TEXT PRIMARY KEY,
    value BLOB NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX a2a_tasks_interrupted ON a2a_tasks (status_time_ms) WHERE state IN (${INTERRUPTED_STATE_SQL});
  CREATE INDEX a2a_tasks_terminal ON a2a_tasks (status_time_ms) WHERE state IN (${TERMINAL_STATE_SQL});
  CREATE INDEX a2a_idempotency_created ON a2a_idempotency (created_ms);
  `,
  // 3: task counts per scope and state, kept by triggers, so ListTasks' totalSize without a
  // context or time filter reads a few rows instead of counting every task of the caller.
  `
  CREATE TABLE a2a_task_counts (
    tenant TEXT NOT NULL,
    owner TEXT NOT NULL,
    state TEXT NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (tenant, owner, state)
  ) WITHOUT ROWID;
  INSERT INTO a2a_task_counts (tenant, owner, state, n)
    SELECT tenant, owner, state, count(*) FROM a2a_tasks GROUP BY tenant, owner, state;
  CREATE TRIGGER a2a_tasks_count_insert AFTER INSERT ON a2a_tasks BEGIN
    INSERT INTO a2a_task_counts (tenant, owner, state, n) VALUES (NEW.tenant, NEW.owner, NEW.state, 1)
      ON CONFLICT (tenant, owner, state) DO UPDATE SET n = n + 1;
  END;
  CREATE TRIGGER a2a_tasks_count_update AFTER UPDATE OF state ON a2a_tasks WHEN OLD.state <> NEW.state BEGIN
    UPDATE a2a_task_counts SET n = n - 1 WHERE tenant = OLD.tenant AND owner = OLD.owner AND state = OLD.state;
    INSERT INTO a2a_task_counts (tenant, owner, state, n) VALUES (NEW.tenant, NEW.owner, NEW.state, 1)
      ON CONFLICT (tenant, owner, state) DO UPDATE SET n = n + 1;
  END;
  CREATE TRIGGER a2a_tasks_count_delete AFTER DELETE ON a2a_tasks BEGIN
    UPDATE a2a_task_counts SET n = n - 1 WHERE tenant = OLD.tenant AND owner = OLD.owner AND state = OLD.state;
  END;
  `,
  // 4: leases of running executions (crash recovery).
  `
  CREATE TABLE a2a_leases (
    tenant TEXT NOT NULL,
    owner TEXT NOT NULL,
    task_id TEXT NOT NULL,
    worker TEXT NOT NULL,
    until_ms INTEGER NOT NULL,
    PRIMARY KEY (tenant, owner, task_id, worker)
  ) WITHOUT ROWID;
  CREATE INDEX a2a_leases_until ON a2a_leases (until_ms);
  CREATE INDEX a2a_leases_worker ON a2a_leases (worker);
  `,
  // 5: push outbox (issue 12): one row per notification to one config; `head` marks the oldest
  // pending row of its config, the only one a worker may claim. Attempts kept per delivery.
  `
  CREATE TABLE a2a_push_outbox (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    tenant TEXT NOT NULL,
    owner TEXT NOT NULL,
    task_id TEXT NOT NULL,
    config_id TEXT NOT NULL,
    payload TEXT NOT NULL,
    state TEXT NOT NULL,
    head INTEGER NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    recorded INTEGER NOT NULL DEFAULT 0,
    created_ms INTEGER NOT NULL,
    next_attempt_ms INTEGER NOT NULL,
    settled_ms INTEGER,
    lease_owner TEXT,
    lease_until_ms INTEGER NOT NULL DEFAULT 0,
    last_error TEXT
  );
  CREATE INDEX a2a_push_outbox_due ON a2a_push_outbox (next_attempt_ms) WHERE state = 'pending' AND head = 1;
  CREATE INDEX a2a_push_outbox_queue ON a2a_push_outbox (tenant, owner, task_id, config_id, seq) WHERE state = 'pending';
  CREATE INDEX a2a_push_outbox_settled ON a2a_push_outbox (settled_ms) WHERE state <> 'pending';
  CREATE INDEX a2a_push_outbox_task ON a2a_push_outbox (tenant, task_id, seq);
  CREATE INDEX a2a_push_outbox_state ON a2a_push_outbox (state, seq);
  CREATE TABLE a2a_push_attempts (
    delivery_id TEXT NOT NULL REFERENCES a2a_push_outbox (id) ON DELETE CASCADE,
    n INTEGER NOT NULL,
    at_ms INTEGER NOT NULL,
    duration_ms INTEGER NOT NULL,
    ok INTEGER NOT NULL,
    status INTEGER,
    error TEXT,
    PRIMARY KEY (delivery_id, n)
  ) WITHOUT ROWID;
  `,
  // 6: the lease table holds only running executions (a few rows), and every execution inserts
  // and deletes one: its two indexes cost two more pages in each commit, while the heartbeat
  // that could use them renews every row anyway. Its statements scan the table instead.
  `
  DROP INDEX a2a_leases_until;
  DROP INDEX a2a_leases_worker;
  `,
  // 7: less work in each task write. The task counts are written once per transaction by the
  // writer (task-counts.ts) instead of by triggers, three statements per task; the delete
  // trigger stays for retention. Two indexes that cost a page in most commits and that no
  // request reads go: retention walks each caller's terminal tasks in a2a_tasks_state, and the
  // idempotency purge walks records in rowid order, the order their keys were taken.
  `
  DROP TRIGGER a2a_tasks_count_insert;
  DROP TRIGGER a2a_tasks_count_update;
  DROP INDEX a2a_tasks_terminal;
  DROP INDEX a2a_idempotency_created;
  `,
  // 8: A2A 1.1 draft (issue 31, GEN-5): each task's latest events, for exact stream resumption.
  // One row per task version, written in the transaction that writes the version (staged
  // writes too); older rows past the per-task bound are deleted in it, the rest with their task.
  // Empty unless the feature is on.
  `
  CREATE TABLE a2a_task_events (
    tenant TEXT NOT NULL,
    owner TEXT NOT NULL,
    task_id TEXT NOT NULL,
    generation INTEGER NOT NULL,
    state TEXT NOT NULL,
    doc TEXT,
    PRIMARY KEY (tenant, owner, task_id, generation)
  ) WITHOUT ROWID;
  `,
  // 9: A2A 1.1 draft (issue 31, GEN-6): each notification's generation (the task version its
  // change made), for configs registered by a call that opted in. NULL on the rows before.
  `
  ALTER TABLE a2a_push_outbox ADD COLUMN generation INTEGER;
  `,
];

/** The schema version recorded in the file (0 for a new file). */
export function schemaVersionOf(db: Database.Database): number {
  const table = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'a2a_schema_version'")
    .get();
  if (!table) return 0;
  const row = db.prepare('SELECT version FROM a2a_schema_version WHERE id = 1').get() as
    { version: number } | undefined;
  return row?.version ?? 0;
}

/**
 * Brings the schema up to `target` (default: the newest this code knows) in one IMMEDIATE
 * transaction, so two processes opening a new file at once do not both migrate it.
 */
export function migrate(db: Database.Database, where: string, target = SQLITE_MIGRATIONS.length): void {
  const known = SQLITE_MIGRATIONS.length;
  const run = db.transaction(() => {
    const current = schemaVersionOf(db);
    if (current > known) throw new SchemaTooNewError(`SQLite store ${where}`, current, known);
    if (current >= target) return;
    for (let version = current + 1; version <= target; version++) {
      db.exec(SQLITE_MIGRATIONS[version - 1]!);
    }
    db.prepare(
      'INSERT INTO a2a_schema_version (id, version) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET version = excluded.version',
    ).run(target);
  });
  run.immediate();
}
