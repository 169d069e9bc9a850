/**
 * In-memory stores: fast, process-local, lost on restart.
 *
 * A task saved recently stays the object it was saved as: the TaskManager never mutates a
 * saved task (each change builds a new object), so the reads and writes of a running task
 * copy nothing. After {@link YOUNG_SAVES} later saves it is packed into one JSON string, like
 * a database row: V8 keeps such a string at one byte per character, several times denser
 * than the object graph. Reading a packed task parses it into a fresh object.
 */
import { formatTimestamp } from '../../model/timestamp.js';
import { snapshotTask } from '../task-snapshot.js';
import { UnavailableError } from '../../errors/a2a-error.js';
import { isInterruptedState, isTerminalState, type TaskState } from '../../model/enums.js';
import type { Message, TaskPushNotificationConfig } from '../../model/schema.js';
import type { PushConfigPage, PushConfigStore } from './push-config-store.js';
import {
  TaskVersionConflictError,
  type IdempotencyKey,
  type IdempotencyRecord,
  type InterruptedTaskRef,
  type StoredTask,
  type TaskPage,
  type TaskQuery,
  type TaskScope,
  type TaskStore,
} from './task-store.js';

/** How many of the latest saves keep their task as an object before it is packed. */
const YOUNG_SAVES = 256;

/**
 * Tasks whose JSON is longer stay objects: their bulk is a few large strings that are dense
 * already, and parsing them on every read would cost more than packing saves.
 */
const PACK_MAX_CHARS = 256 * 1024;

/**
 * Tasks with more parts (history messages plus artifact parts) stay objects without being
 * serialized first: a long chunked artifact would otherwise cost a full JSON.stringify on
 * every pack attempt, whatever its chunks' size.
 */
const PACK_MAX_PARTS = 4096;

/**
 * Stand-ins for the task id, the context id and the status timestamp (as JSON strings, with
 * their quotes) inside packed JSON. JSON.stringify escapes every control character, so these
 * never occur in its output.
 */
const ID_MARK = '\u0001';
const CONTEXT_MARK = '\u0002';
const TIME_MARK = '\u0003';

/** A task packed as JSON, with the fields ListTasks filters on kept beside it. */
class PackedTask {
  constructor(
    readonly version: number,
    readonly statusTimeMs: number,
    readonly state: TaskState,
    readonly contextId: string | undefined,
    /** The task as JSON, its id, context id and (when `timeMarked`) timestamp replaced by marks. */
    readonly json: string,
    /** `status.timestamp` is `statusTimeMs` as ISO text and was replaced by {@link TIME_MARK}. */
    readonly timeMarked: boolean,
  ) {}
}

type TaskRow = StoredTask | PackedTask;

function rowState(row: TaskRow): TaskState {
  return row instanceof PackedTask ? row.state : row.task.status.state;
}

function rowContextId(row: TaskRow): string | undefined {
  return row instanceof PackedTask ? row.contextId : row.task.contextId;
}

/**
 * `json` with every occurrence of each pattern replaced by its mark, in one left-to-right
 * pass. Any such replacement is undone exactly by replacing each mark back (the marks do not
 * occur in `json`). Built with one join, so the result is a flat string of exactly its length
 * (chained replaceAll calls leave a tree of string pieces that holds far more memory).
 */
function markAll(json: string, patterns: readonly string[], marks: readonly string[]): string {
  const n = patterns.length;
  const next: number[] = [];
  for (let i = 0; i < n; i++) next.push(json.indexOf(patterns[i]!));
  let pieces: string[] | undefined;
  let from = 0;
  for (;;) {
    let at = -1;
    let which = -1;
    for (let i = 0; i < n; i++) {
      const found = next[i]!;
      if (found >= 0 && (at < 0 || found < at)) {
        at = found;
        which = i;
      }
    }
    if (which < 0) break;
    (pieces ??= []).push(json.slice(from, at), marks[which]!);
    from = at + patterns[which]!.length;
    for (let i = 0; i < n; i++) {
      if (next[i]! >= 0 && next[i]! < from) next[i] = json.indexOf(patterns[i]!, from);
    }
  }
  if (!pieces) return json;
  pieces.push(json.slice(from));
  return pieces.join('');
}

