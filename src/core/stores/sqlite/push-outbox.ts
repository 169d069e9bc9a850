/**
 * A {@link PushOutbox} in the SQLite file of the tasks (issue 12): a task change and its
 * notifications are written in one transaction, so they survive a restart together. SQLite has
 * one writer: every write (save, claim, settle, replay, prune) goes through the file's write
 * batching ({@link SqliteDatabase.write}), where it runs in a savepoint of the batch's
 * transaction, so a write either lands whole or not at all while the others of its batch commit.
 *
 * A config's pending rows are served in `seq` order: only the row marked `head` (the oldest
 * pending one of its config) is claimable; settling it delivered or dead marks the next one.
 */
import type { Statement, Transaction } from 'better-sqlite3';
import { newId } from '../../../model/ids.js';
import type { StreamResponse } from '../../../model/schema.js';
import type {
  PushAttempt,
  PushChangeWriter,
  PushDelivery,
  PushDeliveryQuery,
  PushOutbox,
  PushSettlement,
} from '../../push/outbox.js';
import {
  attemptOf,
  DELIVERY_COLUMNS,
  deliveryOf,
  listWhere,
  MAX_CONFIGS_PER_TASK,
  outboxSettings,
  PRUNE_CHUNK,
  type DeliveryRow,
  type QueuedNotification,
  type SqlPushOutboxOptions,
  type SqlPushOutboxSettings,
} from '../sql/push-outbox-rows.js';
import { TaskVersionConflictError, type SaveChange, type StoredTask, type TaskStore } from '../task-store.js';
import { StagedTaskWrites } from './staged-writes.js';
import { prepareTaskRowStatements, writeTaskRow, type TaskRowStatements } from './task-rows.js';
import { AT_COMMIT, DURABLE_ONLY_AT_COMMIT, SqliteDatabase } from './database.js';
import { faultAt } from '../fault-points.js';
import { preparePushOutboxStatements, type PushOutboxStatements } from './push-outbox-statements.js';

/** Options of {@link SqlitePushOutbox}. */
export type SqlitePushOutboxOptions = SqlPushOutboxOptions;

/** The push outbox of a SQLite store. */
export class SqlitePushOutbox implements PushOutbox {
  readonly database: SqliteDatabase;
  readonly #settings: SqlPushOutboxSettings;
  readonly #listeners: (() => void)[] = [];
  readonly #listStatements = new Map<string, Statement>();
  readonly #taskRows: TaskRowStatements;
  readonly #sql: PushOutboxStatements;
  /** Saves a task change and enqueues its notifications; a savepoint inside the batch. */
  readonly #saveWithNotifications: Transaction<
    (
      record: StoredTask,
      expectedVersion: number,
      doc: string,
      payloads: readonly QueuedNotification[],
      change: SaveChange | undefined,
      configIds: readonly string[],
    ) => number
  >;
  /** The TaskManager's staged changes (see `PushChangeWriter.stageChange`). */
  readonly #staged: StagedTaskWrites;
  readonly #settleTx: Transaction<
    (id: string, workerId: string, attempt: PushAttempt, settlement: PushSettlement) => boolean
  >;
  readonly #timer: NodeJS.Timeout;
  #pruning = false;
  #closed = false;

