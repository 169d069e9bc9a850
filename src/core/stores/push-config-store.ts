/**
 * Persistence of push-notification configs. Configs belong to a task; the handler checks
 * the caller may see the task before it calls the store, and passes the task's scope.
 */
import type { TaskPushNotificationConfig } from '../../model/schema.js';
import type { TaskScope } from './task-store.js';

/** A page of configs, ordered by id. */
export interface PushConfigPage {
  readonly configs: TaskPushNotificationConfig[];
  /** Id to continue after, or undefined on the last page. */
  readonly nextAfterId: string | undefined;
}

/** Where push configs live. Implementations: memory (here), SQLite and PostgreSQL (later). */
export interface PushConfigStore {
  /** Inserts or replaces `config` (its `id` and `taskId` set) and returns the stored config. */
  put(
    scope: TaskScope,
    config: TaskPushNotificationConfig & { id: string; taskId: string },
  ): Promise<TaskPushNotificationConfig>;
  /** The config `id` of task `taskId`, or undefined. */
  get(scope: TaskScope, taskId: string, id: string): Promise<TaskPushNotificationConfig | undefined>;
  /** Configs of a task ordered by id, `limit` at most, after `afterId` when given. */
  list(scope: TaskScope, taskId: string, limit: number, afterId?: string): Promise<PushConfigPage>;
  /** Removes one config; true when it existed. */
  delete(scope: TaskScope, taskId: string, id: string): Promise<boolean>;
  /** Removes every config of a task (when the task is purged). */
  deleteAll(scope: TaskScope, taskId: string): Promise<void>;
  close?(): Promise<void>;
}
