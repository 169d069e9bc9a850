/**
 * The memory store's event log (A2A 1.1 draft, GEN-5): a bounded ring of each task's latest
 * events, dropped with the task. Written in the same synchronous step as the task row, so a
 * reader never sees one without the other.
 */
import type { EventLogWrite, LoggedTaskEvent } from '../task-store.js';

export class MemoryEventLog {
  /** Each task's entries, oldest first, by `tenant \0 owner \0 id`. */
  readonly #entries = new Map<string, LoggedTaskEvent[]>();

  append(key: string, write: EventLogWrite): void {
    let entries = this.#entries.get(key);
    if (!entries) this.#entries.set(key, (entries = []));
    for (const event of write.events) entries.push(event);
    // Trimmed in chunks: a splice per event would move the whole ring each time.
    if (entries.length > write.keep + Math.max(16, write.keep >> 3))
      entries.splice(0, entries.length - write.keep);
  }

  /** Entries above `after`, oldest first, at most `limit`. */
  read(key: string, after: number, limit: number): LoggedTaskEvent[] {
    const entries = this.#entries.get(key);
    if (!entries || entries.length === 0) return [];
    // Generations follow each other: the index of `after + 1` is known without a search.
    const first = entries[0]!.generation;
    const start = Math.max(0, after + 1 - first);
    return entries.slice(start, start + limit);
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }
}
