/**
 * A {@link TaskStore} in a Cloudflare Durable Object's SQLite storage (`ctx.storage.sql`). The
 * rows and queries are the SQLite store's; what that store does to batch and sync its writes is
 * not needed here: the storage is synchronous, each statement (or `transactionSync`) is atomic,
 * and the object's output gate holds every response until the writes before it are durable, so
 * a change is stored before anyone hears of it (persist before notify) with no await.
 */
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
import { DurableObjectLeaseStore } from './lease-store.js';
import { migrate } from './schema.js';
import {
  changedRows,
  settle,
  type DurableObjectStorageLike,
  type SqlBinding,
  type SqlStorageLike,
} from './sql-storage.js';
import { writeTaskRow } from './task-rows.js';

interface TaskRow {
  [column: string]: string | number;
  version: number;
  status_time_ms: number;
  doc: string;
}

/** Rows removed per retention transaction; other requests of the object run between chunks. */
const PURGE_CHUNK = 500;

/** Lets the object's other events run (a retention walk over many chunks holds nobody up). */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * A {@link TaskStore} (and, through {@link DurableObjectLeaseStore}, the lease store of crash
 * recovery) over a Durable Object's SQLite storage; creates or migrates its tables when
 * constructed. Give it `ctx.storage`.
 */
export class DurableObjectTaskStore extends DurableObjectLeaseStore implements TaskStore {
  readonly #storage: DurableObjectStorageLike;
  readonly #sql: SqlStorageLike;

  constructor(storage: DurableObjectStorageLike) {
    migrate(storage);
    super(storage);
    this.#storage = storage;
    this.#sql = storage.sql;
  }

  get(scope: TaskScope, id: string): Promise<StoredTask | undefined> {
    return settle(() => {
      const row = this.#sql
        .exec<TaskRow>(
          'SELECT version, status_time_ms, doc FROM a2a_tasks WHERE tenant = ? AND owner = ? AND id = ?',
          scope.tenant,
          scope.owner,
          id,
        )
        .toArray()[0];
      return row
        ? storedTask(scope.tenant, scope.owner, row.version, row.status_time_ms, row.doc)
        : undefined;
    });
  }

  save(record: StoredTask, expectedVersion: number, change?: SaveChange): Promise<void> {
    if (record.version !== expectedVersion + 1) {
      return Promise.reject(new TaskVersionConflictError(record.task.id));
    }
    // One transaction: the row and its event log entries, or neither.
    return settle(() =>
      this.#storage.transactionSync(() => writeTaskRow(this.#sql, record, expectedVersion, change)),
    );
  }

  readEvents(scope: TaskScope, taskId: string, after: number, limit: number): Promise<LoggedTaskEvent[]> {
    return settle(() =>
      this.#sql
        .exec<EventRow & Record<string, string | number | null>>(
          `SELECT generation, state, doc FROM a2a_task_events
           WHERE tenant = ? AND owner = ? AND task_id = ? AND generation > ? ORDER BY generation LIMIT ?`,
          scope.tenant,
          scope.owner,
          taskId,
          after,
          limit,
        )
        .toArray()
        .map(loggedEvent),
    );
  }

  list(query: TaskQuery): Promise<TaskPage> {
    return settle(() => {
      const sql = listSql(query, () => '?');
      const rows = this.#sql
        .exec<TaskRow & { id: string }>(
          `SELECT id, version, status_time_ms, doc FROM a2a_tasks WHERE ${sql.pageWhere}
           ORDER BY status_time_ms DESC, id DESC LIMIT ?`,
          ...(sql.pageParams as SqlBinding[]),
          query.limit + 1,
        )
        .toArray();
      // Read in the same turn as the page: no write comes between them.
      const { n } = this.#sql.exec<{ n: number }>(sql.countSql, ...(sql.filterParams as SqlBinding[])).one();
      const hasMore = rows.length > query.limit;
      if (hasMore) rows.pop();
      return {
        tasks: rows.map((row) =>
          storedTask(query.tenant, query.owner, row.version, row.status_time_ms, row.doc),
        ),
        totalSize: n,
        hasMore,
      };
    });
  }

  listInterrupted(): Promise<InterruptedTaskRef[]> {
    return settle(() =>
      this.#sql
        .exec<{ tenant: string; owner: string; id: string; status_time_ms: number }>(
          `SELECT tenant, owner, id, status_time_ms FROM a2a_tasks
           WHERE state IN (${INTERRUPTED_STATE_SQL}) ORDER BY status_time_ms`,
        )
        .toArray()
        .map((row) => ({
          tenant: row.tenant,
          owner: row.owner,
          taskId: row.id,
          statusTimeMs: row.status_time_ms,
        })),
    );
  }

