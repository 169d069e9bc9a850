/**
 * A {@link PushOutbox} in the PostgreSQL database of the tasks (issue 12), shared by every
 * replica. A task change and its notifications are one statement (the compare-and-set UPDATE
 * and an INSERT .. SELECT from the task's push configs), batched like every task save.
 *
 * A config's pending rows are served in `seq` order: only the row marked `head` (the oldest
 * pending one of its config) is claimable, and claims take it with `FOR UPDATE SKIP LOCKED`, so
 * two replicas never lease the same delivery. Settling the head delivered or dead marks the
 * next one; that step and an enqueue of the same task exclude each other through the task
 * row's lock (the enqueue's UPDATE takes it, the settle takes it `FOR NO KEY UPDATE` first),
 * and the enqueue decides `head` with a fresh snapshot taken after that lock
 * (`a2a_push_is_head`), so neither can miss the other and leave a config without a head.
 */
import type pg from 'pg';
import type { StreamResponse } from '../../../model/schema.js';
import type {
  PushChangeWriter,
  PushAttempt,
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
  outboxSettings,
  PRUNE_CHUNK,
  type AttemptRow,
  type DeliveryRow,
  type SqlPushOutboxOptions,
  type SqlPushOutboxSettings,
} from '../sql/push-outbox-rows.js';
import { TaskVersionConflictError, type SaveChange, type StoredTask, type TaskStore } from '../task-store.js';
import { toNumber, type PostgresDatabase } from './database.js';
import { StagedRowWrites, taskRowWrite } from './row-writes.js';
import { changeStatement, checkChange } from './change-statements.js';
import { faultAt } from '../fault-points.js';

/** Options of {@link PostgresPushOutbox}. */
export type PostgresPushOutboxOptions = SqlPushOutboxOptions;

const CLAIM_SQL = `UPDATE a2a_push_outbox o SET lease_owner = $1, lease_until_ms = $2
  FROM (
    SELECT seq FROM a2a_push_outbox
    WHERE state = 'pending' AND head AND next_attempt_ms <= $3 AND lease_until_ms <= $3
    ORDER BY next_attempt_ms LIMIT $4
    FOR UPDATE SKIP LOCKED) due
  WHERE o.seq = due.seq
  RETURNING ${DELIVERY_COLUMNS.split(', ')
    .map((column) => `o.${column}`)
    .join(', ')}`;

/** Locks the task row of delivery $1 (no row when the task was purged: nothing to exclude then). */
const LOCK_TASK_SQL = `SELECT 1 FROM a2a_tasks t JOIN a2a_push_outbox o
    ON t.tenant = o.tenant AND t.owner = o.owner AND t.id = o.task_id
  WHERE o.id = $1 FOR NO KEY UPDATE OF t`;

/** Pending rows of the same config as `s` (the settled row), other than it. */
const sameQueue = (alias: string): string =>
  `${alias}.tenant = s.tenant AND ${alias}.owner = s.owner AND ${alias}.task_id = s.task_id
   AND ${alias}.config_id = s.config_id AND ${alias}.state = 'pending' AND ${alias}.id <> $1`;

/**
 * Settles delivery $1 held by $2 (state $3, finished $4, next attempt or settle time $5, error
 * $6), records the attempt ($7..$11), keeps the last $12 attempts and, when finished, makes the
 * config's next pending row the head. One statement: its parts share one snapshot, so the next
 * head is looked for among the rows other than the settled one.
 */
const SETTLE_SQL = `WITH s AS (
    UPDATE a2a_push_outbox SET state = $3, head = NOT $4, attempts = attempts + 1, recorded = recorded + 1,
      next_attempt_ms = $5, last_error = $6, settled_ms = CASE WHEN $4 THEN $5::bigint END,
      lease_owner = NULL, lease_until_ms = 0
    WHERE id = $1 AND state = 'pending' AND lease_owner = $2
    RETURNING tenant, owner, task_id, config_id, recorded),
  recorded AS (
    INSERT INTO a2a_push_attempts (delivery_id, n, at_ms, duration_ms, ok, status, error)
    SELECT $1, s.recorded, $7, $8, $9, $10, $11 FROM s),
  trimmed AS (
    DELETE FROM a2a_push_attempts a USING s WHERE a.delivery_id = $1 AND a.n <= s.recorded - $12),
  promoted AS (
    UPDATE a2a_push_outbox o SET head = true FROM s
    WHERE $4 AND o.seq = (SELECT p.seq FROM a2a_push_outbox p WHERE ${sameQueue('p')} ORDER BY p.seq LIMIT 1)
      AND NOT EXISTS (SELECT 1 FROM a2a_push_outbox h WHERE ${sameQueue('h')} AND h.head))
  SELECT count(*) AS n FROM s`;

