/**
 * In-memory stores: fast, process-local, lost on restart.
 *
 * A running task saved recently stays the object it was saved as: the TaskManager never
 * mutates a saved task (each change builds a new object), so the reads and writes of a running
 * task copy nothing. After {@link YOUNG_SAVES} later saves it is packed into one JSON string,
 * like a database row: V8 keeps such a string at one byte per character, several times denser
 * than the object graph. A terminal task never changes again, so it is packed when saved.
 * Reading a packed task parses it into a fresh object.
 */
import { randomBytes } from 'node:crypto';
import { UnavailableError } from '../../../errors/a2a-error.js';
import { isInterruptedState, isTerminalState } from '../../../model/enums.js';
import {
  TaskVersionConflictError,
  type IdempotencyKey,
  type IdempotencyRecord,
  type InterruptedTaskRef,
  type LoggedTaskEvent,
  type SaveChange,
  type StoredTask,
  type TaskPage,
  type TaskQuery,
  type TaskScope,
  type TaskStore,
} from '../task-store.js';
import { CallerTasks } from './caller-index.js';
import { MemoryEventLog } from './event-log.js';
import { MemoryIdempotencyRecords } from './idempotency-records.js';
import { pack, PackedTask, rowContextId, rowState, toStored, type TaskRow } from './packing.js';

/** Settled answers shared by every call (a promise cannot be changed by those awaiting it). */
const DONE: Promise<void> = Promise.resolve();
const NOT_HELD: Promise<IdempotencyRecord | undefined> = Promise.resolve(undefined);

/** How many of the latest saves keep their task as an object before it is packed. */
const YOUNG_SAVES = 256;

/** Options of {@link MemoryTaskStore}. */
export interface MemoryTaskStoreOptions {
  /**
   * How many idempotency records to keep; the oldest are forgotten first.
   * @default 100000
   */
  maxIdempotencyRecords?: number;
  /**
   * Heap bytes (approximate) the idempotency records may take, direct Message replies
   * included; the oldest are forgotten first. @default 33554432 (32 MiB)
   */
  maxIdempotencyBytes?: number;
  /**
   * Idempotency records older than this are forgotten (the handler's `idempotencyTtlMs`
   * decides when a repeat stops matching; this only frees memory). @default 86400000 (24 h)
   */
  idempotencyMaxAgeMs?: number;
  /**
   * Most tasks held. Past it the terminal tasks that ended first are deleted; when every held
   * task is still running, a new task is refused with UnavailableError. @default Infinity
   */
  maxTasks?: number;
  /**
   * Terminal tasks (COMPLETED, FAILED, CANCELED, REJECTED) are deleted this long after they
   * ended (their `status.timestamp`). @default Infinity (kept until the process ends)
   */
  terminalTaskMaxAgeMs?: number;
}

/** A {@link TaskStore} in process memory. */
export class MemoryTaskStore implements TaskStore {
  /** Tasks by tenant, then owner. */
  readonly #scopes = new Map<string, Map<string, CallerTasks>>();
  #taskCount = 0;
  /**
   * The latest saves of running tasks (ring): each is packed when it leaves, unless saved over
   * meanwhile. It holds the caller, id and version of each, not the record: a record held here
   * would keep its task's object graph alive through the young generation's collections (each
   * one copied, then promoted, then collected again as old garbage).
   */
  readonly #youngCallers: (CallerTasks | undefined)[] = new Array(YOUNG_SAVES).fill(undefined);
  readonly #youngIds: (string | undefined)[] = new Array(YOUNG_SAVES).fill(undefined);
  readonly #youngVersions: number[] = new Array(YOUNG_SAVES).fill(0);
  #youngNext = 0;
  /** Terminal tasks in the order they ended (from `#endedHead`), for retention. */
  #endedCallers: (CallerTasks | undefined)[] = [];
  #endedIds: (string | undefined)[] = [];
  #endedHead = 0;
  readonly #maxTasks: number;
  readonly #terminalMaxAgeMs: number;
  /** Whether terminal tasks are deleted at all (without a limit, nothing tracks them). */
  readonly #retaining: boolean;

  /** Idempotency records by tenant, then principal, then messageId. */
  readonly #idempotency: MemoryIdempotencyRecords;
  /** A2A 1.1 draft (GEN-5): each task's latest events, written only when saves carry them. */
  readonly #log = new MemoryEventLog();
  constructor(options: MemoryTaskStoreOptions = {}) {
    this.#idempotency = new MemoryIdempotencyRecords(options);
    this.#maxTasks = options.maxTasks ?? Infinity;
    this.#terminalMaxAgeMs = options.terminalTaskMaxAgeMs ?? Infinity;
    this.#retaining = this.#maxTasks !== Infinity || this.#terminalMaxAgeMs !== Infinity;
  }

