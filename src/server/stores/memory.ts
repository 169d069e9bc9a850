/**
 * In-memory stores: fast, process-local, lost on restart. Records are kept by reference:
 * the TaskManager never mutates a saved task (each change builds a new object), so no
 * copying is needed on the hot path.
 */
import type { TaskPushNotificationConfig } from '../../model/schema.js';
import type { PushConfigPage, PushConfigStore } from './push-config-store.js';
import {
  TaskVersionConflictError,
  type IdempotencyKey,
  type IdempotencyRecord,
  type ListPosition,
  type StoredTask,
  type TaskPage,
  type TaskQuery,
  type TaskScope,
  type TaskStore,
} from './task-store.js';

const scopeKey = (tenant: string, owner: string): string => `${tenant}\u0000${owner}`;

/** Orders newest first: larger status time first, then larger id first. */
function newestFirst(a: StoredTask, b: StoredTask): number {
  if (a.statusTimeMs !== b.statusTimeMs) return b.statusTimeMs - a.statusTimeMs;
  return a.task.id < b.task.id ? 1 : a.task.id > b.task.id ? -1 : 0;
}

/** True when `record` comes strictly after `position` in newest-first order. */
function isAfter(record: StoredTask, position: ListPosition): boolean {
  return (
    record.statusTimeMs < position.statusTimeMs ||
    (record.statusTimeMs === position.statusTimeMs && record.task.id < position.id)
  );
}

/** Options of {@link MemoryTaskStore}. */
export interface MemoryTaskStoreOptions {
  /**
   * How many idempotency records to keep; the oldest are forgotten first.
   * @default 100000
   */
  maxIdempotencyRecords?: number;
}

/** A {@link TaskStore} in process memory. */
export class MemoryTaskStore implements TaskStore {
  /** Tasks by scope, then by id. */
  readonly #scopes = new Map<string, Map<string, StoredTask>>();
  readonly #idempotency = new Map<string, IdempotencyRecord>();
  readonly #maxIdempotency: number;

  constructor(options: MemoryTaskStoreOptions = {}) {
    this.#maxIdempotency = options.maxIdempotencyRecords ?? 100_000;
  }

  get(scope: TaskScope, id: string): Promise<StoredTask | undefined> {
    return Promise.resolve(this.#scopes.get(scopeKey(scope.tenant, scope.owner))?.get(id));
  }

  save(record: StoredTask, expectedVersion: number): Promise<void> {
    const key = scopeKey(record.tenant, record.owner);
    let tasks = this.#scopes.get(key);
    if (!tasks) {
      tasks = new Map();
      this.#scopes.set(key, tasks);
    }
    const current = tasks.get(record.task.id);
    if ((current?.version ?? 0) !== expectedVersion || record.version !== expectedVersion + 1) {
      return Promise.reject(new TaskVersionConflictError(record.task.id));
    }
    tasks.set(record.task.id, record);
    return Promise.resolve();
  }

  list(query: TaskQuery): Promise<TaskPage> {
    const tasks = this.#scopes.get(scopeKey(query.tenant, query.owner));
    if (!tasks) return Promise.resolve({ tasks: [], totalSize: 0, hasMore: false });
    // One pass: count the matches and keep the `limit` newest after the position in a
    // small sorted buffer, so a page costs O(n) rather than a full sort.
    const { after, limit } = query;
    const page: StoredTask[] = [];
    let totalSize = 0;
    let afterPosition = 0;
    for (const record of tasks.values()) {
      if (query.contextId !== undefined && record.task.contextId !== query.contextId) continue;
      if (query.status !== undefined && record.task.status.state !== query.status) continue;
      if (query.statusTimeAtOrAfterMs !== undefined && record.statusTimeMs < query.statusTimeAtOrAfterMs) {
        continue;
      }
      totalSize++;
      if (after && !isAfter(record, after)) continue;
      afterPosition++;
      if (page.length === limit && newestFirst(record, page[limit - 1]!) >= 0) continue;
      let i = page.length;
      while (i > 0 && newestFirst(record, page[i - 1]!) < 0) i--;
      page.splice(i, 0, record);
      if (page.length > limit) page.pop();
    }
    return Promise.resolve({ tasks: page, totalSize, hasMore: afterPosition > limit });
  }

  claimIdempotencyKey(
    key: IdempotencyKey,
    record: IdempotencyRecord,
  ): Promise<IdempotencyRecord | undefined> {
    const k = idempotencyKey(key);
    const existing = this.#idempotency.get(k);
    if (existing) return Promise.resolve(existing);
    this.#idempotency.set(k, record);
    if (this.#idempotency.size > this.#maxIdempotency) {
      const oldest = this.#idempotency.keys().next();
      if (!oldest.done) this.#idempotency.delete(oldest.value);
    }
    return Promise.resolve(undefined);
  }

  setIdempotencyRecord(key: IdempotencyKey, record: IdempotencyRecord | undefined): Promise<void> {
    const k = idempotencyKey(key);
    if (record) this.#idempotency.set(k, record);
    else this.#idempotency.delete(k);
    return Promise.resolve();
  }

  /** Number of stored tasks (all scopes); for tests and diagnostics. */
  get size(): number {
    let n = 0;
    for (const tasks of this.#scopes.values()) n += tasks.size;
    return n;
  }
}

function idempotencyKey(key: IdempotencyKey): string {
  return `${key.tenant}\u0000${key.principal}\u0000${key.messageId}`;
}

/** A {@link PushConfigStore} in process memory. */
export class MemoryPushConfigStore implements PushConfigStore {
  /** Configs by scope + task id, then by config id. */
  readonly #byTask = new Map<string, Map<string, TaskPushNotificationConfig>>();

  #key(scope: TaskScope, taskId: string): string {
    return `${scope.tenant}\u0000${scope.owner}\u0000${taskId}`;
  }

  put(
    scope: TaskScope,
    config: TaskPushNotificationConfig & { id: string; taskId: string },
  ): Promise<TaskPushNotificationConfig> {
    const key = this.#key(scope, config.taskId);
    let configs = this.#byTask.get(key);
    if (!configs) {
      configs = new Map();
      this.#byTask.set(key, configs);
    }
    const stored = structuredClone(config);
    configs.set(config.id, stored);
    return Promise.resolve(structuredClone(stored));
  }

  get(scope: TaskScope, taskId: string, id: string): Promise<TaskPushNotificationConfig | undefined> {
    const config = this.#byTask.get(this.#key(scope, taskId))?.get(id);
    return Promise.resolve(config ? structuredClone(config) : undefined);
  }

  list(scope: TaskScope, taskId: string, limit: number, afterId?: string): Promise<PushConfigPage> {
    const configs = this.#byTask.get(this.#key(scope, taskId));
    if (!configs) return Promise.resolve({ configs: [], nextAfterId: undefined });
    const ids = [...configs.keys()].sort();
    const from = afterId === undefined ? 0 : ids.findIndex((id) => id > afterId);
    const selected = from < 0 ? [] : ids.slice(from, from + limit);
    const more = from >= 0 && from + limit < ids.length;
    return Promise.resolve({
      configs: selected.map((id) => structuredClone(configs.get(id)!)),
      nextAfterId: more ? selected[selected.length - 1] : undefined,
    });
  }

  delete(scope: TaskScope, taskId: string, id: string): Promise<boolean> {
    return Promise.resolve(this.#byTask.get(this.#key(scope, taskId))?.delete(id) ?? false);
  }

  deleteAll(scope: TaskScope, taskId: string): Promise<void> {
    this.#byTask.delete(this.#key(scope, taskId));
    return Promise.resolve();
  }
}
