/**
 * What the SQLite and PostgreSQL push outboxes share: their options, the row they read back,
 * and how a row becomes a {@link PushDelivery} or a {@link PushAttempt}.
 */
import type { PushAttempt, PushDelivery, PushDeliveryQuery, PushDeliveryState } from '../../push/outbox.js';

/** Options of the SQL push outboxes (retention of finished deliveries, attempts kept). */
export interface SqlPushOutboxOptions {
  /** Most delivered or dead deliveries kept (newest settled kept). @default 10000 */
  maxFinished?: number;
  /** Delivered or dead deliveries older than this (since settled) are removed. @default 604800000 (7 days) */
  finishedMaxAgeMs?: number;
  /** Most attempts recorded per delivery (the oldest dropped first). @default 50 */
  maxAttemptsRecorded?: number;
  /** How often finished deliveries are pruned. @default 60000 */
  pruneEveryMs?: number;
}

/** The options with their defaults. */
export interface SqlPushOutboxSettings {
  readonly maxFinished: number;
  readonly finishedMaxAgeMs: number;
  readonly maxAttemptsRecorded: number;
  readonly pruneEveryMs: number;
}

export function outboxSettings(options: SqlPushOutboxOptions): SqlPushOutboxSettings {
  const count = (value: number | undefined, fallback: number, name: string, min: number): number => {
    const n = value ?? fallback;
    if (typeof n !== 'number' || !Number.isFinite(n) || n < min) {
      throw new RangeError(`push outbox ${name} must be a number >= ${min}, got ${String(value)}`);
    }
    return Math.floor(n);
  };
  return {
    maxFinished: count(options.maxFinished, 10_000, 'maxFinished', 0),
    finishedMaxAgeMs: count(options.finishedMaxAgeMs, 7 * 86_400_000, 'finishedMaxAgeMs', 0),
    maxAttemptsRecorded: count(options.maxAttemptsRecorded, 50, 'maxAttemptsRecorded', 1),
    pruneEveryMs: count(options.pruneEveryMs, 60_000, 'pruneEveryMs', 1),
  };
}

/** A change's notification as a SQL outbox enqueues it: the v1.0 body and the generation it made (GEN-6). */
export interface QueuedNotification {
  readonly payload: string;
  readonly generation: number;
}

/** Most configs of one task that get a notification (as the memory outbox). */
export const MAX_CONFIGS_PER_TASK = 1000;

/** Finished rows removed per pruning statement (keeps each transaction short). */
export const PRUNE_CHUNK = 1000;

/** Columns read back for a delivery, in the order {@link deliveryOf} expects. */
export const DELIVERY_COLUMNS =
  'id, tenant, owner, task_id, config_id, seq, payload, generation, state, attempts, created_ms, next_attempt_ms, last_error';

/** A delivery row (bigint columns arrive as text from `pg`). */
export interface DeliveryRow {
  id: string;
  tenant: string;
  owner: string;
  task_id: string;
  config_id: string;
  seq: number | string;
  payload: string;
  /** The task version the change made (GEN-6); NULL on rows enqueued before it was recorded. */
  generation: number | string | null;
  state: string;
  attempts: number;
  created_ms: number | string;
  next_attempt_ms: number | string;
  last_error: string | null;
}

/** An attempt row. */
export interface AttemptRow {
  at_ms: number | string;
  duration_ms: number;
  ok: number | boolean;
  status: number | null;
  error: string | null;
}

const num = (value: number | string): number => (typeof value === 'number' ? value : Number(value));

export function deliveryOf(row: DeliveryRow): PushDelivery {
  return {
    id: row.id,
    tenant: row.tenant,
    owner: row.owner,
    taskId: row.task_id,
    configId: row.config_id,
    seq: num(row.seq),
    payload: row.payload,
    ...(row.generation !== null ? { generation: num(row.generation) } : {}),
    state: row.state as PushDeliveryState,
    attempts: row.attempts,
    createdAtMs: num(row.created_ms),
    nextAttemptAtMs: num(row.next_attempt_ms),
    ...(row.last_error !== null ? { lastError: row.last_error } : {}),
  };
}

export function attemptOf(row: AttemptRow): PushAttempt {
  return {
    atMs: num(row.at_ms),
    durationMs: row.duration_ms,
    ok: row.ok === true || row.ok === 1,
    ...(row.status !== null ? { status: row.status } : {}),
    ...(row.error !== null ? { error: row.error } : {}),
  };
}

/** The WHERE clause and parameters of {@link PushDeliveryQuery}; `placeholder(n)` names parameter n (1-based). */
export function listWhere(
  query: PushDeliveryQuery,
  placeholder: (n: number) => string,
): { where: string; params: unknown[]; limit: number } {
  const terms: string[] = [];
  const params: unknown[] = [];
  const add = (column: string, value: unknown): void => {
    params.push(value);
    terms.push(`${column} = ${placeholder(params.length)}`);
  };
  if (query.tenant !== undefined) add('tenant', query.tenant);
  if (query.taskId !== undefined) add('task_id', query.taskId);
  if (query.state !== undefined) add('state', query.state);
  const limit = Math.min(Math.max(1, Math.floor(query.limit) || 1), 1000);
  return { where: terms.length > 0 ? terms.join(' AND ') : 'TRUE', params, limit };
}