/** The packed form of `record`, or the record itself when its task is not JSON data or is large. */
function pack(record: StoredTask): TaskRow {
  const task = record.task;
  let parts = task.history?.length ?? 0;
  for (const artifact of task.artifacts ?? []) parts += artifact.parts.length;
  if (parts > PACK_MAX_PARTS) return record;
  let json: string;
  try {
    json = JSON.stringify(task);
  } catch {
    return record;
  }
  if (json.length > PACK_MAX_CHARS) return record;
  const patterns = [JSON.stringify(task.id)];
  const marks = [ID_MARK];
  if (task.contextId !== undefined) {
    patterns.push(JSON.stringify(task.contextId));
    marks.push(CONTEXT_MARK);
  }
  const timestamp = task.status.timestamp;
  const timeMarked =
    timestamp !== undefined &&
    Number.isFinite(record.statusTimeMs) &&
    timestamp === formatTimestamp(record.statusTimeMs);
  if (timeMarked) {
    patterns.push(JSON.stringify(timestamp));
    marks.push(TIME_MARK);
  }
  json = markAll(json, patterns, marks);
  return new PackedTask(
    record.version,
    record.statusTimeMs,
    task.status.state,
    task.contextId,
    json,
    timeMarked,
  );
}

// eslint-disable-next-line no-control-regex -- the marks are control characters on purpose
const MARKS = /[\u0001-\u0003]/g;

/** Reverses {@link pack}: each mark becomes the text it stood for. */
function unpack(row: PackedTask, id: string, scope: TaskScope): StoredTask {
  const idJson = JSON.stringify(id);
  const contextJson = row.contextId === undefined ? '' : JSON.stringify(row.contextId);
  const timeJson = row.timeMarked ? JSON.stringify(formatTimestamp(row.statusTimeMs)) : '';
  const json = row.json.replace(MARKS, (mark) =>
    mark === ID_MARK ? idJson : mark === CONTEXT_MARK ? contextJson : timeJson,
  );
  return {
    tenant: scope.tenant,
    owner: scope.owner,
    task: JSON.parse(json) as StoredTask['task'],
    version: row.version,
    statusTimeMs: row.statusTimeMs,
  };
}

/**
 * The record a reader gets. A row held as an object is the very record the TaskManager saved,
 * whose arrays its next change extends in place: readers get their own arrays (a copy of the
 * array spines; messages and parts are shared), so what they read is this version only.
 */
function toStored(row: TaskRow, id: string, scope: TaskScope): StoredTask {
  if (row instanceof PackedTask) return unpack(row, id, scope);
  return { ...row, task: snapshotTask(row.task) };
}

/** `(aTime, aId)` before `(bTime, bId)` in ascending order (older first, then smaller id). */
function ascending(aTime: number, aId: string, bTime: number, bId: string): boolean {
  return aTime < bTime || (aTime === bTime && aId < bId);
}

/**
 * The tasks of one caller (tenant and owner) with their ListTasks index: every task's
 * (status time, id) in ascending order, so a page is a binary search and a walk of at most
 * the page (plus entries its filters skip), not a scan of the caller's tasks. A status change
 * appends a new entry (status times only grow, so that is at or near the end) and leaves the
 * old one stale; stale entries are skipped and compacted away once they are as many as the
 * live ones. Per-state and per-context counts answer `totalSize` for one filter without a scan.
 */
class CallerTasks {
  readonly rows = new Map<string, TaskRow>();
  /** Index: status times and ids, ascending; an entry is live when its row has that time. */
  times: number[] = [];
  ids: string[] = [];
  #stale = 0;
  readonly stateCounts = new Map<TaskState, number>();
  readonly contextCounts = new Map<string, number>();

  constructor(
    readonly tenant: string,
    readonly owner: string,
  ) {}

