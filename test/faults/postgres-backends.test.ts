/**
 * Fault suite, PostgreSQL: the server's backends are killed (`pg_terminate_backend`) again and
 * again while the scenario runs, its pool and its LISTEN connection included; the invariants of
 * issue 26 hold after a restart on the same schema (see cases.ts and invariants.ts).
 */
import { test } from 'node:test';
import { startWebhook } from '../server/push/support.js';
import { runCase } from './cases.js';
import { killBackends } from './disturbances.js';

test(
  'PostgreSQL: backends killed during the scenario break no invariant',
  { timeout: 120_000 },
  async (t) => {
    const hook = await startWebhook();
    t.after(() => hook.close());
    for (let round = 0; round < 3; round++) {
      await t.test(`round ${round + 1}`, () =>
        runCase('postgres', hook, { disturb: killBackends, name: `backends-${round}` }),
      );
    }
  },
);
