/**
 * Fault suite, SQLite, I/O errors: one write of the scenario's server fails with SQLITE_IOERR at each of its write points
 * (each of the first hits of each, from a trace of the scenario), kept running until the scenario ends, stopped gracefully (it must exit 0, with no unhandled error), restarted on the same file, and the
 * invariants of issue 26 are checked (see cases.ts and invariants.ts).
 */
import { test } from 'node:test';
import { startWebhook } from '../server/push/support.js';
import { casesOf, runCase } from './cases.js';
import { tracePoints } from './harness.js';

test(
  'SQLite: an I/O error at each write point of the scenario breaks no invariant',
  { timeout: 170_000, concurrency: 2 },
  async (t) => {
    const hook = await startWebhook();
    t.after(() => hook.close());
    const cases = casesOf(await tracePoints('sqlite', hook.url), 'eio');
    await Promise.all(
      cases.map((fault) =>
        t.test(`EIO at ${fault.point} #${fault.hit}`, () => runCase('sqlite', hook, { fault })),
      ),
    );
  },
);
