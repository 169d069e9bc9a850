/**
 * A PostgreSQL database opened for the stores: a `pg` Pool, the schema migrated on open in one
 * transaction under an advisory lock (replicas starting together migrate once), clear errors
 * for a server that is down or a schema from a newer a2a-kit, and retries with backoff for
 * statements that fail because the connection was lost (a server restart).
 */
import type pg from 'pg';
import { requireNode } from '../../node-modules.js';
import { SchemaTooNewError, StoreOpenError } from '../sql/shared.js';
import { POSTGRES_MIGRATIONS } from './schema.js';
import { StatementNames, type Statement } from './statements.js';

/** Options of {@link PostgresDatabase.open}. */
export interface PostgresOptions {
  /** `postgres://user:password@host:port/database` (libpq URL). */
  connectionString: string;
  /**
   * The PostgreSQL schema holding the tables (created when missing); the default is the
   * connection's search_path (normally `public`). Letters, digits and `_` only.
   */
  schema?: string;
  /** Most pooled connections. @default 10 */
  maxConnections?: number;
  /**
   * How many times a statement is retried after a lost connection, with backoff from 50 ms
   * doubling to 2 s: the default rides out about 7 s of a server restarting. @default 8
   */
  retries?: number;
  /** Extra `pg` pool settings (ssl, timeouts). */
  pool?: Omit<pg.PoolConfig, 'connectionString' | 'max' | 'options'>;
}

/** Advisory lock key held while migrating (any constant unlikely to collide: "a2a-kit\0" as bytes). */
const MIGRATION_LOCK = 0x6132612d6b6974n;

/** Error codes (Node and SQLSTATE) that mean the connection or the server went away. */
const TRANSIENT = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTCONN',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '08000',
  '08003',
  '08006',
  '08001',
  '08004',
  '40001', // serialization_failure
  '40P01', // deadlock_detected
]);

/** True when `error` is worth a retry: the statement may not have run, or lost a race. */
export function isTransient(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && TRANSIENT.has(code)) return true;
  const message = error instanceof Error ? error.message : '';
  return /Connection terminated|connection timeout|Client has encountered a connection error/i.test(message);
}

function noop(): void {}

/** A retry's pause; keeps the process alive (a statement is still owed to its caller). */
function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Where a URL points, without its password (for error messages). */
function describe(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    url.password = '';
    return url.toString();
  } catch {
    return 'the configured PostgreSQL server';
  }
}

/**
 * One write for {@link PostgresDatabase.write}. `sql` and `params` are read when its batch is
 * sent (a staged write builds its statement then); reading them may throw, which fails this
 * write alone.
 */
export interface BatchedWrite<T> {
  readonly sql: string;
  readonly params: unknown[];
  /** The write's result from its statement's result (throws to fail this write alone). */
  readonly done: (result: pg.QueryResult) => T;
  /**
   * Runs the write by itself, with retries. `mayHaveCommitted`: an earlier attempt's COMMIT
   * was cut off, so it may already be in the database.
   */
  readonly alone: (mayHaveCommitted: boolean) => Promise<T>;
}

interface QueuedWrite {
  readonly write: BatchedWrite<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/** Most writes in one transaction; more go to the next one (runs alongside on another connection). */
const MAX_BATCH = 256;

/** A pool on a database with the a2a-kit schema. */
export class PostgresDatabase {
  #refs = 1;
  #queue: QueuedWrite[] = [];
  #scheduled = false;
  /** Writes not yet settled. */
  readonly #writes = new Set<Promise<void>>();
  #closing: Promise<void> | undefined;
  /** Settles once the schema is migrated; every statement waits for it. */
  readonly ready: Promise<void>;
  #isReady = false;
  readonly #statements = new StatementNames();

  private constructor(
    readonly pool: pg.Pool,
    readonly where: string,
    readonly schema: string | undefined,
    readonly retries: number,
  ) {
    this.ready = this.#migrate().then(
      () => {
        this.#isReady = true;
      },
      async (error: unknown) => {
        await pool.end().catch(() => {});
        if (error instanceof SchemaTooNewError || error instanceof StoreOpenError) throw error;
        const reason =
          error instanceof Error
            ? error.message || String((error as { code?: unknown }).code)
            : String(error);
        throw new StoreOpenError(`PostgreSQL store ${where} cannot be used: ${reason}`, { cause: error });
      },
    );
    // Observed by whoever awaits `ready`; never an unhandled rejection by itself.
    this.ready.catch(() => {});
  }

