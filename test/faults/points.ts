/**
 * What the fault suite knows of the write points (src/core/stores/fault-points.ts) beyond
 * their names: which are hit on a timer, and which no run of the scenario passes on a store,
 * and why. A trace of the scenario must pass every other point (see {@link checkTrace}), so a
 * new write path the scenario does not reach fails the suite until the scenario reaches it or
 * this file says why it cannot.
 */
import assert from 'node:assert/strict';
import { WRITE_POINTS, type WritePoint } from '../../src/core/stores/fault-points.js';

/** The two stores the suite runs on. */
export type StoreKind = 'sqlite' | 'postgres';

/**
 * How often the PostgreSQL store folds its task counts (`task.counts`): COMPACT_EVERY_MS of
 * src/core/stores/postgres/task-store.ts. A trace, and a case killed there, last this long.
 */
export const COUNTS_EVERY_MS = 2_000;

/**
 * Points hit on a timer rather than by a step of the scenario (a heartbeat, the delivery
 * worker's polls, the count folding): their first two hits stand for the rest, and a trace
 * may miss one (a heartbeat that found no lease to renew).
 */
export const TIMED_POINTS: ReadonlySet<WritePoint> = new Set([
  'lease.renew',
  'push.outbox.claim',
  'push.outbox.settle',
  'task.counts',
]);

/** Passed only by a restart after a fault: restart-faults.test.ts kills or fails it there. */
const AFTER_A_FAULT = 'passed only by a restart after a fault (restart-faults.test.ts faults it there)';
/**
 * push.outbox.renew: a delivery worker that is closing gives back what it claimed meanwhile
 * (renewed to a lease of 0), and `a2a push-deliveries replay` re-queues a delivery; neither
 * happens at a moment a run of the server can choose. A kill there leaves the claim to run out
 * and be sent again, as a kill at push.outbox.claim or push.outbox.settle does (both cases).
 */
const RENEW =
  'only a closing worker giving back its claims, and the replay CLI, renew: no run can time either; a kill there is a kill of a claim holder, as at push.outbox.claim/settle';

/** The points a run of the scenario never passes on each store, with the reason. */
export const UNTRACED: Readonly<Record<StoreKind, Partial<Readonly<Record<WritePoint, string>>>>> = {
  sqlite: {
    'idempotency.retake': AFTER_A_FAULT,
    'lease.takeover': AFTER_A_FAULT,
    'task.create':
      "a server's SQLite store stages every new task (task.stage); saving a new task is only the lower-level SqliteTaskStore.save's",
    'task.counts': 'PostgreSQL only: SQLite writes its counts inside each batch',
    'push.outbox.renew': RENEW,
  },
  postgres: {
    'idempotency.retake': AFTER_A_FAULT,
    'lease.takeover': AFTER_A_FAULT,
    'task.create':
      "a server's PostgreSQL store stages every new task (task.stage); saving a new task is only the lower-level PostgresTaskStore.save's",
    'task.update':
      'only a change that streams nothing (a message to a task still running) is task.update; the scenario sends none',
    'push.outbox.renew': RENEW,
  },
};

/**
 * A trace of one run of the scenario passes every point but those {@link UNTRACED} says it
 * cannot (a point on a timer may be missed by one run), and none of those.
 */
export function checkTrace(kind: StoreKind, counts: ReadonlyMap<WritePoint, number>): void {
  const untraced = UNTRACED[kind];
  const missing = WRITE_POINTS.filter(
    (point) => !counts.has(point) && untraced[point] === undefined && !TIMED_POINTS.has(point),
  );
  assert.deepEqual(
    missing,
    [],
    `${kind}: write points the scenario never passes (reach them, or say why in points.ts)`,
  );
  const passed = WRITE_POINTS.filter((point) => counts.has(point) && untraced[point] !== undefined);
  assert.deepEqual(passed, [], `${kind}: points listed as never passed that the scenario passes`);
}