  claimIdempotencyKey(
    key: IdempotencyKey,
    record: IdempotencyRecord,
  ): Promise<IdempotencyRecord | undefined> {
    return settle(() => {
      const { tenant, principal, messageId } = key;
      const claimed = changedRows(
        this.#sql.exec(
          `INSERT INTO a2a_idempotency (tenant, principal, message_id, status, record, created_ms)
           VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING 1 AS changed`,
          tenant,
          principal,
          messageId,
          record.status,
          JSON.stringify(record),
          Date.now(),
        ),
      );
      if (claimed === 1) return undefined;
      const existing = this.#sql
        .exec<{ record: string }>(
          'SELECT record FROM a2a_idempotency WHERE tenant = ? AND principal = ? AND message_id = ?',
          tenant,
          principal,
          messageId,
        )
        .toArray()[0];
      return existing ? (JSON.parse(existing.record) as IdempotencyRecord) : undefined;
    });
  }

  replaceIdempotencyRecord(
    key: IdempotencyKey,
    expected: IdempotencyRecord,
    next: IdempotencyRecord,
  ): Promise<boolean> {
    return settle(
      () =>
        changedRows(
          this.#sql.exec(
            `UPDATE a2a_idempotency SET status = ?, record = ?, created_ms = ?
             WHERE tenant = ? AND principal = ? AND message_id = ? AND record = ? RETURNING 1 AS changed`,
            next.status,
            JSON.stringify(next),
            Date.now(),
            key.tenant,
            key.principal,
            key.messageId,
            JSON.stringify(expected),
          ),
        ) === 1,
    );
  }

  setIdempotencyRecord(key: IdempotencyKey, record: IdempotencyRecord | undefined): Promise<void> {
    return settle(() => {
      const { tenant, principal, messageId } = key;
      if (record === undefined) {
        this.#sql.exec(
          'DELETE FROM a2a_idempotency WHERE tenant = ? AND principal = ? AND message_id = ?',
          tenant,
          principal,
          messageId,
        );
        return;
      }
      // A replaced record keeps created_ms: the idempotency window counts from the first use.
      this.#sql.exec(
        `INSERT INTO a2a_idempotency (tenant, principal, message_id, status, record, created_ms)
         VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (tenant, principal, message_id) DO UPDATE SET status = excluded.status, record = excluded.record`,
        tenant,
        principal,
        messageId,
        record.status,
        JSON.stringify(record),
        Date.now(),
      );
    });
  }

  async purgeTerminalBefore(cutoffMs: number): Promise<number> {
    // Each caller's terminal tasks, oldest first, through a2a_tasks_state; the callers holding
    // any are in the counts table.
    const groups = await settle(() =>
      this.#sql
        .exec<{ tenant: string; owner: string; state: string }>(
          `SELECT tenant, owner, state FROM a2a_task_counts WHERE state IN (${TERMINAL_STATE_SQL}) AND n > 0`,
        )
        .toArray(),
    );
    let total = 0;
    for (const { tenant, owner, state } of groups) {
      for (;;) {
        const removed = await settle(() =>
          this.#storage.transactionSync(() => this.#purgeChunk(tenant, owner, state, cutoffMs)),
        );
        total += removed;
        if (removed < PURGE_CHUNK) break;
        await nextTurn();
      }
    }
    return total;
  }

  /** Deletes up to PURGE_CHUNK tasks of one caller and state, with their configs and events. */
  #purgeChunk(tenant: string, owner: string, state: string, cutoffMs: number): number {
    const ids = this.#sql
      .exec<{ id: string }>(
        `DELETE FROM a2a_tasks WHERE rowid IN (
           SELECT rowid FROM a2a_tasks WHERE tenant = ? AND owner = ? AND state = ? AND status_time_ms < ?
           ORDER BY status_time_ms LIMIT ${PURGE_CHUNK})
         RETURNING id`,
        tenant,
        owner,
        state,
        cutoffMs,
      )
      .toArray();
    for (const { id } of ids) {
      this.#sql.exec(
        'DELETE FROM a2a_push_configs WHERE tenant = ? AND owner = ? AND task_id = ?',
        tenant,
        owner,
        id,
      );
      this.#sql.exec(
        'DELETE FROM a2a_task_events WHERE tenant = ? AND owner = ? AND task_id = ?',
        tenant,
        owner,
        id,
      );
    }
    return ids.length;
  }

  async purgeIdempotencyBefore(cutoffMs: number): Promise<number> {
    // Rowids grow with each new key, so the oldest records come first in rowid order: each
    // chunk looks at the next PURGE_CHUNK of them and stops the walk at the first young one.
    let total = 0;
    for (;;) {
      const n = await settle(() =>
        changedRows(
          this.#sql.exec(
            `DELETE FROM a2a_idempotency WHERE rowid IN (
               SELECT rowid FROM (SELECT rowid, created_ms FROM a2a_idempotency ORDER BY rowid LIMIT ${PURGE_CHUNK})
               WHERE created_ms < ?)
             RETURNING 1 AS changed`,
            cutoffMs,
          ),
        ),
      );
      total += n;
      if (n < PURGE_CHUNK) return total;
      await nextTurn();
    }
  }

  getOrCreateSecret(name: string): Promise<Uint8Array> {
    return settle(() => {
      this.#sql.exec(
        'INSERT INTO a2a_secrets (name, value) VALUES (?, ?) ON CONFLICT DO NOTHING',
        name,
        crypto.getRandomValues(new Uint8Array(32)),
      );
      const { value } = this.#sql
        .exec<{ value: ArrayBuffer }>('SELECT value FROM a2a_secrets WHERE name = ?', name)
        .one();
      return new Uint8Array(value);
    });
  }
}
