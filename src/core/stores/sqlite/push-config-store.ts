/** A {@link PushConfigStore} in the same SQLite file as the tasks. */
import type { Statement } from 'better-sqlite3';
import type { PushConfigPage, PushConfigStore, StoredPushConfig } from '../push-config-store.js';
import type { TaskScope } from '../task-store.js';
import { SqliteDatabase, type SqliteOptions } from './database.js';
import { faultAt } from '../fault-points.js';

/** A {@link PushConfigStore} in SQLite: one row per config, the config as JSON. */
export class SqlitePushConfigStore implements PushConfigStore {
  readonly database: SqliteDatabase;
  readonly #put: Statement;
  readonly #get: Statement<[string, string, string, string], { doc: string }>;
  readonly #list: Statement<[string, string, string, string, number], { id: string; doc: string }>;
  readonly #delete: Statement;
  readonly #deleteAll: Statement;
  #closed = false;

  /** A store on `database` (usually the one a {@link SqliteTaskStore} uses), or on the file at `path`. */
  constructor(database: SqliteDatabase | string, options: SqliteOptions = {}) {
    this.database = typeof database === 'string' ? SqliteDatabase.open(database, options) : database.retain();
    const db = this.database.db;
    this.#put = db.prepare(
      `INSERT INTO a2a_push_configs (tenant, owner, task_id, id, doc) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (tenant, owner, task_id, id) DO UPDATE SET doc = excluded.doc`,
    );
    this.#get = db.prepare(
      'SELECT doc FROM a2a_push_configs WHERE tenant = ? AND owner = ? AND task_id = ? AND id = ?',
    );
    this.#list = db.prepare(
      `SELECT id, doc FROM a2a_push_configs WHERE tenant = ? AND owner = ? AND task_id = ? AND id > ?
       ORDER BY id LIMIT ?`,
    );
    this.#delete = db.prepare(
      'DELETE FROM a2a_push_configs WHERE tenant = ? AND owner = ? AND task_id = ? AND id = ?',
    );
    this.#deleteAll = db.prepare(
      'DELETE FROM a2a_push_configs WHERE tenant = ? AND owner = ? AND task_id = ?',
    );
  }

  put(
    scope: TaskScope,
    config: StoredPushConfig & { id: string; taskId: string },
  ): Promise<StoredPushConfig> {
    const doc = JSON.stringify(config);
    // Before the write is queued: an event staged from now on carries its payload.
    const settled = this.database.pushConfigs.added();
    return this.database
      .write(() => {
        faultAt?.('push.config.put');
        this.#put.run(scope.tenant, scope.owner, config.taskId, config.id, doc);
        return JSON.parse(doc) as StoredPushConfig;
      })
      .finally(settled);
  }

  get(scope: TaskScope, taskId: string, id: string): Promise<StoredPushConfig | undefined> {
    try {
      this.database.check();
      const row = this.#get.get(scope.tenant, scope.owner, taskId, id);
      return Promise.resolve(row ? (JSON.parse(row.doc) as StoredPushConfig) : undefined);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  list(scope: TaskScope, taskId: string, limit: number, afterId?: string): Promise<PushConfigPage> {
    try {
      this.database.check();
      const rows = this.#list.all(scope.tenant, scope.owner, taskId, afterId ?? '', limit + 1);
      const more = rows.length > limit;
      if (more) rows.pop();
      return Promise.resolve({
        configs: rows.map((row) => JSON.parse(row.doc) as StoredPushConfig),
        nextAfterId: more ? rows[rows.length - 1]!.id : undefined,
      });
    } catch (error) {
      return Promise.reject(error);
    }
  }

  delete(scope: TaskScope, taskId: string, id: string): Promise<boolean> {
    return this.database.write(() => {
      faultAt?.('push.config.delete');
      const deleted = this.#delete.run(scope.tenant, scope.owner, taskId, id).changes > 0;
      if (deleted) this.database.pushConfigs.removed();
      return deleted;
    });
  }

  deleteAll(scope: TaskScope, taskId: string): Promise<void> {
    return this.database.write(() => {
      faultAt?.('push.config.delete');
      if (this.#deleteAll.run(scope.tenant, scope.owner, taskId).changes > 0)
        this.database.pushConfigs.removed();
    });
  }

  close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      this.database.release();
    }
    return Promise.resolve();
  }
}