  /** An outbox on `database` (the one the task and push-config stores use), or on the file at `path`. */
  constructor(database: SqliteDatabase | string, options: SqlitePushOutboxOptions = {}) {
    this.#settings = outboxSettings(options);
    this.database = typeof database === 'string' ? SqliteDatabase.open(database) : database.retain();
    const db = this.database.db;
    this.#taskRows = prepareTaskRowStatements(this.database);
    this.#sql = preparePushOutboxStatements(db);
    this.#saveWithNotifications = db.transaction(
      (record, expectedVersion, doc, payloads, change, configIds) => {
        writeTaskRow(this.#taskRows, record, expectedVersion, doc, change);
        let queued = 0;
        for (const notification of payloads) queued += this.#enqueueRows(record, notification, configIds);
        return queued;
      },
    );
    this.#staged = new StagedTaskWrites(
      this.database,
      (record, expectedVersion, doc, payloads, change) =>
        this.#saveRows(record, expectedVersion, doc, payloads, change),
      this.#wake,
    );
    this.#settleTx = db.transaction((id, workerId, attempt, settlement) =>
      this.#settleRows(id, workerId, attempt, settlement),
    );
    this.#timer = setInterval(() => void this.prune().catch(() => {}), this.#settings.pruneEveryMs);
    this.#timer.unref();
  }

  saveChange(
    _store: TaskStore,
    record: StoredTask,
    expectedVersion: number,
    event: StreamResponse | undefined,
    change?: SaveChange,
  ): Promise<void> {
    // `_store` is this file's task store (or a wrapper of it): the row is written here, with
    // the notifications (see #saveRows).
    if (record.version !== expectedVersion + 1) {
      return Promise.reject(new TaskVersionConflictError(record.task.id));
    }
    const doc = JSON.stringify(record.task);
    const payloads =
      event && this.database.pushConfigs.mayExist()
        ? [{ payload: JSON.stringify(event), generation: record.version }]
        : [];
    return this.database
      .write(() => {
        faultAt?.(expectedVersion === 0 ? 'task.create' : 'task.update');
        return this.#saveRows(record, expectedVersion, doc, payloads, change);
      })
      .then((queued) => {
        if (queued > 0) this.#wake();
      });
  }

  // The payload now: the event is this change's; the task document is written later (the latest).
  // None while the file holds no config: a config added later is seen by the events staged
  // after it (see PushConfigPresence), as the row write reads the configs at its commit anyway.
  readonly stageChange: PushChangeWriter['saveChange'] = (_store, record, expectedVersion, event, change) =>
    this.#staged.stage(
      record,
      expectedVersion,
      change,
      event && this.database.pushConfigs.mayExist() ? JSON.stringify(event) : undefined,
    );

  /** Tells the delivery workers that notifications were enqueued. */
  readonly #wake = (): void => {
    for (const listener of this.#listeners) listener();
  };

  /**
   * Writes the task row and enqueues a notification per config. The configs are read first:
   * a task without any (most tasks) is one compare-and-set statement, atomic by itself; with
   * configs, row and notifications go in one savepoint, so neither lands without the other.
   */
  #saveRows(
    record: StoredTask,
    expectedVersion: number,
    doc: string,
    payloads: readonly QueuedNotification[],
    change: SaveChange | undefined,
  ): number {
    const task = record.task;
    const configIds =
      payloads.length === 0
        ? []
        : this.#sql.configIds.all(record.tenant, record.owner, task.id, MAX_CONFIGS_PER_TASK);
    if (configIds.length === 0) {
      writeTaskRow(this.#taskRows, record, expectedVersion, doc, change);
      return 0;
    }
    faultAt?.('push.outbox.enqueue');
    return this.#saveWithNotifications(record, expectedVersion, doc, payloads, change, configIds);
  }

  #enqueueRows(record: StoredTask, notification: QueuedNotification, configIds: readonly string[]): number {
    const task = record.task;
    const now = Date.now();
    for (const id of configIds) {
      this.#sql.enqueue.run(
        newId(),
        record.tenant,
        record.owner,
        task.id,
        id,
        notification.payload,
        notification.generation,
        record.tenant,
        record.owner,
        task.id,
        id,
        now,
        now,
      );
    }
    return configIds.length;
  }

  // Claims and settlements are answered at their commit (AT_COMMIT): one lost with the last
  // commits of a power loss only sends its delivery again (at least once; receivers drop
  // repeats by notification id), and the next sync covers it anyway. A claim sees only rows
  // on disk (it runs first in its batch, see DURABLE_ONLY_AT_COMMIT): a notification whose
  // change is committed but not yet synced is never sent, so none is sent for a change whose
  // sync then fails (issue 26).
  claim(workerId: string, limit: number, leaseMs: number): Promise<PushDelivery[]> {
    const n = Math.max(0, Math.floor(limit));
    if (n === 0) return Promise.resolve([]);
    return this.database.write(() => {
      faultAt?.('push.outbox.claim');
      const now = Date.now();
      return this.#sql.claim.all(workerId, now + leaseMs, now, now, n).map(deliveryOf);
    }, DURABLE_ONLY_AT_COMMIT);
  }

  settle(id: string, workerId: string, attempt: PushAttempt, settlement: PushSettlement): Promise<boolean> {
    return this.database.write(() => {
      faultAt?.('push.outbox.settle');
      return this.#settleTx(id, workerId, attempt, settlement);
    }, AT_COMMIT);
  }

  #settleRows(id: string, workerId: string, attempt: PushAttempt, settlement: PushSettlement): boolean {
    const now = Date.now();
    const finished = settlement.outcome !== 'retry';
    const row = this.#sql.settle.get(
      settlement.outcome === 'retry' ? 'pending' : settlement.outcome,
      finished ? 0 : 1,
      settlement.outcome === 'retry' ? settlement.nextAttemptAtMs : now,
      settlement.outcome === 'delivered' ? null : settlement.error,
      finished ? now : null,
      id,
      workerId,
    ) as { tenant: string; owner: string; task_id: string; config_id: string; recorded: number } | undefined;
    if (!row) return false;
    this.#sql.recordAttempt.run(
      id,
      row.recorded,
      attempt.atMs,
      Math.round(attempt.durationMs),
      attempt.ok ? 1 : 0,
      attempt.status ?? null,
      attempt.error ?? null,
    );
    // Only a delivery past the cap has attempts to forget (most never retry at all).
    const forgetUpTo = row.recorded - this.#settings.maxAttemptsRecorded;
    if (forgetUpTo > 0) this.#sql.trimAttempts.run(id, forgetUpTo);
    if (finished) {
      const queue = [row.tenant, row.owner, row.task_id, row.config_id];
      this.#sql.promote.run(...queue, ...queue);
    }
    return true;
  }

  renew(id: string, workerId: string, leaseMs: number): Promise<boolean> {
    return this.database.write(() => {
      faultAt?.('push.outbox.renew');
      return this.#sql.renew.run(Date.now() + leaseMs, id, workerId).changes === 1;
    });
  }

  get(id: string): Promise<PushDelivery | undefined> {
    try {
      this.database.check();
      const row = this.#sql.get.get(id);
      return Promise.resolve(row ? deliveryOf(row) : undefined);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  list(query: PushDeliveryQuery): Promise<PushDelivery[]> {
    try {
      this.database.check();
      const { where, params, limit } = listWhere(query, () => '?');
      const sql = `SELECT ${DELIVERY_COLUMNS} FROM a2a_push_outbox WHERE ${where} ORDER BY seq DESC LIMIT ?`;
      let statement = this.#listStatements.get(sql);
      if (!statement) {
        statement = this.database.db.prepare(sql);
        this.#listStatements.set(sql, statement);
      }
      return Promise.resolve((statement.all(...params, limit) as DeliveryRow[]).map(deliveryOf));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  attempts(id: string): Promise<PushAttempt[]> {
    try {
      this.database.check();
      return Promise.resolve(this.#sql.attempts.all(id).map(attemptOf));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async replay(id: string): Promise<boolean> {
    const replayed = await this.database.write(() => {
      faultAt?.('push.outbox.renew');
      return this.#sql.replay.run(Date.now(), id).changes === 1;
    });
    if (replayed) this.#wake();
    return replayed;
  }

  onEnqueued(listener: () => void): void {
    this.#listeners.push(listener);
  }

  /** One process owns a SQLite file, so the earliest due head here is the next work anywhere. */
  nextDueAtMs(): number | undefined {
    if (this.#closed || !this.database.db.open || this.database.failure) return undefined;
    return this.#sql.nextDue.get()?.at ?? undefined;
  }

  /**
   * Removes delivered and dead deliveries settled longer than `finishedMaxAgeMs` ago, and the
   * oldest beyond `maxFinished`, in bounded chunks (each its own transaction); returns how many.
   * Runs every `pruneEveryMs` by itself.
   */
  async prune(nowMs = Date.now()): Promise<number> {
    if (this.#pruning || this.#closed) return 0;
    this.#pruning = true;
    let total = 0;
    try {
      const cutoff = nowMs - this.#settings.finishedMaxAgeMs;
      for (const statement of [this.#sql.pruneOld, this.#sql.pruneMany]) {
        const param = statement === this.#sql.pruneOld ? cutoff : this.#settings.maxFinished;
        for (;;) {
          if (this.#closed) return total;
          const n = await this.database.write(() => {
            faultAt?.('retention.purge');
            return statement.run(param).changes;
          });
          total += n;
          if (n < PRUNE_CHUNK) break;
        }
      }
      return total;
    } finally {
      this.#pruning = false;
    }
  }

  close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      clearInterval(this.#timer);
      this.database.release();
    }
    return Promise.resolve();
  }
}
