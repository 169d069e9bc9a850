/**
 * Fault suite, PostgreSQL: the server's backends are killed (`pg_terminate_backend`) again and
 * again while the scenario runs, its pool and its LISTEN connection included; the invariants of
 * issue 26 hold after a restart on the same schema (see harness.ts).
 */
import { test } from 'node:test';
import pg from 'pg';
import type { StoreSpec } from '../../src/core/stores/open.js';
import { startWebhook } from '../server/push/support.js';
import { postgresUrl } from '../support/postgres.js';
import { runCase } from './harness.js';

/** Kills the backends of `store` (found by its schema as application_name) every 40 ms, at most 25 times. */
function killBackends(store: StoreSpec): () => Promise<void> {
  const name = new URL(store).searchParams.get('application_name')!;
  const admin = new pg.Client({ connectionString: postgresUrl() });
  const connected = admin.connect();
  let killed = 0;
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    if (++killed > 25) return clearInterval(timer);
    running = connected.then(() =>
      admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [
        name,
      ]),
    );
  }, 40);
  return async () => {
    clearInterval(timer);
    await running.catch(() => {});
    await admin.end();
  };
}

test(
  'PostgreSQL: backends killed during the scenario break no invariant',
  { timeout: 120_000 },
  async (t) => {
    const hook = await startWebhook();
    t.after(() => hook.close());
    for (let round = 0; round < 3; round++) {
      await t.test(`round ${round + 1}`, () => runCase('postgres', undefined, hook, killBackends));
    }
  },
);
