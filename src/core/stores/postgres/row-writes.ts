/**
 * Task row writes on PostgreSQL, shared by the task store and the push outbox: a
 * compare-and-set write that recognises its own row after a lost answer (so a retry never
 * applies a change twice), and the write-behind stages (`TaskStore.stage`) that turn the
 * changes of one task queued for the same batch into one row write of the latest record: for a
 * short task (created, working, completed in one turn) one INSERT instead of an INSERT and two
 * UPDATEs, each with its index entries and count-trigger rows.
 */
import type pg from 'pg';
import {
  TaskVersionConflictError,
  type LoggedTaskEvent,
  type SaveChange,
  type StoredTask,
} from '../task-store.js';
import type { QueuedNotification } from '../sql/push-outbox-rows.js';
import { faultAt } from '../fault-points.js';
import { isTransient, type BatchedWrite, type PostgresDatabase } from './database.js';

/** A task row write as sent: its statement, and the row it writes (to recognise it later). */
export interface TaskRowStatement {
  readonly sql: string;
  readonly params: unknown[];
  readonly record: StoredTask;
  /** The task document as written. */
  readonly doc: string;
  readonly expectedVersion: number;
}

const GET_ROW_SQL = 'SELECT version, doc FROM a2a_tasks WHERE tenant = $1 AND owner = $2 AND id = $3';

/**
 * A batched compare-and-set write of a task row. `build` makes the statement when the batch is
 * sent (once; an error it throws fails this write alone). `check` reads the statement's result
 * (throwing {@link TaskVersionConflictError} when the row was not at the expected version);
 * `landedAs` is the result of a write found already committed after a lost answer.
 */
export function taskRowWrite<T>(
  database: PostgresDatabase,
  build: () => TaskRowStatement,
  check: (result: pg.QueryResult, statement: TaskRowStatement) => T,
  landedAs: T,
): BatchedWrite<T> {
  let built: TaskRowStatement | undefined;
  let failed: { error: unknown } | undefined;
  const statement = (): TaskRowStatement => {
    if (failed) throw failed.error;
    try {
      return (built ??= build());
    } catch (error) {
      failed = { error };
      throw error;
    }
  };
  /** True when our write is already in the row (it committed before its answer was lost). */
  const landed = async (s: TaskRowStatement): Promise<boolean> => {
    const task = s.record.task;
    const { rows } = await database.query<{ version: number; doc: string }>(GET_ROW_SQL, [
      s.record.tenant,
      s.record.owner,
      task.id,
    ]);
    const row = rows[0];
    if (row && row.version === s.record.version && row.doc === s.doc) return true;
    if ((row?.version ?? 0) !== s.expectedVersion) throw new TaskVersionConflictError(task.id);
    return false;
  };
  return {
    get sql() {
      return statement().sql;
    },
    get params() {
      return statement().params;
    },
    done: (result) => check(result, statement()),
    alone: async (mayHaveCommitted) => {
      const s = statement();
      if (mayHaveCommitted && (await landed(s))) return landedAs;
      for (let attempt = 0; ; attempt++) {
        try {
          if (attempt === 0) await database.ready;
          return check(await database.run(s.sql, s.params), s);
        } catch (error) {
          if (!isTransient(error) || attempt >= database.retries) throw error;
          // The connection was lost: the write may or may not have committed. Read the row
          // back (with retries) and decide, so a repeated write never applies a change twice.
          if (await landed(s)) return landedAs;
        }
      }
    },
  };
}

/** The stages of one task joined into one row write: the first's expected version, the latest record. */
export interface StagedChain {
  record: StoredTask;
  readonly expectedVersion: number;
  /** The push notification of each stage that has one, in order, with the version it made. */
  readonly payloads: QueuedNotification[];
  /** The event log entries of the stages, in order (GEN-5; only when the log is on). */
  log: { events: LoggedTaskEvent[]; keep: number } | undefined;
}

