/**
 * The persistence contract for tasks. The TaskManager is its only writer. Every method is
 * async and every record is plain JSON data, so SQLite and PostgreSQL stores can implement
 * it with one row per task (columns for the scope, id, context, state, timestamp, version
 * and the task document).
 */
import type { TaskState } from '../../model/enums.js';
import type { Message, StreamResponse, Task } from '../../model/schema.js';

/** Who may see a task: the tenant it was created under and the principal that owns it. */
export interface TaskScope {
  /** Tenant (`""` for none). */
  readonly tenant: string;
  /** Id of the owning principal. */
  readonly owner: string;
}

/** One stored task with its scope and optimistic-concurrency version. */
export interface StoredTask {
  readonly tenant: string;
  readonly owner: string;
  /** The task document, always with `contextId`, `status.timestamp`, `history` and `artifacts`. */
  readonly task: Task;
  /** Starts at 1, grows by one on every change; used for compare-and-set and stream de-duplication. */
  readonly version: number;
  /** `status.timestamp` in epoch milliseconds (sort and filter key of ListTasks). */
  readonly statusTimeMs: number;
}

/** Position after which a ListTasks page starts (newest first: strictly older, or same time and smaller id). */
export interface ListPosition {
  readonly statusTimeMs: number;
  readonly id: string;
}

/** A ListTasks query, already validated and scoped. Filters combine with AND. */
export interface TaskQuery extends TaskScope {
  readonly contextId?: string;
  readonly status?: TaskState;
  /** Only tasks whose status timestamp is at or after this instant (epoch ms). */
  readonly statusTimeAtOrAfterMs?: number;
  /** Maximum number of tasks to return (1..100). */
  readonly limit: number;
  /** Continue after this position. */
  readonly after?: ListPosition;
}

/** A page of tasks, newest first by `status.timestamp`, ties broken by id descending. */
export interface TaskPage {
  readonly tasks: StoredTask[];
  /** Number of tasks matching the scope and filters, before paging. */
  readonly totalSize: number;
  /** True when more tasks follow the last one returned. */
  readonly hasMore: boolean;
}

/** Identifies a SendMessage for de-duplication: the same messageId from the same caller. */
export interface IdempotencyKey {
  readonly tenant: string;
  readonly principal: string;
  readonly messageId: string;
}

/**
 * Fields every {@link IdempotencyRecord} carries. Records are plain JSON objects: a SQL store
 * may keep one as an opaque JSON column.
 */
export interface IdempotencyRecordFacts {
  /**
   * Fingerprint of the request the messageId was first used for (a hash of its canonical
   * form): a repeat with another fingerprint is a different message and is refused.
   * Absent on records written without one (then any repeat matches).
   */
  readonly fingerprint?: string;
  /** When the messageId was first used (epoch ms); the idempotency window counts from it. */
  readonly createdAtMs?: number;
}

/**
 * What a SendMessage produced (or is producing), keyed by {@link IdempotencyKey}:
 * `pending`: it addresses `taskId` (minted up front), and stays so once that task exists (a
 * reference: the reply is the task; a repeat finds it by id); `message` when the agent
 * answered with a direct message (kept whole: it is stored nowhere else). `task` (the same
 * reference, written by earlier versions) is read as it always was.
 */
export type IdempotencyRecord = IdempotencyRecordFacts &
  (
    | { readonly status: 'pending'; readonly taskId: string }
    | { readonly status: 'task'; readonly taskId: string }
    | { readonly status: 'message'; readonly message: Message }
  );

/** A task waiting in an interrupted state, as listed by {@link TaskStore.listInterrupted}. */
export interface InterruptedTaskRef {
  readonly tenant: string;
  readonly owner: string;
  readonly taskId: string;
  /** `status.timestamp` in epoch milliseconds: when the task entered its interrupted state. */
  readonly statusTimeMs: number;
}

/**
 * One entry of a task's event log (A2A 1.1 draft, GEN-5): the change that made the task's
 * version `generation`, as streamed. Every version of a task has one entry while the log keeps
 * it, so a reader knows the log is gap-free from the generations alone.
 */
export interface LoggedTaskEvent {
  /** The task's version (generation) after the change. */
  readonly generation: number;
  /** The task's state after the change. */
  readonly state: TaskState;
  /** The change as streamed; absent for a change that streams nothing (a client message on a running task). */
  readonly response?: StreamResponse;
}

/** The event log entries a save writes with the task row, in the same write (GEN-5). */
export interface EventLogWrite {
  /** The entries, oldest first; their generations follow each other and end at the record's version. */
  readonly events: readonly LoggedTaskEvent[];
  /** Entries kept per task: older ones are deleted in the same write. */
  readonly keep: number;
}

/** What an update of a task changes besides its document (a hint to {@link TaskStore.save}). */
export interface SaveChange {
  /** True when the status (state and timestamp) is the one already stored. */
  readonly statusUnchanged: boolean;
  /** The state of the version being replaced (a store keeping counts per state needs no read). */
  readonly previousState?: TaskState;
  /**
   * A2A 1.1 draft (GEN-5): event log entries to write in the same write as the row. Given only
   * when the feature is on; a store with {@link TaskStore.readEvents} must write them.
   */
  readonly log?: EventLogWrite;
}

/** Raised by {@link TaskStore.save} when the stored version is not the expected one. */
export class TaskVersionConflictError extends Error {
  constructor(readonly taskId: string) {
    super(`task ${taskId} was changed concurrently`);
    this.name = 'TaskVersionConflictError';
  }
}

