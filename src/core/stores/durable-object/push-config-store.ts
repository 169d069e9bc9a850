/**
 * A {@link PushConfigStore} in the same Durable Object storage as the tasks (retention deletes a
 * task's configs with it): one row per config, the config as JSON, the SQLite store's rows.
 */
import type { PushConfigPage, PushConfigStore, StoredPushConfig } from '../push-config-store.js';
import type { TaskScope } from '../task-store.js';
import { migrate } from './schema.js';
import { changedRows, settle, type DurableObjectStorageLike, type SqlStorageLike } from './sql-storage.js';

/** A {@link PushConfigStore} over a Durable Object's SQLite storage (`ctx.storage`). */
export class DurableObjectPushConfigStore implements PushConfigStore {
  readonly #sql: SqlStorageLike;

  constructor(storage: DurableObjectStorageLike) {
    this.#sql = storage.sql;
    migrate(storage);
  }

  put(
    scope: TaskScope,
    config: StoredPushConfig & { id: string; taskId: string },
  ): Promise<StoredPushConfig> {
    return settle(() => {
      const doc = JSON.stringify(config);
      this.#sql.exec(
        `INSERT INTO a2a_push_configs (tenant, owner, task_id, id, doc) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (tenant, owner, task_id, id) DO UPDATE SET doc = excluded.doc`,
        scope.tenant,
        scope.owner,
        config.taskId,
        config.id,
        doc,
      );
      return JSON.parse(doc) as StoredPushConfig;
    });
  }

  get(scope: TaskScope, taskId: string, id: string): Promise<StoredPushConfig | undefined> {
    return settle(() => {
      const row = this.#sql
        .exec<{ doc: string }>(
          'SELECT doc FROM a2a_push_configs WHERE tenant = ? AND owner = ? AND task_id = ? AND id = ?',
          scope.tenant,
          scope.owner,
          taskId,
          id,
        )
        .toArray()[0];
      return row ? (JSON.parse(row.doc) as StoredPushConfig) : undefined;
    });
  }

  list(scope: TaskScope, taskId: string, limit: number, afterId?: string): Promise<PushConfigPage> {
    return settle(() => {
      const rows = this.#sql
        .exec<{ id: string; doc: string }>(
          `SELECT id, doc FROM a2a_push_configs WHERE tenant = ? AND owner = ? AND task_id = ? AND id > ?
           ORDER BY id LIMIT ?`,
          scope.tenant,
          scope.owner,
          taskId,
          afterId ?? '',
          limit + 1,
        )
        .toArray();
      const more = rows.length > limit;
      if (more) rows.pop();
      return {
        configs: rows.map((row) => JSON.parse(row.doc) as StoredPushConfig),
        nextAfterId: more ? rows[rows.length - 1]!.id : undefined,
      };
    });
  }

  delete(scope: TaskScope, taskId: string, id: string): Promise<boolean> {
    return settle(
      () =>
        changedRows(
          this.#sql.exec(
            `DELETE FROM a2a_push_configs WHERE tenant = ? AND owner = ? AND task_id = ? AND id = ?
             RETURNING 1 AS changed`,
            scope.tenant,
            scope.owner,
            taskId,
            id,
          ),
        ) > 0,
    );
  }

  deleteAll(scope: TaskScope, taskId: string): Promise<void> {
    return settle(() => {
      this.#sql.exec(
        'DELETE FROM a2a_push_configs WHERE tenant = ? AND owner = ? AND task_id = ?',
        scope.tenant,
        scope.owner,
        taskId,
      );
    });
  }
}