  /**
   * Creates the pool and starts connecting and migrating at once; {@link ready} tells when the
   * stores can be used (or why not). Statements issued meanwhile wait for it.
   */
  static create(options: PostgresOptions): PostgresDatabase {
    const where = describe(options.connectionString);
    const schema = options.schema;
    if (schema !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(schema)) {
      throw new StoreOpenError(
        `PostgreSQL schema name ${JSON.stringify(schema)} must be letters, digits and _`,
      );
    }
    const pool = new (requireNode<typeof pg>('pg').Pool)({
      ...options.pool,
      connectionString: options.connectionString,
      max: options.maxConnections ?? 10,
      ...(schema !== undefined ? { options: `-c search_path=${schema}` } : {}),
    });
    // An idle client losing its connection (server restart) must not crash the process; nor
    // a checked-out one between its queries (a killed backend): the pool only watches idle
    // ones, and the next query on it fails (and is retried) anyway.
    pool.on('error', () => {});
    pool.on('connect', (client) => client.on('error', () => {}));
    return new PostgresDatabase(pool, where, schema, options.retries ?? 8);
  }

  /** Connects and migrates; resolves once the stores can be used, rejects with the reason. */
  static async open(options: PostgresOptions): Promise<PostgresDatabase> {
    const database = PostgresDatabase.create(options);
    await database.ready;
    return database;
  }

