/**
 * Fault suite, SQLite, kill -9: the scenario's server is killed at each of its write points
 * (each of the first hits of each, from a trace of the scenario), restarted on the same file, and the
 * invariants of issue 26 are checked (see cases.ts and invariants.ts).
 */
import { test } from 'node:test';
import { startWebhook } from '../server/push/support.js';
import { casesOf, runCase } from './cases.js';
import { tracePoints } from './harness.js';

test(
  'SQLite: kill -9 at each write point of the scenario breaks no invariant',
  { timeout: 170_000, concurrency: 2 },
  async (t) => {
    const hook = await startWebhook();
    t.after(() => hook.close());
    const cases = casesOf(await tracePoints('sqlite', hook.url), 'kill');
    await Promise.all(
      cases.map((fault) =>
        t.test(`kill at ${fault.point} #${fault.hit}`, () => runCase('sqlite', hook, { fault })),
      ),
    );
  },
);