/** Where tasks live. Implementations: memory (here), SQLite and PostgreSQL (later). */
export interface TaskStore {
  /** The task with `id` in `scope`, or undefined when missing or owned by someone else. */
  get(scope: TaskScope, id: string): Promise<StoredTask | undefined>;
  /**
   * Writes `record`. `expectedVersion` is the version the writer read (`0` for a new task);
   * when the stored version differs the write is refused with {@link TaskVersionConflictError}.
   * `record.version` must be `expectedVersion + 1`. After the promise settles, the TaskManager
   * may extend the task's arrays (history, artifacts, parts) in place for its next change
   * (undone when that save is refused): a store that keeps the object, as the memory store
   * does, hands readers copies of those arrays; a store that serializes it is unaffected.
   * `change`, when the writer gives it, says what else changed (a SQL store may then leave
   * its indexes alone); a store may ignore it.
   */
  save(record: StoredTask, expectedVersion: number, change?: SaveChange): Promise<void>;
  /**
   * Optional write-behind save, for a store that writes in batches (SQLite): queues the write
   * of `record` and returns at once, without reading or checking anything. Stages of one task
   * that follow each other directly (each `expectedVersion` the version of the record staged
   * before it) and are queued before the batch is written become one row write, of the latest
   * record, serialized when the batch is written (so the caller may extend the arrays of a
   * staged record in place for its next stage, never after it). The promise resolves once the
   * write is durable and rejects as {@link TaskVersionConflictError} when the row was not at
   * the expected version by then (that write changed nothing), or with the store's error.
   * Only the TaskManager stages, for the agent's own changes, and it publishes a staged change
   * only after its promise resolved.
   */
  stage?(record: StoredTask, expectedVersion: number, change?: SaveChange): Promise<void>;
  /**
   * A page of tasks matching `query`, newest `status.timestamp` first (ties: larger id first),
   * starting strictly after `query.after`. The cursor guarantee every store keeps: walking
   * the pages, each task that existed when the walk began and whose status did not change
   * during it is returned exactly once, and no task is returned twice. (A status change only
   * moves a task's time forward, before the walk's position: an updated task is not returned
   * again, and may not be returned at all; tasks created during the walk are not returned.)
   */
  list(query: TaskQuery): Promise<TaskPage>;
  /**
   * Atomically records `record` for `key` unless a record exists. Returns the existing record,
   * or undefined when `record` was stored (the caller owns the request).
   */
  claimIdempotencyKey(key: IdempotencyKey, record: IdempotencyRecord): Promise<IdempotencyRecord | undefined>;
  /** Replaces the record for `key` (pending → result), or removes it when `record` is undefined. */
  setIdempotencyRecord(key: IdempotencyKey, record: IdempotencyRecord | undefined): Promise<void>;
  /**
   * Replaces the record for `key` with `next` only if it is still `expected` (compared as
   * JSON text): a retry taking over the claim of a send whose worker is gone, where two
   * replicas may race. True when replaced. Optional: without it the record is set as is.
   */
  replaceIdempotencyRecord?(
    key: IdempotencyKey,
    expected: IdempotencyRecord,
    next: IdempotencyRecord,
  ): Promise<boolean>;
  /**
   * Every task in `TASK_STATE_INPUT_REQUIRED` or `TASK_STATE_AUTH_REQUIRED`, in any tenant, oldest
   * status first. Read once when a handler starts, so tasks interrupted before a restart (or
   * by a replica that went away) still end when their wait expires. A SQL store answers it
   * from an index on the state column. Optional: without it, only tasks interrupted while
   * this process runs are timed.
   */
  listInterrupted?(): Promise<InterruptedTaskRef[]>;
  /**
   * The tasks of {@link listInterrupted} whose status time is at or before `statusTimeMs`,
   * oldest first, at most `limit`. A store shared by replicas offers it (PostgreSQL): every
   * handler on it then scans for the waits that are over, so the interrupted tasks of a
   * replica that went away for good are still failed in time by the others. A store one
   * process owns leaves it out (its timer knows every wait). Offering it marks the store as
   * shared: a repeated SendMessage there also waits for an original running on another replica.
   */
  listInterruptedBefore?(statusTimeMs: number, limit: number): Promise<InterruptedTaskRef[]>;
  /**
   * A2A 1.1 draft (GEN-5): the task's logged events with a generation above `after`, oldest
   * first, at most `limit`. Optional: a store without it resumes streams with a Task snapshot.
   * Entries of a task are deleted with it (retention) and past `EventLogWrite.keep`.
   */
  readEvents?(scope: TaskScope, taskId: string, after: number, limit: number): Promise<LoggedTaskEvent[]>;
  /** Releases resources (connections). */
  close?(): Promise<void>;
  /**
   * Retention: deletes every terminal task (COMPLETED, FAILED, CANCELED, REJECTED) whose
   * `status.timestamp` is before the instant `cutoffMs` (epoch ms), in every tenant, with its
   * push configs when the store keeps them too, and returns how many were deleted. Optional;
   * never called by the handler on its own (an operator or a scheduled job calls it).
   */
  purgeTerminalBefore?(cutoffMs: number): Promise<number>;
  /**
   * Retention of idempotency records: deletes every record whose key was first taken before
   * the instant `cutoffMs` (epoch ms), in every tenant, in bounded chunks (each its own
   * transaction), and returns how many were deleted. The handler's retention job calls it
   * with its age (the idempotency window by default). Optional: a store without it keeps
   * its records (the memory store also bounds them itself).
   */
  purgeIdempotencyBefore?(cutoffMs: number): Promise<number>;
  /**
   * The secret named `name`, made of 32 random bytes the first time it is asked for and the
   * same ever after, on every replica that shares the store (ListTasks page tokens use it, so
   * they survive a restart and work on any replica). Optional: without it each handler makes
   * its own random key.
   */
  getOrCreateSecret?(name: string): Promise<Uint8Array>;
}