  /** Records that `id` now has `row` (`previous` being its row before, if any). */
  put(id: string, row: TaskRow, previous: TaskRow | undefined): void {
    this.rows.set(id, row);
    const state = rowState(row);
    if (previous) {
      const before = rowState(previous);
      if (before !== state) {
        bump(this.stateCounts, before, -1);
        bump(this.stateCounts, state, 1);
      }
      if (previous.statusTimeMs === row.statusTimeMs) return;
      this.#stale++;
    } else {
      bump(this.stateCounts, state, 1);
      const contextId = rowContextId(row);
      if (contextId !== undefined) bump(this.contextCounts, contextId, 1);
    }
    this.#insert(row.statusTimeMs, id);
  }

  /** Replaces a row by its packed form (same time, state and context: no index change). */
  replace(id: string, row: TaskRow): void {
    this.rows.set(id, row);
  }

  delete(id: string): void {
    const row = this.rows.get(id);
    if (!row) return;
    this.rows.delete(id);
    bump(this.stateCounts, rowState(row), -1);
    const contextId = rowContextId(row);
    if (contextId !== undefined) bump(this.contextCounts, contextId, -1);
    this.#stale++;
    this.#compactIfStale();
  }

  /** True when index entry `i` is the current position of its task. */
  live(i: number): boolean {
    return this.rows.get(this.ids[i]!)?.statusTimeMs === this.times[i];
  }

  /** Number of index entries before the first one at or after (`time`, `id`). */
  lowerBound(time: number, id: string): number {
    let lo = 0;
    let hi = this.times.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (ascending(this.times[mid]!, this.ids[mid]!, time, id)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  #insert(time: number, id: string): void {
    const n = this.times.length;
    if (n === 0 || ascending(this.times[n - 1]!, this.ids[n - 1]!, time, id)) {
      this.times.push(time);
      this.ids.push(id);
    } else {
      const at = this.lowerBound(time, id);
      this.times.splice(at, 0, time);
      this.ids.splice(at, 0, id);
    }
    this.#compactIfStale();
  }

  #compactIfStale(): void {
    if (this.#stale <= this.rows.size + 64) return;
    const times: number[] = [];
    const ids: string[] = [];
    const seen = new Set<string>();
    for (let i = this.times.length - 1; i >= 0; i--) {
      const id = this.ids[i]!;
      if (!this.live(i) || seen.has(id)) continue;
      seen.add(id);
      times.push(this.times[i]!);
      ids.push(id);
    }
    this.times = times.reverse();
    this.ids = ids.reverse();
    this.#stale = 0;
  }
}

function bump<K>(counts: Map<K, number>, key: K, by: number): void {
  const n = (counts.get(key) ?? 0) + by;
  if (n === 0) counts.delete(key);
  else counts.set(key, n);
}

/**
 * One idempotency record as the store keeps it: a `task` or `pending` record is the task id
 * (a string the task map holds anyway), a `message` record its message packed as JSON.
 */
class HeldRecord {
  constructor(
    /** Mutable: `pending` becomes `task` in place (the common end of a send, no allocation). */
    public status: IdempotencyRecord['status'],
    /** The task id, or the message as JSON. */
    readonly value: string,
    readonly fingerprint: string | undefined,
    readonly createdAtMs: number | undefined,
    /** When the store took the key (epoch ms): the age bound counts from it. */
    readonly heldSinceMs: number,
  ) {}

  /** Approximate heap bytes: the record, its JSON (two bytes a character at most), its key. */
  bytes(messageId: string): number {
    return 96 + 2 * (this.value.length + messageId.length + (this.fingerprint?.length ?? 0));
  }

