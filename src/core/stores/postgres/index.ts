/**
 * `a2a-kit/postgres`: the PostgreSQL stores and event bus (pg, Node.js). Replicas that share one
 * database share tasks, push configs, the push outbox and (LISTEN/NOTIFY) task events;
 * `openStores('postgres://...')` opens them all.
 */
export { PostgresDatabase } from './database.js';
export type { PostgresOptions } from './database.js';
export { PostgresTaskStore } from './task-store.js';
export { PostgresPushConfigStore } from './push-config-store.js';
export { PostgresPushOutbox } from './push-outbox.js';
export { PostgresEventBus } from '../../event-bus/postgres.js';
export type { SqlPushOutboxOptions } from '../sql/push-outbox-rows.js';
export { SchemaTooNewError, StoreOpenError } from '../sql/shared.js';
