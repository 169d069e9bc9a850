/** The tasks of one caller and their ListTasks index, for the memory task store. */
import type { TaskState } from '../../../model/enums.js';
import { rowContextId, rowState, type TaskRow } from './packing.js';

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
export class CallerTasks {
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
        this.#bumpState(before, -1);
        this.#bumpState(state, 1);
      }
      if (previous.statusTimeMs === row.statusTimeMs) return;
      this.#stale++;
    } else {
      this.#bumpState(state, 1);
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
    this.#bumpState(rowState(row), -1);
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

  /**
   * A state's count: kept at zero rather than deleted (there are only a few states), so the
   * small map is not shrunk and grown again each time a state's last task moves on.
   */
  #bumpState(state: TaskState, by: number): void {
    this.stateCounts.set(state, (this.stateCounts.get(state) ?? 0) + by);
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
