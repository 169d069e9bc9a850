/**
 * In-memory stores: fast, process-local, lost on restart.
 *
 * A task saved recently stays the object it was saved as: the TaskManager never mutates a
 * saved task (each change builds a new object), so the reads and writes of a running task
 * copy nothing. After {@link YOUNG_SAVES} later saves it is packed into one JSON string, like
 * a database row: V8 keeps such a string at one byte per character, several times denser
 * than the object graph. Reading a packed task parses it into a fresh object.
 */
import { randomBytes } from 'node:crypto';
import { formatTimestamp } from '../../model/timestamp.js';
import { isInterruptedState, isTerminalState, type TaskState } from '../../model/enums.js';
import type { TaskPushNotificationConfig } from '../../model/schema.js';
import type { PushConfigPage, PushConfigStore } from './push-config-store.js';
import {
  TaskVersionConflictError,
  type IdempotencyKey,
  type IdempotencyRecord,
  type InterruptedTaskRef,
  type ListPosition,
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

function toStored(row: TaskRow, id: string, scope: TaskScope): StoredTask {
  return row instanceof PackedTask ? unpack(row, id, scope) : row;
}

/** Orders newest first: larger status time first, then larger id first. */
function newestFirst(aTime: number, aId: string, bTime: number, bId: string): number {
  if (aTime !== bTime) return bTime - aTime;
  return aId < bId ? 1 : aId > bId ? -1 : 0;
}

/** True when the task (`time`, `id`) comes strictly after `position` in newest-first order. */
function isAfter(time: number, id: string, position: ListPosition): boolean {
  return time < position.statusTimeMs || (time === position.statusTimeMs && id < position.id);
}

/**
 * What the store keeps for an idempotency key: the task id for a `task` record (a string the
 * task map already holds, so it costs nothing more), else the record itself.
 */
type IdempotencyValue = string | IdempotencyRecord;

function idempotencyValue(record: IdempotencyRecord): IdempotencyValue {
  return record.status === 'task' ? record.taskId : record;
}

function idempotencyRecord(value: IdempotencyValue): IdempotencyRecord {
  return typeof value === 'string' ? { status: 'task', taskId: value } : value;
}

/** Idempotency values of one caller, by messageId. */
type IdempotencyLeaf = Map<string, IdempotencyValue>;

/** Options of {@link MemoryTaskStore}. */
export interface MemoryTaskStoreOptions {
  /**
   * How many idempotency records to keep; the oldest are forgotten first.
   * @default 100000
   */
  maxIdempotencyRecords?: number;
}

/** A {@link TaskStore} in process memory. */
export class MemoryTaskStore implements TaskStore {
  /** Tasks by tenant, then owner, then id. */
  readonly #scopes = new Map<string, Map<string, Map<string, TaskRow>>>();
  /** The latest saves (ring): each is packed when it leaves, unless saved over meanwhile. */
  readonly #youngTasks: (Map<string, TaskRow> | undefined)[] = new Array(YOUNG_SAVES).fill(undefined);
  readonly #youngRecords: (StoredTask | undefined)[] = new Array(YOUNG_SAVES).fill(undefined);
  #youngNext = 0;

  /** Idempotency values by tenant, then principal, then messageId. */
  readonly #idempotency = new Map<string, Map<string, IdempotencyLeaf>>();
  #idempotencyCount = 0;
  readonly #maxIdempotency: number;
  /** Keys in the order they were recorded (from `#orderHead`), for forgetting the oldest. */
  #orderLeaves: (IdempotencyLeaf | undefined)[] = [];
  #orderIds: (string | undefined)[] = [];
  #orderHead = 0;

  constructor(options: MemoryTaskStoreOptions = {}) {
    this.#maxIdempotency = options.maxIdempotencyRecords ?? 100_000;
  }

  #tasks(tenant: string, owner: string, create: boolean): Map<string, TaskRow> | undefined {
    let owners = this.#scopes.get(tenant);
    if (!owners) {
      if (!create) return undefined;
      owners = new Map();
      this.#scopes.set(tenant, owners);
    }
    let tasks = owners.get(owner);
    if (!tasks && create) {
      tasks = new Map();
      owners.set(owner, tasks);
    }
    return tasks;
  }

  get(scope: TaskScope, id: string): Promise<StoredTask | undefined> {
    const row = this.#tasks(scope.tenant, scope.owner, false)?.get(id);
    return Promise.resolve(row === undefined ? undefined : toStored(row, id, scope));
  }

  save(record: StoredTask, expectedVersion: number): Promise<void> {
    const tasks = this.#tasks(record.tenant, record.owner, true)!;
    const id = record.task.id;
    const current = tasks.get(id);
    if ((current?.version ?? 0) !== expectedVersion || record.version !== expectedVersion + 1) {
      return Promise.reject(new TaskVersionConflictError(id));
    }
    tasks.set(id, record);
    const slot = this.#youngNext;
    this.#youngNext = slot + 1 === YOUNG_SAVES ? 0 : slot + 1;
    const leaving = this.#youngRecords[slot];
    const leavingTasks = this.#youngTasks[slot];
    if (leaving && leavingTasks) {
      const leavingId = leaving.task.id;
      // Packed only when it is still the current row (not saved over since).
      if (leavingTasks.get(leavingId) === leaving) leavingTasks.set(leavingId, pack(leaving));
    }
    this.#youngRecords[slot] = record;
    this.#youngTasks[slot] = tasks;
    return Promise.resolve();
  }

  list(query: TaskQuery): Promise<TaskPage> {
    const tasks = this.#tasks(query.tenant, query.owner, false);
    if (!tasks) return Promise.resolve({ tasks: [], totalSize: 0, hasMore: false });
    // One pass: count the matches and keep the `limit` newest after the position in a
    // small sorted buffer, so a page costs O(n) rather than a full sort.
    const { after, limit } = query;
    const page: { id: string; time: number; row: TaskRow }[] = [];
    let totalSize = 0;
    let afterPosition = 0;
    for (const [id, row] of tasks) {
      if (query.contextId !== undefined && rowContextId(row) !== query.contextId) continue;
      if (query.status !== undefined && rowState(row) !== query.status) continue;
      const time = row.statusTimeMs;
      if (query.statusTimeAtOrAfterMs !== undefined && time < query.statusTimeAtOrAfterMs) continue;
      totalSize++;
      if (after && !isAfter(time, id, after)) continue;
      afterPosition++;
      if (page.length === limit) {
        const last = page[limit - 1]!;
        if (newestFirst(time, id, last.time, last.id) >= 0) continue;
      }
      let i = page.length;
      while (i > 0 && newestFirst(time, id, page[i - 1]!.time, page[i - 1]!.id) < 0) i--;
      page.splice(i, 0, { id, time, row });
      if (page.length > limit) page.pop();
    }
    return Promise.resolve({
      tasks: page.map((entry) => toStored(entry.row, entry.id, query)),
      totalSize,
      hasMore: afterPosition > limit,
    });
  }

  listInterrupted(): Promise<InterruptedTaskRef[]> {
    const found: InterruptedTaskRef[] = [];
    for (const [tenant, owners] of this.#scopes) {
      for (const [owner, tasks] of owners) {
        for (const [taskId, row] of tasks) {
          if (isInterruptedState(rowState(row))) {
            found.push({ tenant, owner, taskId, statusTimeMs: row.statusTimeMs });
          }
        }
      }
    }
    found.sort((a, b) => a.statusTimeMs - b.statusTimeMs);
    return Promise.resolve(found);
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

  purgeTerminalBefore(cutoffMs: number): Promise<number> {
    let removed = 0;
    for (const owners of this.#scopes.values()) {
      for (const tasks of owners.values()) {
        for (const [id, row] of tasks) {
          if (row.statusTimeMs < cutoffMs && isTerminalState(rowState(row)) && tasks.delete(id)) removed++;
        }
      }
    }
    return Promise.resolve(removed);
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
    const leaf = this.#leaf(key, true)!;
    const existing = leaf.get(key.messageId);
    if (existing !== undefined) return Promise.resolve(idempotencyRecord(existing));
    this.#add(leaf, key.messageId, idempotencyValue(record));
    return Promise.resolve(undefined);
  }

  setIdempotencyRecord(key: IdempotencyKey, record: IdempotencyRecord | undefined): Promise<void> {
    const leaf = this.#leaf(key, record !== undefined);
    if (leaf) {
      if (record === undefined) {
        if (leaf.delete(key.messageId)) this.#idempotencyCount--;
      } else if (leaf.has(key.messageId)) {
        leaf.set(key.messageId, idempotencyValue(record));
      } else {
        this.#add(leaf, key.messageId, idempotencyValue(record));
      }
    }
    return Promise.resolve();
  }

  #add(leaf: IdempotencyLeaf, messageId: string, value: IdempotencyValue): void {
    leaf.set(messageId, value);
    this.#idempotencyCount++;
    this.#orderLeaves.push(leaf);
    this.#orderIds.push(messageId);
    // Forget the oldest. A key removed early (a failed send) leaves a stale entry here, which
    // is skipped when reached; when such entries pile up the order is rebuilt without them.
    while (this.#idempotencyCount > this.#maxIdempotency && this.#orderHead < this.#orderIds.length) {
      const head = this.#orderHead++;
      const oldLeaf = this.#orderLeaves[head]!;
      const oldId = this.#orderIds[head]!;
      this.#orderLeaves[head] = undefined;
      this.#orderIds[head] = undefined;
      if (oldLeaf.delete(oldId)) this.#idempotencyCount--;
    }
    const pending = this.#orderIds.length - this.#orderHead;
    if (pending > 2 * this.#maxIdempotency + 1024) this.#rebuildOrder();
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
    let n = 0;
    for (const owners of this.#scopes.values()) for (const tasks of owners.values()) n += tasks.size;
    return n;
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
