/**
 * The schema of the Durable Object stores as numbered migrations (migration n brings a storage
 * from version n-1 to n; never edit a released one, add the next). The tables and indexes are
 * those the SQLite store has at its latest version, less the push outbox (push is not offered
 * in a Durable Object). The version lives in a table: Cloudflare refuses `PRAGMA user_version`
 * (SQLITE_AUTH).
 */
import { INTERRUPTED_STATE_SQL, SchemaTooNewError } from '../sql/shared.js';
import type { DurableObjectStorageLike } from './sql-storage.js';

const MIGRATIONS: readonly string[] = [
  // 1: tasks (counts per scope and state kept by triggers, for ListTasks' totalSize), the
  // idempotency records, push configs, the page-token secret, execution leases, event log.
  `
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
  CREATE INDEX a2a_tasks_interrupted ON a2a_tasks (status_time_ms) WHERE state IN (${INTERRUPTED_STATE_SQL});
  CREATE TABLE a2a_task_counts (
    tenant TEXT NOT NULL,
    owner TEXT NOT NULL,
    state TEXT NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (tenant, owner, state)
  ) WITHOUT ROWID;
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
  CREATE TABLE a2a_secrets (
    name TEXT PRIMARY KEY,
    value BLOB NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE a2a_leases (
    tenant TEXT NOT NULL,
    owner TEXT NOT NULL,
    task_id TEXT NOT NULL,
    worker TEXT NOT NULL,
    until_ms INTEGER NOT NULL,
    PRIMARY KEY (tenant, owner, task_id, worker)
  ) WITHOUT ROWID;
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
];

/** The schema version this code writes. */
export const DURABLE_OBJECT_SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings `storage` to {@link DURABLE_OBJECT_SCHEMA_VERSION}, each migration in one transaction
 * with its version; throws SchemaTooNewError (touching nothing) when a newer a2a-kit wrote it.
 */
export function migrate(storage: DurableObjectStorageLike): void {
  const sql = storage.sql;
  sql.exec(
    `CREATE TABLE IF NOT EXISTS a2a_schema_version (
       id INTEGER PRIMARY KEY CHECK (id = 1),
       version INTEGER NOT NULL
     )`,
  );
  const found =
    sql.exec<{ version: number }>('SELECT version FROM a2a_schema_version').toArray()[0]?.version ?? 0;
  if (found > MIGRATIONS.length) {
    throw new SchemaTooNewError('the Durable Object storage', found, MIGRATIONS.length);
  }
  for (let version = found; version < MIGRATIONS.length; version++) {
    storage.transactionSync(() => {
      sql.exec(MIGRATIONS[version]!);
      sql.exec(
        `INSERT INTO a2a_schema_version (id, version) VALUES (1, ?)
         ON CONFLICT (id) DO UPDATE SET version = excluded.version`,
        version + 1,
      );
    });
  }
}
