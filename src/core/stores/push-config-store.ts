/**
 * Persistence of push-notification configs. Configs belong to a task; the handler checks
 * the caller may see the task before it calls the store, and passes the task's scope.
 */
import type { TaskPushNotificationConfig } from '../../model/schema.js';
import type { TaskScope } from './task-store.js';

/**
 * A config as a store keeps it: the wire config and what the server recorded beside it. Stores
 * keep the whole object as one document; the handler takes the recorded facts off before a
 * config goes back to a client (`wirePushConfig`).
 */
export interface StoredPushConfig extends TaskPushNotificationConfig {
  /**
   * The A2A protocol version of the call that registered the config (`ServerCallContext.
   * protocolVersion`: `1.0`, or `0.3` through the v0.3 layer); delivery sends notifications in
   * that version's form (SRV-COMPAT-8). Absent on configs stored before it was recorded: 1.0.
   */
  protocolVersion?: string;
  /**
   * A2A 1.1 draft (GEN-6): the call that registered the config opted in (`A2A-Version: 1.1` or
   * the generation extension), so its notifications carry `generation` while the feature is on.
   * Absent: v1.0 notifications, byte for byte.
   */
  generation?: boolean;
}

/** A page of configs, ordered by id. */
export interface PushConfigPage {
  readonly configs: StoredPushConfig[];
  /** Id to continue after, or undefined on the last page. */
  readonly nextAfterId: string | undefined;
}

/** Where push configs live. Implementations: memory, SQLite and PostgreSQL. */
export interface PushConfigStore {
  /** Inserts or replaces `config` (its `id` and `taskId` set) and returns it as stored, every field kept. */
  put(scope: TaskScope, config: StoredPushConfig & { id: string; taskId: string }): Promise<StoredPushConfig>;
  /** The config `id` of task `taskId`, or undefined. */
  get(scope: TaskScope, taskId: string, id: string): Promise<StoredPushConfig | undefined>;
  /** Configs of a task ordered by id, `limit` at most, after `afterId` when given. */
  list(scope: TaskScope, taskId: string, limit: number, afterId?: string): Promise<PushConfigPage>;
  /** Removes one config; true when it existed. */
  delete(scope: TaskScope, taskId: string, id: string): Promise<boolean>;
  /** Removes every config of a task (when the task is purged). */
  deleteAll(scope: TaskScope, taskId: string): Promise<void>;
  /** Releases what the store holds (statements, connections); called once, at shutdown. */
  close?(): Promise<void>;
}

/**
 * The config as a client sees it: the wire fields only, so nothing recorded beside them (the
 * version, the generation opt-in) reaches a client, whatever else a stored document holds.
 */
export function wirePushConfig(config: StoredPushConfig): TaskPushNotificationConfig {
  return {
    ...(config.id !== undefined ? { id: config.id } : {}),
    ...(config.taskId !== undefined ? { taskId: config.taskId } : {}),
    url: config.url,
    ...(config.token !== undefined ? { token: config.token } : {}),
    ...(config.authentication !== undefined ? { authentication: config.authentication } : {}),
  };
}