  toRecord(): IdempotencyRecord {
    const facts: { fingerprint?: string; createdAtMs?: number } = {};
    if (this.fingerprint !== undefined) facts.fingerprint = this.fingerprint;
    if (this.createdAtMs !== undefined) facts.createdAtMs = this.createdAtMs;
    if (this.status === 'message') {
      return { status: 'message', message: JSON.parse(this.value) as Message, ...facts };
    }
    return { status: this.status, taskId: this.value, ...facts };
  }
}

function holdRecord(record: IdempotencyRecord, heldSinceMs: number): HeldRecord {
  const value = record.status === 'message' ? JSON.stringify(record.message) : record.taskId;
  return new HeldRecord(record.status, value, record.fingerprint, record.createdAtMs, heldSinceMs);
}

/** Idempotency records of one caller, by messageId. */
type IdempotencyLeaf = Map<string, HeldRecord>;

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
  /** The latest saves (ring): each is packed when it leaves, unless saved over meanwhile. */
  readonly #youngTasks: (CallerTasks | undefined)[] = new Array(YOUNG_SAVES).fill(undefined);
  readonly #youngRecords: (StoredTask | undefined)[] = new Array(YOUNG_SAVES).fill(undefined);
  #youngNext = 0;
  /** Terminal tasks in the order they ended (from `#endedHead`), for retention. */
  #endedCallers: (CallerTasks | undefined)[] = [];
  #endedIds: (string | undefined)[] = [];
  #endedHead = 0;
  readonly #maxTasks: number;
  readonly #terminalMaxAgeMs: number;

  /** Idempotency records by tenant, then principal, then messageId. */
  readonly #idempotency = new Map<string, Map<string, IdempotencyLeaf>>();
  #idempotencyCount = 0;
  #idempotencyBytes = 0;
  readonly #maxIdempotency: number;
  readonly #maxIdempotencyBytes: number;
  readonly #idempotencyMaxAgeMs: number;
  /** Keys in the order they were recorded (from `#orderHead`), for forgetting the oldest. */
  #orderLeaves: (IdempotencyLeaf | undefined)[] = [];
  #orderIds: (string | undefined)[] = [];
  #orderHead = 0;

