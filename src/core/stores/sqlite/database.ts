/**
 * One SQLite file opened for the stores: WAL journal, the schema migrated on open inside one
 * transaction, and clear errors for a file that is corrupt, locked or from a newer a2a-kit.
 * The task store and the push-config store share one connection (and so one transaction
 * stream); the file closes when the last of them closes.
 */
import type * as Fs from 'node:fs';
import type * as Path from 'node:path';
import type Database from 'better-sqlite3';
import { requireNode } from '../../node-modules.js';
import { addFaultDisk, faultAt, type FaultDisk } from '../fault-points.js';
import { StoreOpenError } from '../sql/shared.js';
import { migrate } from './schema.js';
import { TaskCountChanges } from './task-counts.js';
import { PushConfigPresence } from './push-config-presence.js';
import { WalSync } from './wal-sync.js';
import { WriteLockWait } from './write-lock-wait.js';
import { openError, refusal, sqliteCode } from './sqlite-errors.js';

/** Options of {@link SqliteDatabase.open}. */
export interface SqliteOptions {
  /**
   * How long a write waits for the lock another connection or process holds before failing.
   * Batched writes (every task change) wait for it on a timer; the few other statements
   * (opening, migrating, retention) wait inside SQLite, which blocks this thread
   * (better-sqlite3 is synchronous), so keep it short: one process normally owns the file.
   * @default 2000
   */
  busyTimeoutMs?: number;
  /**
   * `full`: every commit is on disk before its writes are acknowledged, so an acknowledged
   * event survives a power loss (the write-ahead log is synced on a worker thread after each
   * commit, while the event loop goes on; the writes of commits made meanwhile share the next
   * sync). `normal`: a commit survives a crash of the process but the last ones may be lost on
   * a power loss or an OS crash (no syncs but at checkpoints).
   * @default 'full'
   */
  synchronous?: 'full' | 'normal';
  /**
   * For fault-injection tests only (off by default): awaited before each background sync of
   * the write-ahead log with `synchronous: 'full'`; delaying it stands in for a slow disk, and
   * a rejection fails that sync with its error, as an `fdatasync` EIO would.
   */
  beforeSyncForTests?: () => Promise<void>;
}

/** A write waiting for the next batch. */
interface QueuedWrite {
  readonly run: () => unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
  /** Acknowledged once on disk (else once committed: see {@link SqliteDatabase.write}). */
  readonly durable: boolean;
  /** Goes before the writes not yet on disk (see {@link SqliteWriteOptions.seesOnlyDurable}). */
  readonly leading: boolean;
}

/** Options of {@link SqliteDatabase.write}. */
export interface SqliteWriteOptions {
  /** Acknowledged once on disk (true, the default) or once committed (false). */
  durable?: boolean;
  /**
   * Sees only what is on disk: run at the start of its batch, before the batch's other
   * writes, so the uncommitted (hence unsynced) changes of those are not visible to it.
   * Earlier batches are all synced by then: while such a write waits, no batch is committed
   * during a sync (so the syncs running and queued end, and its batch waits for that), and
   * none after a sync failed.
   */
  seesOnlyDurable?: boolean;
}

/**
 * Write options of a write answered at its commit, without waiting for the log's sync (see
 * {@link SqliteDatabase.write}): for writes whose loss in a power failure costs nothing.
 */
export const AT_COMMIT = { durable: false } as const;

/**
 * Write options of a push claim: answered at its commit, and it sees only durable rows (see
 * {@link SqliteWriteOptions.seesOnlyDurable}), so no notification is sent before its change
 * is on disk.
 */
export const DURABLE_ONLY_AT_COMMIT = { durable: false, seesOnlyDurable: true } as const;

/** Most writes committed in one transaction; more wait for the next one (keeps each commit short). */
const MAX_BATCH = 512;

/** An open SQLite file with the a2a-kit schema. */
export class SqliteDatabase {
  #refs = 1;
  #queue: QueuedWrite[] = [];
  /** How many writes at the head of #queue see only durable rows (they go first in their batch). */
  #leading = 0;
  #scheduled = false;
  /** Set once a sync of the log failed: the file's last commits may not be on disk. */
  #failure: StoreOpenError | undefined;
  /** Syncs the log after commits (`synchronous: 'full'` on a file); undefined: SQLite syncs, or nothing to sync. */
  readonly #walSync: WalSync | undefined;

