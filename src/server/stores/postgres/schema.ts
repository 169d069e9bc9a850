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
];
