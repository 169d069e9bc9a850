/**
 * The faults done to PostgreSQL itself while the scenario runs (cases.ts's disturbances): its
 * backends killed again and again, and the server restarted at a chosen step. Each is a
 * {@link Disturbance}; the test files run every one with the suite's invariants.
 */
import type { StoreSpec } from '../../src/core/stores/open.js';
import type { PgCluster } from '../support/pg-cluster.js';
import { terminateBackends } from '../support/postgres.js';
import type { Disturbance } from './cases.js';
import type { StepName } from './scenario.js';

/**
 * Kills the backends of the case's store (found by its schema as application_name) every
 * 40 ms, at most 25 times: its pool and its LISTEN connection, as a failover does.
 */
export const killBackends: Disturbance = (store: StoreSpec) => {
  const name = new URL(store).searchParams.get('application_name')!;
  let killed = 0;
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    if (++killed > 25) return clearInterval(timer);
    // One at a time: a round that outlasts the interval is not overtaken.
    running = running.then(() => terminateBackends(name)).catch(() => {});
  }, 40);
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
};

/** When a restart happens: as a step is sent, or once the scenario ended (deliveries, heartbeats). */
export type RestartMoment = StepName | 'after';

/**
 * Restarts the PostgreSQL server of `cluster` (`pg_ctl restart -m immediate`: a crash, with
 * recovery at start) as the scenario sends step `at`, or after its last step; the store must
 * be on that server.
 */
export function restartServer(cluster: PgCluster, at: RestartMoment): Disturbance {
  return () => {
    let restarted: Promise<void> | undefined;
    return {
      beforeStep: (step) => {
        if (step === at) restarted ??= cluster.restart('immediate');
      },
      stop: async () => {
        restarted ??= at === 'after' ? cluster.restart('immediate') : undefined;
        await restarted;
      },
    };
  };
}