  /** A batch waiting for the write lock another connection holds. */
  readonly #lockWait: WriteLockWait;

  /** The busy timeout off and back on around a batch's BEGIN (prepared once: `pragma()` parses each time). */
  readonly #busyTimeout: { readonly off: Database.Statement; readonly on: Database.Statement };

  /** Removes this connection from the fault hook's disks (only while the hook is on). */
  readonly #removeFaultDisk: (() => void) | undefined;

  /** The task count changes of the transaction being written, written at its end. */
  readonly taskCounts: TaskCountChanges;

  /** Whether the file holds any push config (the outbox skips its work per event when not). */
  readonly pushConfigs: PushConfigPresence;

  /** Runs a batch's writes in one transaction (made once: better-sqlite3 prepares BEGIN/COMMIT). */
  readonly #runBatch: Database.Transaction<
    (batch: QueuedWrite[], results: { ok: boolean; value: unknown }[]) => void
  >;

  private constructor(
    readonly db: Database.Database,
    readonly path: string,
    walPath: string | undefined,
    busyTimeoutMs: number,
    beforeSync?: () => Promise<void>,
  ) {
    this.#lockWait = new WriteLockWait(busyTimeoutMs, () => this.#schedule());
    this.#busyTimeout = {
      off: db.prepare('PRAGMA busy_timeout = 0'),
      on: db.prepare(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`),
    };
    this.#walSync = walPath === undefined ? undefined : new WalSync(walPath, this.#schedule, beforeSync);
    const counts = (this.taskCounts = new TaskCountChanges(db));
    this.pushConfigs = new PushConfigPresence(db);
    this.#removeFaultDisk = faultAt ? addFaultDisk(fillableDisk(db)) : undefined;
    this.#runBatch = db.transaction((batch: QueuedWrite[], results: { ok: boolean; value: unknown }[]) => {
      for (const write of batch) {
        try {
          results.push({ ok: true, value: write.run() });
          counts.keep();
        } catch (error) {
          counts.drop();
          // SQLite rolled the whole transaction back (it may on a full disk or an I/O error):
          // the batch's earlier writes are undone, and its later ones would each commit on
          // their own, outside any transaction, while their callers are told the batch failed.
          // The batch fails as a whole instead.
          if (!db.inTransaction) throw error;
          results.push({ ok: false, value: refusal(error) });
        }
      }
      counts.flush();
    });
  }

  /**
   * Runs `run` (synchronous statements) in the next write transaction and resolves with its
   * result once that transaction is committed (and, with `synchronous: 'full'`, on disk).
   * Writes queued in the same turn of the event loop (the events of a task, and of every other
   * task, arriving together) share one commit. Commits go on while the log is being synced
   * (answering the writes that need not wait for the disk, so a new task's agent starts), and
   * those made during one sync share the next. A write that throws (a version conflict)
   * rejects alone: its statements changed nothing, and the others still commit; a failure
   * that makes SQLite roll the transaction back (a full disk, an I/O error) rejects every
   * write of the batch.
   *
   * `durable: false` acknowledges at the commit, without waiting for the sync: for a write
   * nothing is told on its strength alone (an idempotency claim), whose durability the
   * log's order gives to every later write that is acknowledged on disk.
   */
  write<T>(run: () => T, options: SqliteWriteOptions = {}): Promise<T> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (!this.db.open) return Promise.reject(new StoreOpenError(`SQLite store ${this.path} is closed`));
    const durable = options.durable !== false;
    return new Promise<T>((resolve, reject) => {
      const leading = options.seesOnlyDurable === true;
      const write = { run, resolve: resolve as (value: unknown) => void, reject, durable, leading };
      if (leading) this.#queue.splice(this.#leading++, 0, write);
      else this.#queue.push(write);
      this.#schedule();
    });
  }

  /** Why the store stopped (a sync of its log failed), if it did. */
  get failure(): StoreOpenError | undefined {
    return this.#failure;
  }

  /**
   * Throws once a sync of the log failed: the last commits, whose writers were told they
   * failed, are in the file this connection reads but may not be on disk, so nothing more is
   * read or written here (a restart reads what the disk kept).
   */
  check(): void {
    if (this.#failure) throw this.#failure;
  }

  /** Stops the store after a failed sync: queued writes and every later one are refused. */
  #fail(error: unknown): void {
    if (this.#failure) return;
    const reason = error instanceof Error ? error.message : String(error);
    this.#failure = new StoreOpenError(
      `SQLite store ${this.path} stopped: syncing its log failed (${reason}); ` +
        'its last writes may not be on disk: restart the server',
      { cause: error },
    );
    const queued = this.#queue;
    this.#queue = [];
    this.#leading = 0;
    for (const write of queued) write.reject(this.#failure);
  }

  /**
   * A write that sees only durable rows waits at the head of the queue while a sync runs: no
   * commit comes between, so the running sync and the one queued after it end, then its batch
   * commits (every other write commits during syncs).
   */
  get #heldForSyncs(): boolean {
    return this.#leading > 0 && this.#walSync?.busy === true;
  }

  /**
   * Schedules the next commit for the next turn, unless one is scheduled, or the lock is being
   * waited for, or a write that sees only durable rows waits for the syncs to end.
   */
  readonly #schedule = (): void => {
    if (this.#scheduled || this.#queue.length === 0 || this.#lockWait.waiting || this.#heldForSyncs) return;
    this.#scheduled = true;
    setImmediate(this.#flush);
  };

  /** `blocking`: wait for the write lock with the busy timeout (at close); else off the event loop. */
  readonly #flush = (blocking = false): void => {
    this.#scheduled = false;
    // A write that sees only durable rows came after this turn was scheduled: the end of the
    // syncs schedules it again.
    if (!blocking && this.#heldForSyncs) return;
    this.pushConfigs.batchBegins();
    const batch = this.#queue.length > MAX_BATCH ? this.#queue.splice(0, MAX_BATCH) : this.#queue;
    if (batch === this.#queue) this.#queue = [];
    this.#leading = Math.max(0, this.#leading - batch.length);
    if (this.#failure) {
      for (const write of batch) write.reject(this.#failure);
      return;
    }
    if (!this.db.open) {
      for (const write of batch) write.reject(new StoreOpenError(`SQLite store ${this.path} is closed`));
      return;
    }
    const results: { ok: boolean; value: unknown }[] = [];
    try {
      // BEGIN IMMEDIATE: the write lock is taken once, at the start. Deferred, each write of
      // a batch that found another connection holding the lock waited the busy timeout in
      // turn on the event loop (4 writes: 8.2 s measured with the default 2 s); now the batch
      // waits it once and fails as a whole (issue 26, item 8).
      if (blocking) this.#runBatch.immediate(batch, results);
      else {
        // The lock is tried without waiting: a held lock is waited for on a timer (below).
        this.#busyTimeout.off.get();
        try {
          this.#runBatch.immediate(batch, results);
        } finally {
          this.#busyTimeout.on.get();
        }
      }
      this.#lockWait.done();
    } catch (error) {
      if (
        !blocking &&
        results.length === 0 &&
        sqliteCode(error) === 'SQLITE_BUSY' &&
        this.#lockWait.tryLater()
      ) {
        // BEGIN IMMEDIATE found the lock taken, so no write ran: the batch goes back first.
        this.#queue = batch.concat(this.#queue);
        let leading = 0;
        while (leading < this.#queue.length && this.#queue[leading]!.leading) leading++;
        this.#leading = leading;
        return;
      }
      // The commit itself failed, or a write's failure ended the transaction (disk full, I/O
      // error): nothing of the batch was written.
      this.taskCounts.reset();
      this.pushConfigs.reset();
      const refused = refusal(error);
      for (const write of batch) write.reject(refused);
      return;
    }
    /** Answers the batch's writes: all of them, or those that do (`true`) or do not wait for the disk. */
    const answer = (durable?: boolean): void => {
      for (let i = 0; i < batch.length; i++) {
        const write = batch[i]!;
        if (durable !== undefined && write.durable !== durable) continue;
        const result = results[i]!;
        if (result.ok) write.resolve(result.value);
        else write.reject(result.value);
      }
    };
    if (!this.#walSync) answer();
    else {
      // Committed (readers of this connection see it): the writes that need not wait for the
      // disk are answered now, the others once on disk.
      answer(false);
      if (batch.some((write) => write.durable)) {
        this.#walSync.after(
          () => answer(true),
          (error) => {
            this.#fail(error);
            for (const write of batch) if (write.durable) write.reject(this.#failure ?? error);
          },
        );
      }
    }
    // Writes beyond MAX_BATCH: the next turn.
    this.#schedule();
  };

  /**
   * Opens (creating when missing, with its directory) and migrates the file at `path`;
   * `:memory:` gives a private in-memory database. Throws {@link StoreOpenError} or
   * `SchemaTooNewError` with the reason.
   */
  static open(path: string, options: SqliteOptions = {}): SqliteDatabase {
    const busyTimeoutMs = options.busyTimeoutMs ?? 2000;
    let db: Database.Database | undefined;
    try {
      if (path !== ':memory:' && path !== '')
        requireNode<typeof Fs>('node:fs').mkdirSync(requireNode<typeof Path>('node:path').dirname(path), {
          recursive: true,
        });
      const Driver = requireNode<typeof Database>('better-sqlite3');
      db = new Driver(path, { timeout: busyTimeoutMs });
      const journal = db.pragma('journal_mode = WAL', { simple: true }) as string;
      // With `full`, SQLite would sync the log inside each COMMIT, blocking the event loop for
      // the length of an fsync; NORMAL leaves it to WalSync (and syncs itself at checkpoints),
      // which acknowledges no write before its commit is on disk: the same guarantee.
      const onDisk = path !== ':memory:' && path !== '';
      const walPath =
        onDisk && options.synchronous !== 'normal' && journal.toLowerCase() === 'wal'
          ? `${requireNode<typeof Path>('node:path').resolve(path)}-wal`
          : undefined;
      db.pragma(
        `synchronous = ${walPath !== undefined || options.synchronous === 'normal' ? 'NORMAL' : 'FULL'}`,
      );
      db.pragma('foreign_keys = ON');
      // Checkpoint every ~40 MB of WAL instead of every 4 MB: fewer checkpoints inside commits
      // (each copies pages back and fsyncs), at the cost of a larger -wal file between them.
      db.pragma('wal_autocheckpoint = 10000');
      db.pragma('journal_size_limit = 67108864');
      migrate(db, path);
      const database = new SqliteDatabase(db, path, walPath, busyTimeoutMs, options.beforeSyncForTests);
      // The migration's commit, on disk before anything is served from it.
      database.#walSync?.syncNow();
      return database;
    } catch (error) {
      try {
        db?.close();
      } catch {
        // Already failing: the first error is the one to report.
      }
      throw openError(path, error, busyTimeoutMs);
    }
  }

  /** One more store uses this connection. */
  retain(): this {
    this.#refs++;
    return this;
  }

  /** A store is done with the connection; the last one closes it. */
  release(): void {
    if (--this.#refs > 0 || !this.db.open) return;
    // Writes still queued are committed first: close() never drops an accepted write.
    if (this.#queue.length > 0) this.#flushAll();
    this.#walSync?.close();
    this.#removeFaultDisk?.();
    this.db.close();
  }

  #flushAll(): void {
    this.#lockWait.cancel();
    while (this.#queue.length > 0) this.#flush(true);
  }
}

/**
 * The fault hook's handle on a connection (test-only, see fault-points.ts): `max_page_count`
 * is per connection, and cannot go below the file's current size.
 */
function fillableDisk(db: Database.Database): FaultDisk {
  const roomy = db.pragma('max_page_count', { simple: true }) as number;
  return {
    fill: () => void db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`),
    free: () => void db.pragma(`max_page_count = ${roomy}`),
  };
}
