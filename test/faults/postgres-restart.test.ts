/**
 * Fault suite, PostgreSQL: the database server itself is restarted (`pg_ctl restart -m
 * immediate`, a crash with recovery at start) as the scenario sends each of its steps, and once
 * after it (deliveries and heartbeats under way). The a2a server's statements are retried
 * with backoff meanwhile; it is then stopped (exit 0, no unhandled error), another starts on the
 * same schema, and the invariants of issue 26 hold, the bounded wait of a task left waiting
 * included (cases.ts, invariants.ts). The cluster is this file's own: the shared one serves
 * other test files at the same time. Cases run one at a time (a restart stops every case on it).
 */
import { test } from 'node:test';
import { startWebhook } from '../server/push/support.js';
import { startPgCluster } from '../support/pg-cluster.js';
import { runCase } from './cases.js';
import { restartServer, type RestartMoment } from './disturbances.js';
import { WAIT_BOUND_MS } from './harness.js';
import { STEPS } from './scenario.js';

test(
  'PostgreSQL: the server restarted at each step of the scenario breaks no invariant',
  { timeout: 170_000 },
  async (t) => {
    const hook = await startWebhook();
    t.after(() => hook.close());
    const cluster = await startPgCluster();
    t.after(() => cluster.stop());
    const moments: RestartMoment[] = [...STEPS, 'after'];
    for (const at of moments) {
      await t.test(`restarted as ${at === 'after' ? 'the scenario ended' : `${at} is sent`}`, () =>
        runCase('postgres', hook, {
          disturb: restartServer(cluster, at),
          place: { postgres: cluster.url },
          name: `restart-${at}`,
          interruptedTimeoutMs: WAIT_BOUND_MS,
        }),
      );
    }
  },
);