  constructor(options: MemoryTaskStoreOptions = {}) {
    this.#maxIdempotency = options.maxIdempotencyRecords ?? 100_000;
    this.#maxIdempotencyBytes = options.maxIdempotencyBytes ?? 32 * 1024 * 1024;
    this.#idempotencyMaxAgeMs = options.idempotencyMaxAgeMs ?? 24 * 60 * 60 * 1000;
    this.#maxTasks = options.maxTasks ?? Infinity;
    this.#terminalMaxAgeMs = options.terminalTaskMaxAgeMs ?? Infinity;
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

  save(record: StoredTask, expectedVersion: number): Promise<void> {
    let caller = this.#caller(record.tenant, record.owner, true)!;
    const id = record.task.id;
    const current = caller.rows.get(id);
    if ((current?.version ?? 0) !== expectedVersion || record.version !== expectedVersion + 1) {
      return Promise.reject(new TaskVersionConflictError(id));
    }
    if (!current) {
      this.#retain(Date.now());
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
    caller.put(id, record, current);
    if (isTerminalState(record.task.status.state) && !(current && isTerminalState(rowState(current)))) {
      this.#endedCallers.push(caller);
      this.#endedIds.push(id);
    }
    const slot = this.#youngNext;
    this.#youngNext = slot + 1 === YOUNG_SAVES ? 0 : slot + 1;
    const leaving = this.#youngRecords[slot];
    const leavingCaller = this.#youngTasks[slot];
    if (leaving && leavingCaller) {
      const leavingId = leaving.task.id;
      // Packed only when it is still the current row (not saved over or deleted since).
      if (leavingCaller.rows.get(leavingId) === leaving) leavingCaller.replace(leavingId, pack(leaving));
    }
    this.#youngRecords[slot] = record;
    this.#youngTasks[slot] = caller;
    return Promise.resolve();
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
    this.#taskCount--;
    if (caller.rows.size === 0) {
      const owners = this.#scopes.get(caller.tenant);
      owners?.delete(caller.owner);
      if (owners?.size === 0) this.#scopes.delete(caller.tenant);
    }
  }

  purgeTerminal(beforeMs: number): Promise<number> {
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

  #leaf(key: IdempotencyKey, create: boolean): IdempotencyLeaf | undefined {
    let principals = this.#idempotency.get(key.tenant);
    if (!principals) {
      if (!create) return undefined;
      principals = new Map();
      this.#idempotency.set(key.tenant, principals);
    }
    let leaf = principals.get(key.principal);
    if (!leaf && create) {
      leaf = new Map();
      principals.set(key.principal, leaf);
    }
    return leaf;
  }

  claimIdempotencyKey(
    key: IdempotencyKey,
    record: IdempotencyRecord,
  ): Promise<IdempotencyRecord | undefined> {
    const now = Date.now();
    this.#forgetOld(now);
    const leaf = this.#leaf(key, true)!;
    const existing = leaf.get(key.messageId);
    if (existing !== undefined) return Promise.resolve(existing.toRecord());
    this.#add(leaf, key.messageId, holdRecord(record, now));
    return Promise.resolve(undefined);
  }

  setIdempotencyRecord(key: IdempotencyKey, record: IdempotencyRecord | undefined): Promise<void> {
    const leaf = this.#leaf(key, record !== undefined);
    if (leaf) {
      const existing = leaf.get(key.messageId);
      if (
        existing &&
        record?.status === 'task' &&
        existing.status === 'pending' &&
        existing.value === record.taskId &&
        existing.fingerprint === record.fingerprint &&
        existing.createdAtMs === record.createdAtMs
      ) {
        existing.status = 'task';
      } else if (existing) {
        this.#idempotencyBytes -= existing.bytes(key.messageId);
        if (record === undefined) {
          leaf.delete(key.messageId);
          this.#idempotencyCount--;
        } else {
          const held = holdRecord(record, existing.heldSinceMs);
          leaf.set(key.messageId, held);
          this.#idempotencyBytes += held.bytes(key.messageId);
          this.#evict();
        }
      } else if (record !== undefined) {
        this.#add(leaf, key.messageId, holdRecord(record, Date.now()));
      }
    }
    return Promise.resolve();
  }

  /** Approximate heap bytes of the idempotency records; for tests and diagnostics. */
  get idempotencyBytes(): number {
    return this.#idempotencyBytes;
  }

  /** Number of idempotency records held; for tests and diagnostics. */
  get idempotencyCount(): number {
    return this.#idempotencyCount;
  }

  #add(leaf: IdempotencyLeaf, messageId: string, held: HeldRecord): void {
    leaf.set(messageId, held);
    this.#idempotencyCount++;
    this.#idempotencyBytes += held.bytes(messageId);
    this.#orderLeaves.push(leaf);
    this.#orderIds.push(messageId);
    this.#evict();
  }

  /** Forgets the oldest records while over the count or byte cap. */
  #evict(): void {
    while (
      (this.#idempotencyCount > this.#maxIdempotency || this.#idempotencyBytes > this.#maxIdempotencyBytes) &&
      this.#forgetHead()
    );
    this.#tidyOrder();
  }

  /** Forgets records older than the age bound (the order is the order keys were taken). */
  #forgetOld(now: number): void {
    const limit = now - this.#idempotencyMaxAgeMs;
    while (this.#orderHead < this.#orderIds.length) {
      const held = this.#orderLeaves[this.#orderHead]!.get(this.#orderIds[this.#orderHead]!);
      if (held && held.heldSinceMs >= limit) break;
      this.#forgetHead();
    }
    this.#tidyOrder();
  }

  /**
   * Drops the oldest order entry and its record. A key removed early (a failed send) leaves a
   * stale entry, skipped here. False when the order is empty.
   */
  #forgetHead(): boolean {
    if (this.#orderHead >= this.#orderIds.length) return false;
    const head = this.#orderHead++;
    const leaf = this.#orderLeaves[head]!;
    const id = this.#orderIds[head]!;
    this.#orderLeaves[head] = undefined;
    this.#orderIds[head] = undefined;
    const held = leaf.get(id);
    if (held) {
      leaf.delete(id);
      this.#idempotencyCount--;
      this.#idempotencyBytes -= held.bytes(id);
    }
    return true;
  }

