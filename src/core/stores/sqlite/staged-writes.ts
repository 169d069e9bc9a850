/**
 * The SQLite store's write-behind saves (`TaskStore.stage`): an agent that awaits each
 * event (working, the artifact, complete) gets its next call at once instead of a commit and a
 * sync later, and the changes of one task queued for the same batch are written as one row
 * write of the latest record: one statement and one JSON document instead of one per event.
 */
import {
  TaskVersionConflictError,
  type EventLogWrite,
  type LoggedTaskEvent,
  type SaveChange,
  type StoredTask,
} from '../task-store.js';
import type { QueuedNotification } from '../sql/push-outbox-rows.js';
import type { SqliteDatabase } from './database.js';
import { faultAt } from '../fault-points.js';

/**
 * Writes one staged row: the latest record, the first stage's expected version, the task as
 * JSON, and the push notifications of every stage in order, each with its stage's version as
 * its generation (empty without a push outbox). Returns how many notifications it enqueued.
 */
export type StagedRowWriter = (
  record: StoredTask,
  expectedVersion: number,
  doc: string,
  payloads: readonly QueuedNotification[],
  change: SaveChange | undefined,
) => number;

/** One row write waiting for the next batch: the first stage's expected version, the latest record. */
interface StagedRow {
  record: StoredTask;
  readonly expectedVersion: number;
  /** False once any stage of the chain changed the status (then the status columns are set). */
  statusUnchanged: boolean;
  /** The state the chain replaces (the first stage's hint). */
  readonly previousState: SaveChange['previousState'];
  /** The push notifications of the chain's stages, in order. */
  readonly payloads: QueuedNotification[];
  /** The event log entries of the chain's stages, in order (GEN-5; only when the log is on). */
  log?: { events: LoggedTaskEvent[]; keep: number };
  written?: Promise<void>;
}

/** The staged row writes of one SQLite connection, by task, until their batch is written. */
export class StagedTaskWrites {
  /** The open (not yet written) row of each task with stages in the next batch. */
  readonly #open = new Map<string, StagedRow>();

  /** `onWritten`: called after each committed row write that enqueued notifications. */
  constructor(
    private readonly database: SqliteDatabase,
    private readonly writeRow: StagedRowWriter,
    private readonly onWritten?: () => void,
  ) {}

  /** See `TaskStore.stage`; `payload`: the change's push notification (with a push outbox). */
  stage(record: StoredTask, expectedVersion: number, change?: SaveChange, payload?: string): Promise<void> {
    if (record.version <= expectedVersion) {
      return Promise.reject(new TaskVersionConflictError(record.task.id));
    }
    const key = `${record.tenant}\u0000${record.owner}\u0000${record.task.id}`;
    const open = this.#open.get(key);
    if (open && open.record.version === expectedVersion) {
      open.record = record;
      if (change?.statusUnchanged === false) open.statusUnchanged = false;
      if (payload !== undefined) open.payloads.push({ payload, generation: record.version });
      if (change?.log) appendLog(open, change.log);
      return open.written!;
    }
    // A new row write: the task's first stage in this batch, or one after a save of another
    // kind (queued between them, so the chain cannot be joined).
    const row: StagedRow = {
      record,
      expectedVersion,
      statusUnchanged: change?.statusUnchanged !== false,
      previousState: change?.previousState,
      payloads: payload === undefined ? [] : [{ payload, generation: record.version }],
    };
    if (change?.log) appendLog(row, change.log);
    this.#open.set(key, row);
    const written = this.database.write(() => {
      faultAt?.('task.stage');
      if (this.#open.get(key) === row) this.#open.delete(key);
      const latest = row.record;
      const log = row.log;
      const hint: SaveChange | undefined =
        row.expectedVersion === 0
          ? log && { statusUnchanged: false, log }
          : {
              statusUnchanged: row.statusUnchanged,
              ...(row.previousState !== undefined ? { previousState: row.previousState } : {}),
              ...(log ? { log } : {}),
            };
      return this.writeRow(latest, row.expectedVersion, JSON.stringify(latest.task), row.payloads, hint);
    });
    const onWritten = this.onWritten;
    row.written = onWritten
      ? written.then((queued) => {
          if (queued > 0) onWritten();
        })
      : (written as Promise<unknown> as Promise<void>);
    return row.written;
  }
}

/** Adds a stage's event log entries to its row's (one write holds every stage's entries). */
function appendLog(row: StagedRow, log: EventLogWrite): void {
  if (row.log) row.log.events.push(...log.events);
  else row.log = { events: [...log.events], keep: log.keep };
}
