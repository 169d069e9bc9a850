/**
 * Fault suite, PostgreSQL, one replica of two killed for good: a second replica serves the
 * same schema from the start, and the replica the scenario talks to is killed (SIGKILL) at each
 * of its write points (each of the first hits of each, from a trace of the scenario), and never
 * restarted. The survivor alone must fail or resume the dead one's tasks, deliver its push
 * notifications, end its waits at their bound, and answer its messageIds with their original
 * outcomes: the invariants of issue 26 are checked on it (cases.ts, invariants.ts).
 */
import { test } from 'node:test';
import { startWebhook } from '../server/push/support.js';
import { casesOf, runCase } from './cases.js';
import { tracePoints, WAIT_BOUND_MS } from './harness.js';

test(
  'PostgreSQL: a replica killed for good at each write point breaks no invariant on the other',
  { timeout: 170_000, concurrency: 2 },
  async (t) => {
    const hook = await startWebhook();
    t.after(() => hook.close());
    const cases = casesOf(await tracePoints('postgres', hook.url), 'kill');
    await Promise.all(
      cases.map((fault) =>
        t.test(`replica killed at ${fault.point} #${fault.hit}`, () =>
          runCase('postgres', hook, { fault, replicas: true, interruptedTimeoutMs: WAIT_BOUND_MS }),
        ),
      ),
    );
  },
);