  #tidyOrder(): void {
    const pending = this.#orderIds.length - this.#orderHead;
    if (pending > 2 * Math.min(this.#maxIdempotency, this.#idempotencyCount + 1024) + 1024)
      this.#rebuildOrder();
    else if (this.#orderHead > 1024 && this.#orderHead * 2 > this.#orderIds.length) {
      this.#orderLeaves = this.#orderLeaves.slice(this.#orderHead);
      this.#orderIds = this.#orderIds.slice(this.#orderHead);
      this.#orderHead = 0;
    }
  }

  /** Drops order entries of keys no longer held, and all but the newest entry of a key. */
  #rebuildOrder(): void {
    const seen = new Map<IdempotencyLeaf, Set<string>>();
    const leaves: IdempotencyLeaf[] = [];
    const messageIds: string[] = [];
    for (let i = this.#orderIds.length - 1; i >= this.#orderHead; i--) {
      const leaf = this.#orderLeaves[i]!;
      const id = this.#orderIds[i]!;
      if (!leaf.has(id)) continue;
      let held = seen.get(leaf);
      if (!held) {
        held = new Set();
        seen.set(leaf, held);
      }
      if (held.has(id)) continue;
      held.add(id);
      leaves.push(leaf);
      messageIds.push(id);
    }
    this.#orderLeaves = leaves.reverse();
    this.#orderIds = messageIds.reverse();
    this.#orderHead = 0;
  }

  /** Number of stored tasks (all scopes); for tests and diagnostics. */
  get size(): number {
    return this.#taskCount;
  }
}

/** A {@link PushConfigStore} in process memory. */
export class MemoryPushConfigStore implements PushConfigStore {
  /** Configs by scope + task id, then by config id. */
  readonly #byTask = new Map<string, Map<string, TaskPushNotificationConfig>>();

  #key(scope: TaskScope, taskId: string): string {
    return `${scope.tenant}\u0000${scope.owner}\u0000${taskId}`;
  }

  put(
    scope: TaskScope,
    config: TaskPushNotificationConfig & { id: string; taskId: string },
  ): Promise<TaskPushNotificationConfig> {
    const key = this.#key(scope, config.taskId);
    let configs = this.#byTask.get(key);
    if (!configs) {
      configs = new Map();
      this.#byTask.set(key, configs);
    }
    const stored = structuredClone(config);
    configs.set(config.id, stored);
    return Promise.resolve(structuredClone(stored));
  }

  get(scope: TaskScope, taskId: string, id: string): Promise<TaskPushNotificationConfig | undefined> {
    const config = this.#byTask.get(this.#key(scope, taskId))?.get(id);
    return Promise.resolve(config ? structuredClone(config) : undefined);
  }

  list(scope: TaskScope, taskId: string, limit: number, afterId?: string): Promise<PushConfigPage> {
    const configs = this.#byTask.get(this.#key(scope, taskId));
    if (!configs) return Promise.resolve({ configs: [], nextAfterId: undefined });
    const ids = [...configs.keys()].sort();
    const from = afterId === undefined ? 0 : ids.findIndex((id) => id > afterId);
    const selected = from < 0 ? [] : ids.slice(from, from + limit);
    const more = from >= 0 && from + limit < ids.length;
    return Promise.resolve({
      configs: selected.map((id) => structuredClone(configs.get(id)!)),
      nextAfterId: more ? selected[selected.length - 1] : undefined,
    });
  }

  delete(scope: TaskScope, taskId: string, id: string): Promise<boolean> {
    return Promise.resolve(this.#byTask.get(this.#key(scope, taskId))?.delete(id) ?? false);
  }

  deleteAll(scope: TaskScope, taskId: string): Promise<void> {
    this.#byTask.delete(this.#key(scope, taskId));
    return Promise.resolve();
  }
}
