/**
 * What the SQLite and PostgreSQL stores share: the ListTasks query (filters and keyset
 * position, newest first by status time then id, exactly the memory store's order), the
 * state lists their partial indexes use, row decoding and the schema-version errors.
 */
import { INTERRUPTED_STATES, TERMINAL_STATES, type TaskState } from '../../../model/enums.js';
import type { Task } from '../../../model/schema.js';
import type { StoredTask, TaskQuery } from '../task-store.js';

/** `'A', 'B'`: a constant list of states for SQL text (the names are fixed identifiers, never input). */
function stateList(states: ReadonlySet<TaskState>): string {
  return [...states].map((state) => `'${state}'`).join(', ');
}

/** The terminal states as an SQL list, for retention and its partial index. */
export const TERMINAL_STATE_SQL = stateList(TERMINAL_STATES);
/** The interrupted states as an SQL list, for listInterrupted and its partial index. */
export const INTERRUPTED_STATE_SQL = stateList(INTERRUPTED_STATES);

/** Makes the n-th placeholder (1-based): `?` for SQLite, `$n` for PostgreSQL. */
export type Placeholder = (n: number) => string;

/** The WHERE clause of a ListTasks query and its parameters. */
export interface ListSql {
  /** Filters only (for totalSize). */
  readonly filterWhere: string;
  readonly filterParams: unknown[];
  /** The statement giving totalSize (parameters: filterParams), one row with column `n`. */
  readonly countSql: string;
  /** Filters plus the keyset position (for the page). */
  readonly pageWhere: string;
  readonly pageParams: unknown[];
}

/**
 * Builds the WHERE clauses of a ListTasks query. The position uses the row-value comparison
 * `(status_time_ms, id) < (?, ?)`, which both engines answer from the
 * (tenant, owner, status_time_ms, id) index.
 */
export function listSql(query: TaskQuery, placeholder: Placeholder): ListSql {
  const params: unknown[] = [query.tenant, query.owner];
  const clauses = [`tenant = ${placeholder(1)}`, `owner = ${placeholder(2)}`];
  if (query.contextId !== undefined) {
    params.push(query.contextId);
    clauses.push(`context_id = ${placeholder(params.length)}`);
  }
  if (query.status !== undefined) {
    params.push(query.status);
    clauses.push(`state = ${placeholder(params.length)}`);
  }
  if (query.statusTimeAtOrAfterMs !== undefined) {
    params.push(query.statusTimeAtOrAfterMs);
    clauses.push(`status_time_ms >= ${placeholder(params.length)}`);
  }
  const filterWhere = clauses.join(' AND ');
  const filterParams = params.slice();
  if (query.after) {
    params.push(query.after.statusTimeMs, query.after.id);
    clauses.push(`(status_time_ms, id) < (${placeholder(params.length - 1)}, ${placeholder(params.length)})`);
  }
  // Without a context or time filter the count comes from a2a_task_counts (kept by triggers).
  const countsOnly = query.contextId === undefined && query.statusTimeAtOrAfterMs === undefined;
  const countSql = countsOnly
    ? `SELECT coalesce(sum(n), 0) AS n FROM a2a_task_counts WHERE ${filterWhere}`
    : `SELECT count(*) AS n FROM a2a_tasks WHERE ${filterWhere}`;
  return { filterWhere, filterParams, countSql, pageWhere: clauses.join(' AND '), pageParams: params };
}

/** A stored task from its row. */
export function storedTask(
  tenant: string,
  owner: string,
  version: number,
  statusTimeMs: number,
  doc: string,
): StoredTask {
  return { tenant, owner, task: JSON.parse(doc) as Task, version, statusTimeMs };
}

/** The database was written by a newer a2a-kit: this code must not touch it. */
export class SchemaTooNewError extends Error {
  constructor(where: string, found: number, known: number) {
    super(
      `${where} has schema version ${found}, newer than the ${known} this version of a2a-kit knows; ` +
        'upgrade a2a-kit (or point it at another database); the data was left untouched',
    );
    this.name = 'SchemaTooNewError';
  }
}

/** The database cannot be opened or used (corrupt, locked, unreachable): the reason, for the operator. */
export class StoreOpenError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreOpenError';
  }
}

/** Name of the page-token secret in {@link TaskStore.getOrCreateSecret}. */
export const PAGE_TOKEN_SECRET_NAME = 'list-page-token';