/** The push outbox of a PostgreSQL store. */
export class PostgresPushOutbox implements PushOutbox {
  readonly #settings: SqlPushOutboxSettings;
  readonly #staged: StagedRowWrites<number>;
  readonly #listeners: (() => void)[] = [];
  readonly #timer: NodeJS.Timeout;
  #pruning = false;
  #closed = false;

  /** An outbox on an open database (usually the one a PostgresTaskStore uses); shares its pool. */
  constructor(
    readonly database: PostgresDatabase,
    options: PostgresPushOutboxOptions = {},
  ) {
    this.#settings = outboxSettings(options);
    this.#staged = new StagedRowWrites(
      database,
      (chain) => changeStatement(chain.record, chain.expectedVersion, chain.payloads, chain.log),
      checkChange,
      1,
    );
    database.retain();
    this.#timer = setInterval(() => void this.prune().catch(() => {}), this.#settings.pruneEveryMs);
    this.#timer.unref();
  }

  async saveChange(
    _store: TaskStore,
    record: StoredTask,
    expectedVersion: number,
    event: StreamResponse | undefined,
    change?: SaveChange,
  ): Promise<void> {
    // `_store` is this database's task store (or a wrapper of it): the row is written here.
    if (record.version !== expectedVersion + 1) throw new TaskVersionConflictError(record.task.id);
    const payloads = event ? [{ payload: JSON.stringify(event), generation: record.version }] : [];
    // The row and its notifications are one statement: one point (the enqueue) when it carries an event.
    faultAt?.(
      payloads.length > 0 ? 'push.outbox.enqueue' : expectedVersion === 0 ? 'task.create' : 'task.update',
    );
    const statement = changeStatement(record, expectedVersion, payloads, change?.log);
    // A write found committed after a lost answer may have enqueued: the workers look.
    const queued = await this.#staged.inOrder(record, () =>
      this.database.write(taskRowWrite(this.database, () => statement, checkChange, 1)),
    );
    if (queued > 0) this.#wake();
  }

  // The payload now: the event is this change's; the task document is written later (the latest).
  readonly stageChange: PushChangeWriter['saveChange'] = (_store, record, expectedVersion, event, change) =>
    this.#staged
      .stage(record, expectedVersion, change, event ? JSON.stringify(event) : undefined)
      .then((queued) => {
        if (queued > 0) this.#wake();
      });

  /** Tells the delivery workers that notifications were enqueued. */
  readonly #wake = (): void => {
    for (const listener of this.#listeners) listener();
  };

  async claim(workerId: string, limit: number, leaseMs: number): Promise<PushDelivery[]> {
    const n = Math.max(0, Math.floor(limit));
    if (n === 0) return [];
    faultAt?.('push.outbox.claim');
    const now = Date.now();
    // A claim repeated after a lost connection may leave leases nobody knows of: they expire.
    const { rows } = await this.database.query<DeliveryRow>(CLAIM_SQL, [workerId, now + leaseMs, now, n]);
    return rows.map(deliveryOf).sort((a, b) => a.seq - b.seq);
  }

  async settle(
    id: string,
    workerId: string,
    attempt: PushAttempt,
    settlement: PushSettlement,
  ): Promise<boolean> {
    faultAt?.('push.outbox.settle');
    const finished = settlement.outcome !== 'retry';
    const params = [
      id,
      workerId,
      settlement.outcome === 'retry' ? 'pending' : settlement.outcome,
      finished,
      settlement.outcome === 'retry' ? settlement.nextAttemptAtMs : Date.now(),
      settlement.outcome === 'delivered' ? null : settlement.error,
      attempt.atMs,
      Math.round(attempt.durationMs),
      attempt.ok,
      attempt.status ?? null,
      attempt.error ?? null,
      this.#settings.maxAttemptsRecorded,
    ];
    if (!finished) {
      // A retry keeps the head where it is: one statement, no lock.
      const { rows } = await this.database.query<{ n: string }>(SETTLE_SQL, params);
      return toNumber(rows[0]?.n ?? 0) === 1;
    }
    return this.database.transaction(async (client) => {
      // The task row first (see the module comment), then the settle, in a statement whose
      // snapshot is taken after the lock: it sees every enqueue that committed meanwhile.
      await client.query(LOCK_TASK_SQL, [id]);
      const { rows } = await client.query<{ n: string }>(SETTLE_SQL, params);
      return toNumber(rows[0]?.n ?? 0) === 1;
    });
  }

  /**
   * Locks the task row of delivery `id` (see the module comment); false when the delivery is
   * unknown. A purged task has no row: nothing can enqueue for it either.
   */
  async #lockTaskOf(client: pg.PoolClient, id: string): Promise<boolean> {
    const found = await client.query('SELECT 1 FROM a2a_push_outbox WHERE id = $1', [id]);
    if (found.rowCount !== 1) return false;
    await client.query(LOCK_TASK_SQL, [id]);
    return true;
  }

  async renew(id: string, workerId: string, leaseMs: number): Promise<boolean> {
    faultAt?.('push.outbox.renew');
    const { rowCount } = await this.database.query(
      `UPDATE a2a_push_outbox SET lease_until_ms = $1 WHERE id = $2 AND state = 'pending' AND lease_owner = $3`,
      [Date.now() + leaseMs, id, workerId],
    );
    return rowCount === 1;
  }

  async get(id: string): Promise<PushDelivery | undefined> {
    const { rows } = await this.database.query<DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM a2a_push_outbox WHERE id = $1`,
      [id],
    );
    return rows[0] ? deliveryOf(rows[0]) : undefined;
  }

  async list(query: PushDeliveryQuery): Promise<PushDelivery[]> {
    const { where, params, limit } = listWhere(query, (n) => `$${n}`);
    const { rows } = await this.database.query<DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM a2a_push_outbox WHERE ${where} ORDER BY seq DESC LIMIT $${params.length + 1}`,
      [...params, limit],
    );
    return rows.map(deliveryOf);
  }

  async attempts(id: string): Promise<PushAttempt[]> {
    const { rows } = await this.database.query<AttemptRow>(
      'SELECT at_ms, duration_ms, ok, status, error FROM a2a_push_attempts WHERE delivery_id = $1 ORDER BY n',
      [id],
    );
    return rows.map(attemptOf);
  }

  async replay(id: string): Promise<boolean> {
    faultAt?.('push.outbox.renew');
    const replayed = await this.database.transaction(async (client) => {
      if (!(await this.#lockTaskOf(client, id))) return false;
      const { rowCount } = await client.query(
        `UPDATE a2a_push_outbox SET state = 'pending', attempts = 0, next_attempt_ms = $2, last_error = NULL,
           settled_ms = NULL, lease_owner = NULL, lease_until_ms = 0,
           head = a2a_push_is_head(tenant, owner, task_id, config_id)
         WHERE id = $1 AND state = 'dead'`,
        [id, Date.now()],
      );
      return rowCount === 1;
    });
    if (replayed) for (const listener of this.#listeners) listener();
    return replayed;
  }

  /** Called for enqueues in this process; other replicas find the work at their next poll. */
  onEnqueued(listener: () => void): void {
    this.#listeners.push(listener);
  }

  /**
   * Removes delivered and dead deliveries settled longer than `finishedMaxAgeMs` ago, and the
   * oldest beyond `maxFinished`, in bounded statements; returns how many. Runs every
   * `pruneEveryMs` by itself (replicas doing it at once only repeat each other's deletes).
   */
  async prune(nowMs = Date.now()): Promise<number> {
    if (this.#pruning || this.#closed) return 0;
    this.#pruning = true;
    let total = 0;
    try {
      const steps: [string, number][] = [
        [
          `DELETE FROM a2a_push_outbox WHERE seq IN (
             SELECT seq FROM a2a_push_outbox WHERE state <> 'pending' AND settled_ms < $1 LIMIT ${PRUNE_CHUNK})`,
          nowMs - this.#settings.finishedMaxAgeMs,
        ],
        [
          `DELETE FROM a2a_push_outbox WHERE seq IN (
             SELECT seq FROM a2a_push_outbox WHERE state <> 'pending'
             ORDER BY settled_ms DESC OFFSET $1 LIMIT ${PRUNE_CHUNK})`,
          this.#settings.maxFinished,
        ],
      ];
      for (const [sql, param] of steps) {
        for (;;) {
          if (this.#closed) return total;
          faultAt?.('retention.purge');
          const { rowCount } = await this.database.query(sql, [param]);
          total += rowCount ?? 0;
          if ((rowCount ?? 0) < PRUNE_CHUNK) break;
        }
      }
      return total;
    } finally {
      this.#pruning = false;
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#timer);
    await this.database.release();
  }
}
