/**
 * The SQLite store's errors: what a failed write is rejected with, and why a file could not be
 * opened, from SQLite's result codes.
 */
import { UnavailableError } from '../../../errors/a2a-error.js';
import { SchemaTooNewError, StoreOpenError } from '../sql/shared.js';

/** Extended SQLite result codes that mean the file is not a usable database. */
const CORRUPT_CODES = new Set(['SQLITE_NOTADB', 'SQLITE_CORRUPT']);
const LOCKED_CODES = new Set([
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_BUSY_SNAPSHOT',
  'SQLITE_BUSY_RECOVERY',
]);

/** The SQLite result code of `error` (empty when it has none). */
export function sqliteCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

/**
 * What a write that failed with `error` is rejected with: a full disk or an I/O error is the
 * server unable to serve for now (UnavailableError: HTTP 503, gRPC UNAVAILABLE, JSON-RPC
 * -32603), saying why in SQLite's words (which name no path), so a caller learns it may send
 * the same request again later; anything else (a version conflict) is passed on as it is.
 */
export function refusal(error: unknown): unknown {
  const code = sqliteCode(error);
  if (code !== 'SQLITE_FULL' && !code.startsWith('SQLITE_IOERR')) return error;
  const reason = error instanceof Error ? error.message : code;
  const what = code === 'SQLITE_FULL' ? 'is full' : 'could not write';
  return new UnavailableError(`the server's store ${what} (${reason}); retry later`, { cause: error });
}

/** The error to show when opening `path` failed with `error`. */
export function openError(path: string, error: unknown, busyTimeoutMs: number): Error {
  if (error instanceof SchemaTooNewError || error instanceof StoreOpenError) return error;
  const code = sqliteCode(error);
  const reason = error instanceof Error ? error.message : String(error);
  if (CORRUPT_CODES.has(code)) {
    return new StoreOpenError(
      `SQLite store ${path} is not a database or is damaged (${code}: ${reason}); ` +
        'restore it from a backup or move it away to start with an empty store',
      { cause: error },
    );
  }
  if (LOCKED_CODES.has(code)) {
    return new StoreOpenError(
      `SQLite store ${path} is locked by another connection or process (${code} after waiting ${busyTimeoutMs} ms); ` +
        'stop the other a2a server using this file, or give this one its own file',
      { cause: error },
    );
  }
  return new StoreOpenError(`SQLite store ${path} cannot be opened: ${reason}`, { cause: error });
}
