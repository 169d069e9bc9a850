/**
 * The part of a Cloudflare Durable Object's storage the Durable Object stores use, declared
 * structurally so a2a-kit needs neither `@cloudflare/workers-types` nor `cloudflare:workers`:
 * `ctx.storage` of an object whose class has SQLite storage (`new_sqlite_classes` in wrangler's
 * migrations, `enableSql = true` in workerd's config) is one as it is.
 */

/** A value bound to a `?` placeholder. */
export type SqlBinding = string | number | null | ArrayBuffer | Uint8Array;

/** A column value as read: integers and reals are numbers, blobs ArrayBuffers. */
export type SqlColumnValue = string | number | null | ArrayBuffer;

/** The rows of one `exec` (Cloudflare's `SqlStorageCursor`). */
export interface SqlRows<T> extends Iterable<T> {
  /** Every row. */
  toArray(): T[];
  /** The only row; throws when there is none or more than one. */
  one(): T;
}

/** `ctx.storage.sql` (Cloudflare's `SqlStorage`). */
export interface SqlStorageLike {
  /** Runs `query` (one statement, or several separated by `;` without bindings) at once. */
  exec<T extends Record<string, SqlColumnValue>>(query: string, ...bindings: SqlBinding[]): SqlRows<T>;
}

/** `ctx.storage` of a Durable Object with SQLite storage (Cloudflare's `DurableObjectStorage`). */
export interface DurableObjectStorageLike {
  readonly sql: SqlStorageLike;
  /** Runs `fn` as one transaction: rolled back when it throws. */
  transactionSync<T>(fn: () => T): T;
}

/**
 * `fn`'s result as a settled promise: the storage is synchronous, and the store contract is
 * async. A throw becomes a rejection, never an exception out of the call.
 */
export function settle<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

/**
 * How many rows a write statement with `RETURNING 1 AS changed` changed. Not the cursor's
 * `rowsWritten`: Cloudflare counts index entries there too (an UPDATE of one row in a table
 * with an index reports 2 on workerd).
 */
export function changedRows(rows: SqlRows<{ changed: number }>): number {
  return rows.toArray().length;
}
