/**
 * The Durable Object stores: tasks, idempotency records, execution leases and push configs in
 * one object's SQLite storage (Cloudflare Workers). Runtime-neutral: nothing here imports
 * `cloudflare:workers` or a Node built-in; the storage is passed in.
 */
import { DurableObjectPushConfigStore } from './push-config-store.js';
import type { DurableObjectStorageLike } from './sql-storage.js';
import { DurableObjectTaskStore } from './task-store.js';

export { DurableObjectTaskStore } from './task-store.js';
export { DurableObjectPushConfigStore } from './push-config-store.js';
export { DURABLE_OBJECT_SCHEMA_VERSION } from './schema.js';
export type {
  DurableObjectStorageLike,
  SqlBinding,
  SqlColumnValue,
  SqlRows,
  SqlStorageLike,
} from './sql-storage.js';

/** The stores of one Durable Object, over its `ctx.storage`. */
export interface DurableObjectStores {
  readonly taskStore: DurableObjectTaskStore;
  readonly pushConfigStore: DurableObjectPushConfigStore;
}

/**
 * The task store and the push-config store over `storage` (`ctx.storage` of an object whose
 * class has SQLite storage); the tables are created, or migrated, on the way.
 * @example const { taskStore } = durableObjectStores(ctx.storage);
 */
export function durableObjectStores(storage: DurableObjectStorageLike): DurableObjectStores {
  return {
    taskStore: new DurableObjectTaskStore(storage),
    pushConfigStore: new DurableObjectPushConfigStore(storage),
  };
}