/**
 * The row writes of one database's tasks, in order per task: each task's write is sent only
 * once its previous one settled. Batches run side by side on several connections, and a write
 * that follows one not yet committed would find the row at the older version. Shared by the
 * task store and the push outbox of a database (both write task rows).
 */
class TaskWriteOrder {
  /** The last write queued of each task with a write not yet settled. */
  readonly #last = new Map<string, Promise<unknown>>();

  /** Sends `write` (of `record`'s task) once the task's previous write settled. */
  inOrder<R>(record: StoredTask, write: () => Promise<R>): Promise<R> {
    const key = keyOf(record);
    const previous = this.#last.get(key);
    // Sent after the previous one whatever its outcome (a save after a failed one is refused by
    // its own compare-and-set).
    const written = previous ? previous.then(write, write) : write();
    this.#last.set(key, written);
    const settled = (): void => {
      if (this.#last.get(key) === written) this.#last.delete(key);
    };
    written.then(settled, settled);
    return written;
  }
}

const ORDERS = new WeakMap<PostgresDatabase, TaskWriteOrder>();

/**
 * The task row writes of a store on `database`: saves and stages, in order per task (see
 * TaskWriteOrder). The stages queued while a task's last write is on the way join the task's
 * open chain, so its changes coalesce meanwhile.
 */
export class StagedRowWrites<T> {
  /** The open (not yet sent) chain of each task with stages in the next write. */
  readonly #open = new Map<string, { chain: StagedChain; written: Promise<T> }>();
  readonly #order: TaskWriteOrder;

  /** `statementOf` builds a chain's row write when its batch is sent; see {@link taskRowWrite}. */
  constructor(
    private readonly database: PostgresDatabase,
    private readonly statementOf: (chain: StagedChain) => TaskRowStatement,
    private readonly check: (result: pg.QueryResult, statement: TaskRowStatement) => T,
    private readonly landedAs: T,
  ) {
    let order = ORDERS.get(database);
    if (!order) ORDERS.set(database, (order = new TaskWriteOrder()));
    this.#order = order;
  }

  /** Sends `write` (a save of `record`'s task) once the task's previous write settled. */
  inOrder<R>(record: StoredTask, write: () => Promise<R>): Promise<R> {
    return this.#order.inOrder(record, write);
  }

  /** See `TaskStore.stage`; `payload`: the change's push notification (with a push outbox). */
  stage(record: StoredTask, expectedVersion: number, change?: SaveChange, payload?: string): Promise<T> {
    if (record.version !== expectedVersion + 1) {
      return Promise.reject(new TaskVersionConflictError(record.task.id));
    }
    const key = keyOf(record);
    const open = this.#open.get(key);
    if (open && open.chain.record.version === expectedVersion) {
      open.chain.record = record;
      if (payload !== undefined) open.chain.payloads.push({ payload, generation: record.version });
      if (change?.log) {
        if (open.chain.log) open.chain.log.events.push(...change.log.events);
        else open.chain.log = { events: [...change.log.events], keep: change.log.keep };
      }
      return open.written;
    }
    // A new row write: the task's first stage in this batch, or one after a save of another
    // kind (queued between them, so the chain cannot be joined).
    const chain: StagedChain = {
      record,
      expectedVersion,
      payloads: payload === undefined ? [] : [{ payload, generation: record.version }],
      log: change?.log && { events: [...change.log.events], keep: change.log.keep },
    };
    const entry = { chain, written: undefined as unknown as Promise<T> };
    this.#open.set(key, entry);
    entry.written = this.inOrder(record, () =>
      this.database.write(
        taskRowWrite(
          this.database,
          () => {
            // Sent now: later stages of the task start a new chain.
            if (this.#open.get(key) === entry) this.#open.delete(key);
            faultAt?.('task.stage');
            return this.statementOf(chain);
          },
          this.check,
          this.landedAs,
        ),
      ),
    );
    return entry.written;
  }
}

function keyOf(record: StoredTask): string {
  return `${record.tenant}\u0000${record.owner}\u0000${record.task.id}`;
}
