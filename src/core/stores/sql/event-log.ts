/**
 * The event log rows shared by the SQLite and PostgreSQL stores (A2A 1.1 draft, GEN-5): one row
 * per task version (tenant, owner, task id, generation, state, the streamed event as JSON or
 * NULL for a change that streams nothing).
 */
import type { TaskState } from '../../../model/enums.js';
import type { StreamResponse } from '../../../model/schema.js';
import type { EventLogWrite, LoggedTaskEvent } from '../task-store.js';

/** A row of `a2a_task_events` as read. */
export interface EventRow {
  generation: number | string;
  state: string;
  doc: string | null;
}

/** The entries of `log` as one JSON array (PostgreSQL reads it with jsonb_to_recordset). */
export function eventLogJson(log: EventLogWrite): string {
  return JSON.stringify(
    log.events.map((e) => ({
      generation: e.generation,
      state: e.state,
      doc: e.response ? JSON.stringify(e.response) : null,
    })),
  );
}

/** How many versions go by between two trims of a task's log (a trim per write costs a scan). */
export const TRIM_EVERY = 16;

/**
 * The generation at or below which a task's older entries are deleted by the write of
 * `version`, or -1 for none: every {@link TRIM_EVERY} versions, so a task keeps at most
 * `keep + TRIM_EVERY` entries.
 */
export function trimBelow(version: number, keep: number): number {
  return version > keep && version % TRIM_EVERY === 0 ? version - keep : -1;
}

/** A row back as a {@link LoggedTaskEvent}. */
export function loggedEvent(row: EventRow): LoggedTaskEvent {
  const generation = Number(row.generation);
  const state = row.state as TaskState;
  return row.doc === null
    ? { generation, state }
    : { generation, state, response: JSON.parse(row.doc) as StreamResponse };
}
