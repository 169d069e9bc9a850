/**
 * `a2a-kit/sqlite`: the SQLite stores (better-sqlite3, Node.js only). One file holds the tasks,
 * the push configs and the push outbox; `openStores('sqlite:<path>')` opens all three.
 */
export { SqliteDatabase } from './database.js';
export type { SqliteOptions } from './database.js';
export { SqliteTaskStore } from './task-store.js';
export { SqlitePushConfigStore } from './push-config-store.js';
export { SqlitePushOutbox } from './push-outbox.js';
export type { SqlPushOutboxOptions } from '../sql/push-outbox-rows.js';
export { SchemaTooNewError, StoreOpenError } from '../sql/shared.js';
