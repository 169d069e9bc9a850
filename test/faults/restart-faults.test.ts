/**
 * Fault suite, the points only a restart passes: after a kill that leaves an abandoned claim
 * and a dead worker's leases, the restarted server is itself killed (or fails one write) where
 * it retakes the claim or takes the lease over; the invariants hold after a third start.
 */
import { test } from 'node:test';
import { runCase, type FaultCase } from './cases.js';
import type { StoreKind } from './harness.js';
import { startWebhook } from '../server/push/support.js';

/** A first fault, and the restart's point it leaves work for. */
const PAIRS: readonly { first: FaultCase; then: FaultCase['point'] }[] = [
  // The reply's claim and lease are committed (one batch), its record never: the retry
  // retakes an abandoned claim.
  { first: { point: 'idempotency.record', hit: 1, action: 'kill' }, then: 'idempotency.retake' },
  // The work task is created WORKING and its lease left behind: recovery takes it over.
  { first: { point: 'task.stage', hit: 2, action: 'kill' }, then: 'lease.takeover' },
];

for (const kind of ['sqlite', 'postgres'] as StoreKind[]) {
  test(
    `${kind}: a fault in the restart's retake or takeover breaks no invariant`,
    { timeout: 120_000, concurrency: 2 },
    async (t) => {
      const hook = await startWebhook();
      t.after(() => hook.close());
      const cases = PAIRS.flatMap(({ first, then }) =>
        (['kill', 'eio'] as const).map((action) => ({ first, then: { point: then, hit: 1, action } })),
      );
      await Promise.all(
        cases.map(({ first, then }) =>
          t.test(`${first.point} then ${then.point} (${then.action})`, () =>
            runCase(kind, hook, { fault: first, restartFault: then }),
          ),
        ),
      );
    },
  );
}
