/**
 * Packing a task into one JSON string, like a database row: V8 keeps such a string at one
 * byte per character, several times denser than the object graph. Reading a packed task
 * parses it into a fresh object.
 */
import { formatTimestamp } from '../../../model/timestamp.js';
import type { TaskState } from '../../../model/enums.js';
import { snapshotRecord } from '../../task-snapshot.js';
import type { StoredTask, TaskScope } from '../task-store.js';

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
export class PackedTask {
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

export type TaskRow = StoredTask | PackedTask;

export function rowState(row: TaskRow): TaskState {
  return row instanceof PackedTask ? row.state : row.task.status.state;
}

export function rowContextId(row: TaskRow): string | undefined {
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

let lastIsoMs = NaN;
let lastIsoText = '';

/**
 * `ms` as ISO text, the last one remembered: terminal tasks are packed as they are saved, and
 * many share a millisecond. (Not formatTimestamp: its one-entry cache holds the current
 * millisecond for new statuses, and an older task packed later would evict it.)
 */
function isoTime(ms: number): string {
  if (ms !== lastIsoMs) {
    lastIsoText = new Date(ms).toISOString();
    lastIsoMs = ms;
  }
  return lastIsoText;
}

/** The packed form of `record`, or the record itself when its task is not JSON data or is large. */
export function pack(record: StoredTask): TaskRow {
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
    timestamp === isoTime(record.statusTimeMs);
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
export function toStored(row: TaskRow, id: string, scope: TaskScope): StoredTask {
  if (row instanceof PackedTask) return unpack(row, id, scope);
  return snapshotRecord(row);
}
