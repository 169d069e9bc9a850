/**
 * The PostgreSQL schema as numbered migrations (migration n brings version n-1 to n). Ids and
 * scopes use the "C" collation so the id order is the byte order the memory store and SQLite
 * use, whatever the database's locale. Never edit a released migration; add the next one.
 */
import { INTERRUPTED_STATE_SQL, TERMINAL_STATE_SQL } from '../sql/shared.js';

export const POSTGRES_MIGRATIONS: readonly string[] = [
  // 1: tasks, idempotency records, push configs, secrets, and the indexes ListTasks needs.
  `
  CREATE TABLE a2a_tasks (
    tenant text COLLATE "C" NOT NULL,
    owner text COLLATE "C" NOT NULL,
    id text COLLATE "C" NOT NULL,
    context_id text COLLATE "C",
    state text COLLATE "C" NOT NULL,
    status_time_ms bigint NOT NULL,
    version integer NOT NULL,
    doc text NOT NULL,
    PRIMARY KEY (tenant, owner, id)
  );
  CREATE INDEX a2a_tasks_list ON a2a_tasks (tenant, owner, status_time_ms, id);
  CREATE INDEX a2a_tasks_context ON a2a_tasks (tenant, owner, context_id, status_time_ms, id);
  CREATE INDEX a2a_tasks_state ON a2a_tasks (tenant, owner, state, status_time_ms, id);
  CREATE INDEX a2a_tasks_interrupted ON a2a_tasks (status_time_ms) WHERE state IN (${INTERRUPTED_STATE_SQL});
  CREATE INDEX a2a_tasks_terminal ON a2a_tasks (status_time_ms) WHERE state IN (${TERMINAL_STATE_SQL});
  CREATE TABLE a2a_idempotency (
    tenant text COLLATE "C" NOT NULL,
    principal text COLLATE "C" NOT NULL,
    message_id text COLLATE "C" NOT NULL,
    status text NOT NULL,
    record text NOT NULL,
    created_ms bigint NOT NULL,
    PRIMARY KEY (tenant, principal, message_id)
  );
  CREATE INDEX a2a_idempotency_created ON a2a_idempotency (created_ms);
  CREATE TABLE a2a_push_configs (
    tenant text COLLATE "C" NOT NULL,
    owner text COLLATE "C" NOT NULL,
    task_id text COLLATE "C" NOT NULL,
    id text COLLATE "C" NOT NULL,
    doc text NOT NULL,
    PRIMARY KEY (tenant, owner, task_id, id)
  );
  CREATE TABLE a2a_secrets (
    name text PRIMARY KEY,
    value bytea NOT NULL
  );
  `,
  // 2: task counts per scope and state, so ListTasks' totalSize without a context or time
  // filter sums a few rows instead of counting every task of the caller. The trigger only
  // appends deltas (+1 / -1): inserts never wait for each other, so concurrent writers and
  // replicas cannot deadlock on a hot count row. The store folds the deltas into one row per
  // scope and state every few seconds (PostgresTaskStore.compactCounts).
  `
  CREATE TABLE a2a_task_counts (
    seq bigserial PRIMARY KEY,
    tenant text COLLATE "C" NOT NULL,
    owner text COLLATE "C" NOT NULL,
    state text COLLATE "C" NOT NULL,
    n bigint NOT NULL
  );
  CREATE INDEX a2a_task_counts_scope ON a2a_task_counts (tenant, owner, state);
  CREATE FUNCTION a2a_task_count() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
      INSERT INTO a2a_task_counts (tenant, owner, state, n) VALUES (OLD.tenant, OLD.owner, OLD.state, -1);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
      INSERT INTO a2a_task_counts (tenant, owner, state, n) VALUES (NEW.tenant, NEW.owner, NEW.state, 1);
    END IF;
    RETURN NULL;
  END
  $$;
  CREATE TRIGGER a2a_tasks_count AFTER INSERT OR DELETE ON a2a_tasks
    FOR EACH ROW EXECUTE FUNCTION a2a_task_count();
  CREATE TRIGGER a2a_tasks_count_state AFTER UPDATE OF state ON a2a_tasks
    FOR EACH ROW WHEN (OLD.state IS DISTINCT FROM NEW.state) EXECUTE FUNCTION a2a_task_count();
  INSERT INTO a2a_task_counts (tenant, owner, state, n)
    SELECT tenant, owner, state, count(*) FROM a2a_tasks GROUP BY tenant, owner, state;
  `,
  // 3: bodies of task events too large for a NOTIFY payload, fetched by seq (kept minutes).
  `
  CREATE TABLE a2a_events (
    seq bigserial PRIMARY KEY,
    created_ms bigint NOT NULL,
    payload text NOT NULL
  );
  CREATE INDEX a2a_events_created ON a2a_events (created_ms);
  `,
  // 4: leases of running executions (crash recovery).
  `
  CREATE TABLE a2a_leases (
    tenant text COLLATE "C" NOT NULL,
    owner text COLLATE "C" NOT NULL,
    task_id text COLLATE "C" NOT NULL,
    worker text COLLATE "C" NOT NULL,
    until_ms bigint NOT NULL,
    PRIMARY KEY (tenant, owner, task_id, worker)
  );
  CREATE INDEX a2a_leases_until ON a2a_leases (until_ms);
  CREATE INDEX a2a_leases_worker ON a2a_leases (worker);
  `,
  // 5: push outbox (issue 12): one row per notification to one config; `head` marks the oldest
  // pending row of its config, the only one a worker may claim. a2a_push_is_head is VOLATILE
  // PL/pgSQL on purpose: it reads with a fresh snapshot, taken after the enqueuing statement
  // locked the task row, so it sees a settle that committed while that statement waited.
  `
  CREATE TABLE a2a_push_outbox (
    seq bigserial PRIMARY KEY,
    id text COLLATE "C" NOT NULL UNIQUE,
    tenant text COLLATE "C" NOT NULL,
    owner text COLLATE "C" NOT NULL,
    task_id text COLLATE "C" NOT NULL,
    config_id text COLLATE "C" NOT NULL,
    payload text NOT NULL,
    state text COLLATE "C" NOT NULL,
    head boolean NOT NULL,
    attempts integer NOT NULL DEFAULT 0,
    recorded integer NOT NULL DEFAULT 0,
    created_ms bigint NOT NULL,
    next_attempt_ms bigint NOT NULL,
    settled_ms bigint,
    lease_owner text COLLATE "C",
    lease_until_ms bigint NOT NULL DEFAULT 0,
    last_error text
  );
  CREATE INDEX a2a_push_outbox_due ON a2a_push_outbox (next_attempt_ms) WHERE state = 'pending' AND head;
  CREATE INDEX a2a_push_outbox_queue ON a2a_push_outbox (tenant, owner, task_id, config_id, seq) WHERE state = 'pending';
  CREATE INDEX a2a_push_outbox_settled ON a2a_push_outbox (settled_ms) WHERE state <> 'pending';
  CREATE INDEX a2a_push_outbox_task ON a2a_push_outbox (tenant, task_id, seq);
  CREATE INDEX a2a_push_outbox_state ON a2a_push_outbox (state, seq);
  CREATE TABLE a2a_push_attempts (
    delivery_id text COLLATE "C" NOT NULL REFERENCES a2a_push_outbox (id) ON DELETE CASCADE,
    n integer NOT NULL,
    at_ms bigint NOT NULL,
    duration_ms integer NOT NULL,
    ok boolean NOT NULL,
    status integer,
    error text,
    PRIMARY KEY (delivery_id, n)
  );
  CREATE FUNCTION a2a_push_is_head(t text, o text, k text, c text) RETURNS boolean
  LANGUAGE plpgsql VOLATILE AS $$
  BEGIN
    RETURN NOT EXISTS (
      SELECT 1 FROM a2a_push_outbox
      WHERE tenant = t AND owner = o AND task_id = k AND config_id = c AND state = 'pending');
  END
  $$;
  `,
  // 6: as SQLite's migration 6: the lease table holds only running executions, each inserts
  // and deletes one row, and the heartbeat renews all of a worker's rows: a scan of a small
  // table costs less than keeping two indexes on every insert. Task rows leave room on their
  // page, so an update that changes no indexed column (an artifact) can stay on its page and
  // write no index entry (a HOT update).
  `
  DROP INDEX a2a_leases_until;
  DROP INDEX a2a_leases_worker;
  ALTER TABLE a2a_tasks SET (fillfactor = 75);
  `,
  // 7: A2A 1.1 draft (issue 31, GEN-5): each task's latest events, for exact stream resumption.
  // One row per task version, written in the statement that writes the version; older rows
  // past the per-task bound are deleted in the same statement, the rest with their task.
  `
  CREATE TABLE a2a_task_events (
    tenant text COLLATE "C" NOT NULL,
    owner text COLLATE "C" NOT NULL,
    task_id text COLLATE "C" NOT NULL,
    generation bigint NOT NULL,
    state text COLLATE "C" NOT NULL,
    doc text,
    PRIMARY KEY (tenant, owner, task_id, generation)
  );
  `,
  // 8: A2A 1.1 draft (issue 31, GEN-6): as SQLite's migration 9, each notification's
  // generation. A nullable column without a default: adding it rewrites no row.
  `
  ALTER TABLE a2a_push_outbox ADD COLUMN generation bigint;
  `,
];