  #caller(tenant: string, owner: string, create: boolean): CallerTasks | undefined {
    let owners = this.#scopes.get(tenant);
    if (!owners) {
      if (!create) return undefined;
      owners = new Map();
      this.#scopes.set(tenant, owners);
    }
    let tasks = owners.get(owner);
    if (!tasks && create) {
      tasks = new CallerTasks(tenant, owner);
      owners.set(owner, tasks);
    }
    return tasks;
  }

  get(scope: TaskScope, id: string): Promise<StoredTask | undefined> {
    const row = this.#caller(scope.tenant, scope.owner, false)?.rows.get(id);
    return Promise.resolve(row === undefined ? undefined : toStored(row, id, scope));
  }

  save(record: StoredTask, expectedVersion: number, change?: SaveChange): Promise<void> {
    let caller = this.#caller(record.tenant, record.owner, true)!;
    const id = record.task.id;
    const current = caller.rows.get(id);
    if ((current?.version ?? 0) !== expectedVersion || record.version !== expectedVersion + 1) {
      return Promise.reject(new TaskVersionConflictError(id));
    }
    if (!current) {
      if (this.#retaining) this.#retain(Date.now());
      if (this.#taskCount >= this.#maxTasks) {
        return Promise.reject(
          new UnavailableError(
            `the task store is full: ${this.#taskCount} tasks are still running (maxTasks ${this.#maxTasks})`,
          ),
        );
      }
      this.#taskCount++;
      // Retention may have dropped the caller's last task, and with it the caller's entry.
      caller = this.#caller(record.tenant, record.owner, true)!;
    }
    const terminal = isTerminalState(record.task.status.state);
    // A terminal task never changes again (the state machine): packed now, it leaves nothing
    // young behind once its request is answered.
    caller.put(id, terminal ? pack(record) : record, current);
    if (this.#retaining && terminal && !(current && isTerminalState(rowState(current)))) {
      this.#endedCallers.push(caller);
      this.#endedIds.push(id);
    }
    if (!terminal) this.#rememberYoung(caller, id, record.version);
    if (change?.log) this.#log.append(logKey(record.tenant, record.owner, id), change.log);
    return DONE;
  }

  readEvents(scope: TaskScope, taskId: string, after: number, limit: number): Promise<LoggedTaskEvent[]> {
    return Promise.resolve(this.#log.read(logKey(scope.tenant, scope.owner, taskId), after, limit));
  }

  /** Puts a running task's save in the ring, packing the save that leaves it if still current. */
  #rememberYoung(caller: CallerTasks, id: string, version: number): void {
    const slot = this.#youngNext;
    this.#youngNext = slot + 1 === YOUNG_SAVES ? 0 : slot + 1;
    const leavingCaller = this.#youngCallers[slot];
    if (leavingCaller) {
      const leavingId = this.#youngIds[slot]!;
      const row = leavingCaller.rows.get(leavingId);
      // Packed only when it is still that save (not saved over, packed or deleted since).
      if (row !== undefined && !(row instanceof PackedTask) && row.version === this.#youngVersions[slot]) {
        leavingCaller.replace(leavingId, pack(row));
      }
    }
    this.#youngCallers[slot] = caller;
    this.#youngIds[slot] = id;
    this.#youngVersions[slot] = version;
  }

  /**
   * Applies the retention options before a new task is added: terminal tasks past their age,
   * then (while the store is full) the terminal tasks that ended first. O(1) amortized.
   */
  #retain(now: number): void {
    const ageLimit = now - this.#terminalMaxAgeMs;
    while (this.#endedHead < this.#endedIds.length) {
      const head = this.#endedHead;
      const caller = this.#endedCallers[head]!;
      const id = this.#endedIds[head]!;
      const row = caller.rows.get(id);
      if (row && isTerminalState(rowState(row))) {
        if (row.statusTimeMs >= ageLimit && this.#taskCount < this.#maxTasks) break;
        this.#deleteTask(caller, id);
      }
      this.#endedCallers[head] = undefined;
      this.#endedIds[head] = undefined;
      this.#endedHead++;
    }
    if (this.#endedHead > 1024 && this.#endedHead * 2 > this.#endedIds.length) {
      this.#endedCallers = this.#endedCallers.slice(this.#endedHead);
      this.#endedIds = this.#endedIds.slice(this.#endedHead);
      this.#endedHead = 0;
    }
  }

  #deleteTask(caller: CallerTasks, id: string): void {
    if (!caller.rows.has(id)) return;
    caller.delete(id);
    this.#log.delete(logKey(caller.tenant, caller.owner, id));
    this.#taskCount--;
    if (caller.rows.size === 0) {
      const owners = this.#scopes.get(caller.tenant);
      owners?.delete(caller.owner);
      if (owners?.size === 0) this.#scopes.delete(caller.tenant);
    }
  }

  /** Secrets of this store (one per name, random, for as long as the process runs). */
  readonly #secrets = new Map<string, Uint8Array>();

  getOrCreateSecret(name: string): Promise<Uint8Array> {
    let secret = this.#secrets.get(name);
    if (!secret) {
      secret = new Uint8Array(randomBytes(32));
      this.#secrets.set(name, secret);
    }
    return Promise.resolve(secret);
  }

  purgeTerminalBefore(beforeMs: number): Promise<number> {
    let purged = 0;
    for (const owners of [...this.#scopes.values()]) {
      for (const caller of [...owners.values()]) {
        for (const [id, row] of [...caller.rows]) {
          if (row.statusTimeMs < beforeMs && isTerminalState(rowState(row))) {
            this.#deleteTask(caller, id);
            purged++;
          }
        }
      }
    }
    return Promise.resolve(purged);
  }

  list(query: TaskQuery): Promise<TaskPage> {
    const caller = this.#caller(query.tenant, query.owner, false);
    if (!caller) return Promise.resolve({ tasks: [], totalSize: 0, hasMore: false });
    const { after, limit, contextId, status, statusTimeAtOrAfterMs: since } = query;
    const matches = (row: TaskRow): boolean =>
      (contextId === undefined || rowContextId(row) === contextId) &&
      (status === undefined || rowState(row) === status);
    // Walk the index from the position down (newest first), `limit` + 1 matches at most.
    const page: { id: string; row: TaskRow }[] = [];
    let hasMore = false;
    let i = (after ? caller.lowerBound(after.statusTimeMs, after.id) : caller.times.length) - 1;
    for (; i >= 0; i--) {
      if (since !== undefined && caller.times[i]! < since) break;
      if (!caller.live(i)) continue;
      const id = caller.ids[i]!;
      const row = caller.rows.get(id)!;
      if (!matches(row)) continue;
      if (page.length === limit) {
        hasMore = true;
        break;
      }
      page.push({ id, row });
    }
    return Promise.resolve({
      tasks: page.map((entry) => toStored(entry.row, entry.id, query)),
      totalSize: this.#count(caller, query),
      hasMore,
    });
  }

  /** Matches of the query's filters among the caller's tasks, from the counts when one filter is set. */
  #count(caller: CallerTasks, query: TaskQuery): number {
    const { contextId, status, statusTimeAtOrAfterMs: since } = query;
    if (since === undefined) {
      if (contextId === undefined && status === undefined) return caller.rows.size;
      if (contextId === undefined) return caller.stateCounts.get(status!) ?? 0;
      if (status === undefined) return caller.contextCounts.get(contextId) ?? 0;
    }
    let n = 0;
    if (since !== undefined) {
      for (let i = caller.times.length - 1; i >= 0 && caller.times[i]! >= since; i--) {
        if (!caller.live(i)) continue;
        const row = caller.rows.get(caller.ids[i]!)!;
        if (contextId !== undefined && rowContextId(row) !== contextId) continue;
        if (status !== undefined && rowState(row) !== status) continue;
        n++;
      }
      return n;
    }
    for (const row of caller.rows.values()) {
      if (rowContextId(row) === contextId && rowState(row) === status) n++;
    }
    return n;
  }

  listInterrupted(): Promise<InterruptedTaskRef[]> {
    const found: InterruptedTaskRef[] = [];
    for (const [tenant, owners] of this.#scopes) {
      for (const [owner, caller] of owners) {
        for (const [taskId, row] of caller.rows) {
          if (isInterruptedState(rowState(row))) {
            found.push({ tenant, owner, taskId, statusTimeMs: row.statusTimeMs });
          }
        }
      }
    }
    found.sort((a, b) => a.statusTimeMs - b.statusTimeMs);
    return Promise.resolve(found);
  }

  claimIdempotencyKey(
    key: IdempotencyKey,
    record: IdempotencyRecord,
  ): Promise<IdempotencyRecord | undefined> {
    const held = this.#idempotency.claim(key, record);
    return held === undefined ? NOT_HELD : Promise.resolve(held);
  }

  setIdempotencyRecord(key: IdempotencyKey, record: IdempotencyRecord | undefined): Promise<void> {
    this.#idempotency.set(key, record);
    return DONE;
  }

  purgeIdempotencyBefore(cutoffMs: number): Promise<number> {
    return Promise.resolve(this.#idempotency.forgetBefore(cutoffMs));
  }

  /** Approximate heap bytes of the idempotency records; for tests and diagnostics. */
  get idempotencyBytes(): number {
    return this.#idempotency.bytes;
  }

  /** Number of idempotency records held; for tests and diagnostics. */
  get idempotencyCount(): number {
    return this.#idempotency.count;
  }

  /** Number of stored tasks (all scopes); for tests and diagnostics. */
  get size(): number {
    return this.#taskCount;
  }
}

function logKey(tenant: string, owner: string, id: string): string {
  return `${tenant}\u0000${owner}\u0000${id}`;
}
