/**
 * Opens the stores named by a store option: `memory`, `sqlite:<path>` or a `postgres://` (or
 * `postgresql://`) URL, where `?schema=<name>` puts the tables in that PostgreSQL schema. The task
 * store, the push-config store and the push outbox share one file or one pool.
 */
import type { EventBus } from '../event-bus/event-bus.js';
import { MemoryPushOutbox } from '../push/memory-outbox.js';
import type { PushOutbox } from '../push/outbox.js';
import { PostgresEventBus } from '../event-bus/postgres.js';
import { MemoryPushConfigStore } from './memory/push-config-store.js';
import { MemoryTaskStore } from './memory/task-store.js';
import { PostgresDatabase, type PostgresOptions } from './postgres/database.js';
import { PostgresPushConfigStore } from './postgres/push-config-store.js';
import { PostgresPushOutbox } from './postgres/push-outbox.js';
import { PostgresTaskStore } from './postgres/task-store.js';
import type { PushConfigStore } from './push-config-store.js';
import { SqliteDatabase, type SqliteOptions } from './sqlite/database.js';
import { SqlitePushConfigStore } from './sqlite/push-config-store.js';
import { SqlitePushOutbox } from './sqlite/push-outbox.js';
import type { SqlPushOutboxOptions } from './sql/push-outbox-rows.js';
import { SqliteTaskStore } from './sqlite/task-store.js';
import type { TaskStore } from './task-store.js';

/** A store option as text: `memory`, `sqlite:<path>`, `postgres://...`. */
export type StoreSpec = 'memory' | `sqlite:${string}` | `postgres://${string}` | `postgresql://${string}`;

/** The stores of one server. */
export interface OpenedStores {
  readonly taskStore: TaskStore;
  readonly pushConfigStore: PushConfigStore;
  /**
   * Where push notifications wait, over `pushConfigStore`: in the same SQLite file or
   * PostgreSQL database as the tasks (durable, shared by replicas), or in memory.
   */
  readonly pushOutbox: PushOutbox;
  /** The event bus that goes with the store, when it spans processes (PostgreSQL: LISTEN/NOTIFY). */
  readonly eventBus?: EventBus;
  /** Settles once the stores can be used (PostgreSQL connects and migrates); rejects with the reason. */
  readonly ready: Promise<void>;
  /** Closes the stores and the outbox (commits queued writes, ends the pool). */
  close(): Promise<void>;
}

/** Options for the stores {@link openStores} makes. */
export interface OpenStoresOptions {
  sqlite?: SqliteOptions;
  postgres?: Omit<PostgresOptions, 'connectionString'>;
  /** Retention of the SQL push outbox (finished deliveries, attempts kept). */
  pushOutbox?: SqlPushOutboxOptions;
}

/** True when `spec` is one {@link openStores} accepts. */
export function isStoreSpec(spec: string): spec is StoreSpec {
  return (
    spec === 'memory' ||
    (spec.startsWith('sqlite:') && spec.length > 'sqlite:'.length) ||
    spec.startsWith('postgres://') ||
    spec.startsWith('postgresql://')
  );
}

/**
 * Opens the stores `spec` names. SQLite opens (and migrates) at once and throws on a corrupt,
 * locked or too new file; PostgreSQL connects in the background and reports through `ready`.
 */
export function openStores(spec: string, options: OpenStoresOptions = {}): OpenedStores {
  if (spec === 'memory') {
    const pushConfigStore = new MemoryPushConfigStore();
    return {
      taskStore: new MemoryTaskStore(),
      pushConfigStore,
      pushOutbox: new MemoryPushOutbox(pushConfigStore),
      ready: Promise.resolve(),
      close: () => Promise.resolve(),
    };
  }
  if (spec.startsWith('sqlite:') && spec.length > 'sqlite:'.length) {
    const database = SqliteDatabase.open(spec.slice('sqlite:'.length), options.sqlite);
    const taskStore = new SqliteTaskStore(database);
    const pushConfigStore = new SqlitePushConfigStore(database);
    const pushOutbox = new SqlitePushOutbox(database, options.pushOutbox);
    database.release();
    return {
      taskStore,
      pushConfigStore,
      pushOutbox,
      ready: Promise.resolve(),
      close: async () => {
        await pushOutbox.close();
        await pushConfigStore.close();
        await taskStore.close();
      },
    };
  }
  if (spec.startsWith('postgres://') || spec.startsWith('postgresql://')) {
    const { connectionString, schema } = splitSchema(spec);
    const database = PostgresDatabase.create({
      ...options.postgres,
      connectionString,
      ...(schema !== undefined ? { schema } : {}),
    });
    const taskStore = new PostgresTaskStore(database);
    const pushConfigStore = new PostgresPushConfigStore(database);
    const pushOutbox = new PostgresPushOutbox(database, options.pushOutbox);
    const eventBus = new PostgresEventBus(database, {
      readTask: (scope, taskId) => taskStore.get(scope, taskId),
    });
    void database.release();
    return {
      taskStore,
      pushConfigStore,
      pushOutbox,
      eventBus,
      ready: eventBus.ready,
      close: async () => {
        await eventBus.close();
        await pushOutbox.close();
        await pushConfigStore.close();
        await taskStore.close();
      },
    };
  }
  throw new Error(
    `store ${JSON.stringify(spec)} is not supported: use 'memory', 'sqlite:<path>' or a postgres:// URL`,
  );
}

/** `postgres://.../db?schema=name`: the URL without `schema`, and the schema it names. */
function splitSchema(spec: string): { connectionString: string; schema: string | undefined } {
  const url = new URL(spec);
  const schema = url.searchParams.get('schema');
  if (schema === null) return { connectionString: spec, schema: undefined };
  url.searchParams.delete('schema');
  return { connectionString: url.toString(), schema };
}
