/**
 * The record an event published by a TaskManager was saved with, carried on the event itself:
 * a listener in this process (a waiting SendMessage) needs no store read to answer.
 */
import type { TaskEvent } from './event-bus/event-bus.js';
import type { StoredTask } from './stores/task-store.js';

/**
 * The record each event published by a TaskManager was saved with (see {@link savedRecordOf}),
 * under a symbol: JSON leaves it out, so a bus that serializes events never carries it, and
 * setting it costs a property where a WeakMap entry cost an ephemeron per event (about two
 * microseconds per task with its garbage collection).
 */
const SAVED_RECORD = Symbol('saved record');

/** A published event with the record it was saved with. */
interface SavedTaskEvent extends TaskEvent {
  [SAVED_RECORD]?: StoredTask;
}

/** `event` (built by this manager) carrying its record. */
export function withRecord(event: SavedTaskEvent, record: StoredTask): TaskEvent {
  event[SAVED_RECORD] = record;
  return event;
}

/**
 * The record `event` was saved with, when a TaskManager of this process published it and the
 * bus handed its listener the very object (the in-process bus does), else undefined. The
 * record is the manager's own: the task's later changes extend its arrays in place, so a
 * reader keeping it past the listener call takes a snapshot.
 */
export function savedRecordOf(event: TaskEvent): StoredTask | undefined {
  return (event as SavedTaskEvent)[SAVED_RECORD];
}