  async #migrate(): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK.toString()]);
      if (this.schema !== undefined) await client.query(`CREATE SCHEMA IF NOT EXISTS ${this.schema}`);
      await client.query(
        'CREATE TABLE IF NOT EXISTS a2a_schema_version (id integer PRIMARY KEY CHECK (id = 1), version integer NOT NULL)',
      );
      const found = await client.query<{ version: number }>(
        'SELECT version FROM a2a_schema_version WHERE id = 1',
      );
      const current = found.rows[0]?.version ?? 0;
      const known = POSTGRES_MIGRATIONS.length;
      if (current > known) throw new SchemaTooNewError(`PostgreSQL store ${this.where}`, current, known);
      for (let version = current + 1; version <= known; version++) {
        await client.query(POSTGRES_MIGRATIONS[version - 1]!);
      }
      if (current < known) {
        await client.query(
          `INSERT INTO a2a_schema_version (id, version) VALUES (1, $1)
           ON CONFLICT (id) DO UPDATE SET version = excluded.version`,
          [known],
        );
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  /**
   * Runs one statement, retried with exponential backoff when the connection was lost. Only
   * for statements that are safe to repeat (reads, and writes whose caller reconciles).
   */
  async query<R extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<pg.QueryResult<R>> {
    if (!this.#isReady) await this.ready;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.run<R>(sql, params);
      } catch (error) {
        if (!isTransient(error) || attempt >= this.retries || this.#closing) throw error;
        await delay(Math.min(50 * 2 ** attempt, 2000));
      }
    }
  }

  /** Runs one statement once, prepared on its connection when its text is one of the known ones. */
  run<R extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<pg.QueryResult<R>> {
    return this.pool.query<R>(this.#statements.config(sql, params));
  }

  /**
   * Queues one write for the next batch and resolves with `done(result)` once its transaction
   * committed. Writes queued in the same turn of the event loop (a task's events, and other
   * tasks') share one transaction and so one commit (one WAL flush). When the batch fails as a
   * whole, or is alone, each write runs by itself through `alone`, told whether an earlier
   * attempt may have committed (the connection was lost during COMMIT) so it can read back
   * before repeating anything.
   */
  write<T>(write: BatchedWrite<T>): Promise<T> {
    if (this.#closing) return Promise.reject(new StoreOpenError(`PostgreSQL store ${this.where} is closed`));
    const promise = new Promise<T>((resolve, reject) => {
      this.#queue.push({ write, resolve: resolve as (value: unknown) => void, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(this.#flush);
      }
    });
    // Tracked until settled, so close() ends the pool only after every accepted write.
    const settled = promise.then(noop, noop);
    this.#writes.add(settled);
    void settled.then(() => this.#writes.delete(settled));
    return promise;
  }

  /**
   * {@link write} for a statement that is safe to repeat as it is (an upsert, a delete, a
   * notification receivers skip when seen): run alone, it is retried like {@link query}.
   */
  writeRepeatable(sql: string, params: unknown[]): Promise<void> {
    return this.write({
      sql,
      params,
      done: noop,
      alone: async () => {
        await this.query(sql, params);
      },
    });
  }

  readonly #flush = (): void => {
    this.#scheduled = false;
    const batch = this.#queue.splice(0, MAX_BATCH);
    if (this.#queue.length > 0) {
      this.#scheduled = true;
      setImmediate(this.#flush);
    }
    if (batch.length === 1) {
      const only = batch[0]!;
      only.write.alone(false).then(only.resolve, only.reject);
    } else if (batch.length > 1) {
      void this.#commitBatch(batch);
    }
  };

  async #commitBatch(all: QueuedWrite[]): Promise<void> {
    // Each statement is read before anything is sent: one that cannot be built fails alone.
    const batch: QueuedWrite[] = [];
    const statements: Statement[] = [];
    for (const queued of all) {
      try {
        statements.push({ sql: queued.write.sql, params: queued.write.params });
        batch.push(queued);
      } catch (error) {
        queued.reject(error);
      }
    }
    if (batch.length === 0) return;
    let client: pg.PoolClient | undefined;
    let committing = false;
    let results: pg.QueryResult[];
    try {
      if (!this.#isReady) await this.ready;
      client = await this.pool.connect();
      const inline = this.#statements.batch(client, statements);
      if (inline !== undefined) {
        // One round trip for the whole transaction (each costs a socket write and a wake-up
        // of the server process: most of a batched write's cost on loopback).
        committing = true;
        const all = (await client.query(inline.text)) as unknown as pg.QueryResult[];
        inline.prepared();
        // BEGIN, then per write its PREPARE (when new on this connection) and its EXECUTE.
        results = all.filter((result) => result.command !== 'PREPARE').slice(1, 1 + batch.length);
      } else {
        await client.query('BEGIN');
        results = [];
        for (const { write } of batch)
          results.push(await client.query(this.#statements.config(write.sql, write.params)));
        committing = true;
        await client.query('COMMIT');
      }
      client.release();
    } catch (error) {
      if (client) {
        // A statement that failed leaves the transaction open and aborted: roll it back before
        // the connection goes back to the pool (after a failed COMMIT it only warns).
        if (!committing || !isTransient(error)) await client.query('ROLLBACK').catch(() => {});
        // Not reused: which of the batch's PREPAREs ran before the failure is not known, and
        // preparing one twice would fail every later batch on this connection.
        client.release(true);
      }
      // One failing write (or a lost connection) must not fail the others: each runs alone.
      const unknown = committing && isTransient(error);
      for (const queued of batch) queued.write.alone(unknown).then(queued.resolve, queued.reject);
      return;
    }
    for (let i = 0; i < batch.length; i++) {
      const queued = batch[i]!;
      try {
        queued.resolve(queued.write.done(results[i]!));
      } catch (error) {
        queued.reject(error);
      }
    }
  }

  /** Runs `fn` in one transaction on one connection; no retry (the caller decides). */
  async transaction<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    if (!this.#isReady) await this.ready;
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  /** A new, unpooled client with the pool's settings and `overrides` (for LISTEN, which holds a connection). */
  newClient(overrides: pg.ClientConfig = {}): pg.Client {
    return new (requireNode<typeof pg>('pg').Client)({ ...this.pool.options, ...overrides });
  }

  /** One more store uses this pool. */
  retain(): this {
    this.#refs++;
    return this;
  }

  /** A store is done with the pool; the last one ends it. */
  release(): Promise<void> {
    if (--this.#refs > 0) return Promise.resolve();
    this.#closing ??= this.ready.then(
      async () => {
        while (this.#writes.size > 0) await Promise.all([...this.#writes]);
        await this.pool.end();
      },
      () => {},
    );
    return this.#closing;
  }
}

/** `pg` returns bigint columns as strings: the number they hold. */
export function toNumber(value: string | number): number {
  return typeof value === 'number' ? value : Number(value);
}
