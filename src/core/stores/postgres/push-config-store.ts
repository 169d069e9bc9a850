/** A {@link PushConfigStore} on PostgreSQL, in the same database as the tasks. */
import type { PushConfigPage, PushConfigStore, StoredPushConfig } from '../push-config-store.js';
import type { TaskScope } from '../task-store.js';
import type { PostgresDatabase } from './database.js';
import { faultAt } from '../fault-points.js';

/** A {@link PushConfigStore} on PostgreSQL: one row per config, the config as JSON text. */
export class PostgresPushConfigStore implements PushConfigStore {
  #closed = false;

  /** A store on an open database (usually the one a PostgresTaskStore uses). */
  constructor(readonly database: PostgresDatabase) {
    database.retain();
  }

  async put(
    scope: TaskScope,
    config: StoredPushConfig & { id: string; taskId: string },
  ): Promise<StoredPushConfig> {
    const doc = JSON.stringify(config);
    faultAt?.('push.config.put');
    // An upsert: safe to repeat after a lost connection.
    await this.#write(
      `INSERT INTO a2a_push_configs (tenant, owner, task_id, id, doc) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (tenant, owner, task_id, id) DO UPDATE SET doc = excluded.doc`,
      [scope.tenant, scope.owner, config.taskId, config.id, doc],
    );
    return JSON.parse(doc) as StoredPushConfig;
  }

  async get(scope: TaskScope, taskId: string, id: string): Promise<StoredPushConfig | undefined> {
    const { rows } = await this.database.query<{ doc: string }>(
      'SELECT doc FROM a2a_push_configs WHERE tenant = $1 AND owner = $2 AND task_id = $3 AND id = $4',
      [scope.tenant, scope.owner, taskId, id],
    );
    return rows[0] ? (JSON.parse(rows[0].doc) as StoredPushConfig) : undefined;
  }

  async list(scope: TaskScope, taskId: string, limit: number, afterId?: string): Promise<PushConfigPage> {
    const { rows } = await this.database.query<{ id: string; doc: string }>(
      `SELECT id, doc FROM a2a_push_configs WHERE tenant = $1 AND owner = $2 AND task_id = $3 AND id > $4
       ORDER BY id LIMIT $5`,
      [scope.tenant, scope.owner, taskId, afterId ?? '', limit + 1],
    );
    const more = rows.length > limit;
    if (more) rows.pop();
    return {
      configs: rows.map((row) => JSON.parse(row.doc) as StoredPushConfig),
      nextAfterId: more ? rows[rows.length - 1]!.id : undefined,
    };
  }

  async delete(scope: TaskScope, taskId: string, id: string): Promise<boolean> {
    faultAt?.('push.config.delete');
    const count = await this.#write(
      'DELETE FROM a2a_push_configs WHERE tenant = $1 AND owner = $2 AND task_id = $3 AND id = $4',
      [scope.tenant, scope.owner, taskId, id],
    );
    return count > 0;
  }

  async deleteAll(scope: TaskScope, taskId: string): Promise<void> {
    faultAt?.('push.config.delete');
    await this.database.query(
      'DELETE FROM a2a_push_configs WHERE tenant = $1 AND owner = $2 AND task_id = $3',
      [scope.tenant, scope.owner, taskId],
    );
  }

  /** A batched write that is safe to repeat; resolves with its row count. */
  #write(sql: string, params: unknown[]): Promise<number> {
    return this.database.write({
      sql,
      params,
      done: (result) => result.rowCount ?? 0,
      alone: async () => (await this.database.query(sql, params)).rowCount ?? 0,
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.database.release();
  }
}
