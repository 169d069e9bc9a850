/** The push notification configs in process memory. */
import type { PushConfigPage, PushConfigStore, StoredPushConfig } from '../push-config-store.js';
import type { TaskScope } from '../task-store.js';

/**
 * A {@link PushConfigStore} in process memory. A config is copied once, when it is put, and
 * frozen (deeply): readers share that one frozen object, so the reads on the delivery path (a
 * list per task event, a get per notification) copy nothing.
 */
export class MemoryPushConfigStore implements PushConfigStore {
  /** Configs by scope + task id, then by config id. */
  readonly #byTask = new Map<string, Map<string, StoredPushConfig>>();

  #key(scope: TaskScope, taskId: string): string {
    return `${scope.tenant}\u0000${scope.owner}\u0000${taskId}`;
  }

  put(
    scope: TaskScope,
    config: StoredPushConfig & { id: string; taskId: string },
  ): Promise<StoredPushConfig> {
    const key = this.#key(scope, config.taskId);
    let configs = this.#byTask.get(key);
    if (!configs) {
      configs = new Map();
      this.#byTask.set(key, configs);
    }
    const stored = deepFreeze(structuredClone(config));
    configs.set(config.id, stored);
    return Promise.resolve(stored);
  }

  /** Whether the task has any config (answered at once: the push outbox asks at every event). */
  hasConfigs(scope: TaskScope, taskId: string): boolean {
    return (this.#byTask.get(this.#key(scope, taskId))?.size ?? 0) > 0;
  }

  get(scope: TaskScope, taskId: string, id: string): Promise<StoredPushConfig | undefined> {
    const config = this.#byTask.get(this.#key(scope, taskId))?.get(id);
    return Promise.resolve(config);
  }

  list(scope: TaskScope, taskId: string, limit: number, afterId?: string): Promise<PushConfigPage> {
    const configs = this.#byTask.get(this.#key(scope, taskId));
    if (!configs) return Promise.resolve({ configs: [], nextAfterId: undefined });
    const ids = [...configs.keys()].sort();
    const from = afterId === undefined ? 0 : ids.findIndex((id) => id > afterId);
    const selected = from < 0 ? [] : ids.slice(from, from + limit);
    const more = from >= 0 && from + limit < ids.length;
    return Promise.resolve({
      configs: selected.map((id) => configs.get(id)!),
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

/** `value` with it and every object it holds frozen. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
