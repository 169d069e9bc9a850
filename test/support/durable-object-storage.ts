/**
 * A Durable Object's `ctx.storage` (the SQLite part a2a-kit uses) over a better-sqlite3 file, so
 * the Durable Object stores run the store contract on Node. It refuses what Cloudflare refuses
 * (transaction statements and pragmas in `exec`, found on workerd 1.20261117) and answers as
 * Cloudflare does: blobs as ArrayBuffers, `one()` only for exactly one row. The stores' real
 * home is checked by test/runtimes/workerd-durable-object.test.ts.
 */
import Database from 'better-sqlite3';
import type {
  DurableObjectStorageLike,
  SqlBinding,
  SqlColumnValue,
  SqlRows,
} from '../../src/core/stores/durable-object/sql-storage.js';

const REFUSED = /^\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|PRAGMA)\b/i;

function bind(value: SqlBinding): string | number | null | Buffer {
  if (value instanceof ArrayBuffer) return Buffer.from(value);
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  return value;
}

function column(value: unknown): SqlColumnValue {
  // A copy in an ArrayBuffer of its own (a Buffer may be a view of a shared pool).
  if (Buffer.isBuffer(value)) return new Uint8Array(value).buffer;
  if (typeof value === 'bigint') return Number(value);
  return value as SqlColumnValue;
}

function rowsOf<T>(list: T[]): SqlRows<T> {
  return {
    toArray: () => list,
    one: () => {
      if (list.length !== 1)
        throw new Error(`Expected exactly one result from SQL query, but got ${list.length}`);
      return list[0]!;
    },
    [Symbol.iterator]: () => list[Symbol.iterator](),
  };
}

/** The storage, and close() for the file it holds open. */
export interface TestDurableObjectStorage extends DurableObjectStorageLike {
  close(): void;
}

/** The storage of one object, in the SQLite file at `path` (created when missing). */
export function openTestDurableObjectStorage(path: string): TestDurableObjectStorage {
  const db = new Database(path);
  return {
    sql: {
      exec<T extends Record<string, SqlColumnValue>>(query: string, ...bindings: SqlBinding[]): SqlRows<T> {
        if (REFUSED.test(query)) throw new Error(`not authorized: ${query.trim().split(/\s/)[0]}`);
        let statement: Database.Statement;
        try {
          statement = db.prepare(query);
        } catch (error) {
          // Several statements: Cloudflare runs them all (the schema's migrations do this).
          if (error instanceof RangeError && bindings.length === 0) {
            db.exec(query);
            return rowsOf<T>([]);
          }
          throw error;
        }
        const values = bindings.map(bind);
        if (!statement.reader) {
          statement.run(...values);
          return rowsOf<T>([]);
        }
        const rows = (statement.all(...values) as Record<string, unknown>[]).map((row) => {
          const out: Record<string, SqlColumnValue> = {};
          for (const [key, value] of Object.entries(row)) out[key] = column(value);
          return out as T;
        });
        return rowsOf(rows);
      },
    },
    transactionSync: <R>(fn: () => R): R => db.transaction(fn)(),
    close: () => db.close(),
  };
}
