/**
 * The push outbox contract (issue 12): the notifications a task change produces are written
 * with the change, then claimed, POSTed and settled by a delivery worker. Memory implementation:
 * {@link MemoryPushOutbox}; SQLite and PostgreSQL implementations come with those stores.
 *
 * How a SQL store implements it (one `push_outbox` table: id, tenant, owner, task_id, config_id,
 * seq, payload JSON, generation, state, attempts, created_at, next_attempt_at, lease_owner,
 * lease_until, last_error; and `push_attempts` rows for the operator view):
 * - {@link PushChangeWriter.saveChange} runs the task's compare-and-set UPDATE and
 *   `INSERT INTO push_outbox SELECT ... FROM push_configs WHERE tenant = $1 AND task_id = $2` in
 *   one transaction, so a change is never saved without its notifications nor the reverse.
 * - {@link PushOutbox.claim} selects, in one transaction, due pending rows that are the oldest
 *   pending row of their config (`NOT EXISTS` an earlier pending `seq` of the same config) and
 *   whose lease is free or expired, `ORDER BY next_attempt_at LIMIT $n FOR UPDATE SKIP LOCKED`,
 *   then sets `lease_owner` and `lease_until`: two replicas never hold the same delivery, and a
 *   replica that dies loses its leases when they expire (at least once, never twice at once).
 * - {@link PushOutbox.settle} updates the row only `WHERE lease_owner = $worker`: a worker whose
 *   lease expired and was taken over cannot overwrite the new holder's outcome.
 */
import type { StreamResponse } from '../../model/schema.js';
import type { SaveChange, StoredTask, TaskStore } from '../stores/task-store.js';

/** Where a delivery is in its life. */
export type PushDeliveryState = 'pending' | 'delivered' | 'dead';

/** One notification to one push config: the unit the worker claims, sends and settles. */
export interface PushDelivery {
  /** The notification id (UUID), sent as `X-A2A-Notification-Id` and the JWT's `jti`. */
  readonly id: string;
  readonly tenant: string;
  /** Owner of the task (the config is read in the task's scope). */
  readonly owner: string;
  readonly taskId: string;
  readonly configId: string;
  /** Order of this notification among its config's notifications (grows by one per change). */
  readonly seq: number;
  /** The body: the change's `StreamResponse` as JSON text (spec §4.3.3). */
  readonly payload: string;
  /**
   * A2A 1.1 draft (GEN-6): the task version this change made (its generation), sent to configs
   * that opted in. Absent on deliveries enqueued before the outbox recorded it.
   */
  readonly generation?: number;
  readonly state: PushDeliveryState;
  /** Attempts made so far. */
  readonly attempts: number;
  /** When it was enqueued (epoch ms); the retry age bound counts from it. */
  readonly createdAtMs: number;
  /** Not claimed before this instant (epoch ms): the backoff. */
  readonly nextAttemptAtMs: number;
  /** Why the last attempt failed, or why it is dead. */
  readonly lastError?: string;
}

/** What one attempt led to, recorded for the operator. */
export interface PushAttempt {
  /** When the attempt started (epoch ms). */
  readonly atMs: number;
  readonly durationMs: number;
  /** True for a 2xx answer. */
  readonly ok: boolean;
  /** The HTTP status, when an answer came. */
  readonly status?: number;
  /** The failure (refused, timeout, address refused, non-2xx). */
  readonly error?: string;
}

/** How the worker settles a claimed delivery after an attempt. */
export type PushSettlement =
  | { readonly outcome: 'delivered' }
  | { readonly outcome: 'retry'; readonly nextAttemptAtMs: number; readonly error: string }
  | { readonly outcome: 'dead'; readonly error: string };

/** Filter of {@link PushOutbox.list}. */
export interface PushDeliveryQuery {
  readonly tenant?: string;
  readonly taskId?: string;
  readonly state?: PushDeliveryState;
  /** At most this many (1..1000), newest first. */
  readonly limit: number;
}

/**
 * Saves a task change and, in the same write, enqueues its notifications. The TaskManager calls
 * it instead of `TaskStore.save` once an outbox is attached.
 */
export interface PushChangeWriter {
  /**
   * Writes `record` exactly as `store.save(record, expectedVersion)` would (same conflict
   * error) and enqueues one delivery of `event` per push config the task has at that moment,
   * each after the config's earlier ones, with `record.version` as its generation (GEN-6).
   * Nothing is enqueued when the save is refused or `event` is undefined. A SQL store does both
   * in one transaction (it may ignore `store`, being that store itself). `change`: the
   * TaskManager's hint, as for `TaskStore.save`.
   */
  saveChange(
    store: TaskStore,
    record: StoredTask,
    expectedVersion: number,
    event: StreamResponse | undefined,
    change?: SaveChange,
  ): Promise<void>;
  /**
   * Optional: {@link PushChangeWriter.saveChange} as a write-behind stage (see
   * `TaskStore.stage`): queued at once, the stages of one task queued together written as one
   * row write with every stage's notifications, in order, in one transaction.
   */
  readonly stageChange?: PushChangeWriter['saveChange'];
}

/** The outbox: written with task changes, drained by delivery workers, inspected by operators. */
export interface PushOutbox extends PushChangeWriter {
  /**
   * Leases up to `limit` due deliveries to `workerId` for `leaseMs`: pending, `nextAttemptAtMs`
   * reached, lease free or expired, and each the oldest pending delivery of its config (a
   * config's next notification waits until the previous one is delivered or dead). The
   * returned deliveries carry `attempts` before this attempt.
   */
  claim(workerId: string, limit: number, leaseMs: number): Promise<PushDelivery[]>;
  /**
   * Records `attempt` and settles delivery `id`, only while `workerId` holds its lease; false
   * when it does not (the lease expired and someone else took it: the outcome is dropped).
   */
  settle(id: string, workerId: string, attempt: PushAttempt, settlement: PushSettlement): Promise<boolean>;
  /** Extends a held lease (a slow receiver); false when `workerId` no longer holds it. */
  renew?(id: string, workerId: string, leaseMs: number): Promise<boolean>;
  /** One delivery, or undefined. */
  get(id: string): Promise<PushDelivery | undefined>;
  /** Deliveries for an operator, newest first. */
  list(query: PushDeliveryQuery): Promise<PushDelivery[]>;
  /** The attempts of one delivery, oldest first (bounded by the retry policy's attempts). */
  attempts(id: string): Promise<PushAttempt[]>;
  /**
   * Puts a dead delivery back to pending, due now, with its attempt count reset. When its
   * config has pending deliveries, it waits for the oldest of them (which may be in flight: a
   * config still sends one at a time), then goes before the later ones; so a replay may arrive
   * after notifications that followed it (receivers order by content, not arrival).
   * False when the delivery is unknown or not dead.
   */
  replay(id: string): Promise<boolean>;
  /**
   * Called (synchronously, no work in it) when deliveries were enqueued in this process, so a
   * worker here starts at once instead of at its next poll. Optional for stores shared by replicas.
   */
  onEnqueued?(listener: () => void): void;
  /** Earliest `nextAttemptAtMs` among pending deliveries, when the store knows it cheaply. */
  nextDueAtMs?(): number | undefined;
  /**
   * True when nothing outside this process writes to the outbox (a memory outbox): with nothing
   * pending, the worker then sleeps until {@link onEnqueued} instead of polling. A store file or
   * database may be written by other processes (`a2a push replay`, replicas), so it is polled.
   */
  readonly processLocal?: boolean;
  /** Releases what the outbox holds (statements, timers); called once, at shutdown. */
  close?(): Promise<void>;
}
