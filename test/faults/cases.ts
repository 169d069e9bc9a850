/**
 * The fault suite's cases: the faults it injects, enumerated from the code (every write point a
 * trace of the scenario passes, at each of its first hits, for each action) and from the
 * disturbances of disturbances.ts, and how one case runs: the scenario against a real server
 * process faulted there, then the invariants (invariants.ts) on a server on the same store
 * (a restart, or the replica that survived). Cases run two at a time (the machine has two cores).
 */
import assert from 'node:assert/strict';
import type { FaultAction, WritePoint } from '../../src/core/stores/fault-points.js';
import { WRITE_POINTS } from '../../src/core/stores/fault-points.js';
import type { StoreSpec } from '../../src/core/stores/open.js';
import { TaskState } from '../../src/model/enums.js';
import type { A2AServer } from '../../src/server/a2a-server.js';
import { createA2AServer } from '../../src/server/http.js';
import { callAs } from '../support/handler.js';
import type { Webhook } from '../server/push/support.js';
import {
  freshStore,
  LEASE_MS,
  startChild,
  stopChild,
  unhandled,
  type Child,
  type StoreKind,
  type StorePlace,
} from './harness.js';
import { checkInvariants } from './invariants.js';
import { COUNTS_EVERY_MS, TIMED_POINTS } from './points.js';
import {
  emptyJournal,
  faultServerOptions,
  mergeJournals,
  runScenario,
  type Journal,
  type StepName,
} from './scenario.js';

/** One fault: the n-th hit of a point, and what happens there. */
export interface FaultCase {
  readonly point: WritePoint;
  readonly hit: number;
  readonly action: FaultAction;
}

/** A disturbance under way (see {@link Disturbance}). */
export interface DisturbanceRun {
  /** Called as the scenario sends each step. */
  beforeStep?(step: StepName): void;
  /** Ends it (and waits for what it started). */
  stop(): Promise<void>;
}

/** Something done to the store while the scenario runs (PostgreSQL backends killed, the server restarted). */
export type Disturbance = (store: StoreSpec) => DisturbanceRun;

/**
 * The cases of a trace: every point it passed, at each of its first `maxHits` hits (five: one
 * per step of the scenario; two for points hit on a timer).
 */
export function casesOf(counts: Map<WritePoint, number>, action: FaultAction, maxHits = 5): FaultCase[] {
  const cases: FaultCase[] = [];
  for (const point of WRITE_POINTS) {
    const n = Math.min(counts.get(point) ?? 0, TIMED_POINTS.has(point) ? 2 : maxHits);
    for (let hit = 1; hit <= n; hit++) cases.push({ point, hit, action });
  }
  return cases;
}

/** What a case's {@link CaseOptions.whileRunning} step gets. */
export interface RunningCase {
  readonly child: Child;
  readonly prefix: string;
  readonly webhook: Webhook;
  /** What the client was told so far. */
  readonly told: Journal;
}

/** How one case runs (every field optional: a plain run of the scenario). */
export interface CaseOptions {
  /** The fault planned in the first server process. */
  readonly fault?: FaultCase;
  /** Done to the store while the scenario runs. */
  readonly disturb?: Disturbance;
  /** The restart after the fault, itself faulted here (the points only a restart passes). */
  readonly restartFault?: FaultCase;
  /**
   * PostgreSQL: a second replica (in this process) serves from the start, and the faulted
   * one is killed for good (at its fault, else once the scenario ended): the survivor alone
   * must recover its work, and the invariants are checked on it.
   */
  readonly replicas?: boolean;
  /**
   * Run after the scenario while the faulted process still runs (a full disk's checks);
   * returns what the client has been told in all.
   */
  readonly whileRunning?: (running: RunningCase) => Promise<Journal>;
  /** The servers' bound on a wait for input; the bounded wait is checked when set. */
  readonly interruptedTimeoutMs?: number;
  /** Where the case's store is made (see {@link StorePlace}). */
  readonly place?: StorePlace;
  /** The messageIds' prefix when there is no fault to name them after. */
  readonly name?: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The restart after a fault, itself faulted at `fault` (the points only a restart passes:
 * retaking an abandoned claim, taking over a dead worker's lease): it sends every step again
 * and recovers, then stops or is killed. Returns what the client has been told in all.
 */
async function faultedRestart(
  store: StoreSpec,
  prefix: string,
  webhook: Webhook,
  fault: FaultCase,
  told: Journal,
): Promise<Journal> {
  const child = await startChild(store, { A2A_FAULT_POINT: `${fault.point}:${fault.hit}:${fault.action}` });
  let second: Journal | undefined;
  try {
    if (child.url) second = await runScenario(child.url, prefix, webhook.url, told);
    // Recovery runs at each heartbeat: give the fault its chance to be hit (a kill is
    // expected: waited for up to ten lease times).
    const wait = fault.action === 'kill' ? 10 * LEASE_MS : LEASE_MS;
    await Promise.race([child.exited, sleep(wait)]);
  } finally {
    const end = await stopChild(child);
    assert.ok(
      !unhandled(child.stderr()),
      `the restarted server reported an unhandled error: ${child.stderr()}`,
    );
    if (fault.action === 'kill') {
      assert.equal(end.signal, 'SIGKILL', `the restart never reached ${fault.point}: ${child.stderr()}`);
    } else assert.equal(end.code, 0, child.stderr());
  }
  await sleep(LEASE_MS + 50);
  return second ? mergeJournals(told, second) : told;
}

/** Starts a server of the suite in this process (the restart, or the surviving replica). */
async function startHere(
  store: StoreSpec,
  interruptedTimeoutMs: number | undefined,
): Promise<{ server: A2AServer; url: string }> {
  const server = createA2AServer(faultServerOptions(store, LEASE_MS, interruptedTimeoutMs));
  try {
    return { server, url: (await server.listen(0, '127.0.0.1')).url };
  } catch (error) {
    await server.close();
    throw error;
  }
}

/**
 * The first server process of a case: the scenario against it with its fault and disturbance,
 * then `whileRunning`; it ends by its fault, killed for good (`replicas`) or stopped (then it
 * must exit 0), and never with an unhandled error. Returns what the client was told.
 */
async function runFaulted(
  store: StoreSpec,
  prefix: string,
  webhook: Webhook,
  options: CaseOptions,
): Promise<Journal> {
  const { fault } = options;
  const child = await startChild(
    store,
    fault ? { A2A_FAULT_POINT: `${fault.point}:${fault.hit}:${fault.action}` } : {},
    options.interruptedTimeoutMs,
  );
  let told = emptyJournal();
  try {
    const disturbance = options.disturb?.(store);
    try {
      if (child.url)
        told = await runScenario(child.url, prefix, webhook.url, undefined, disturbance?.beforeStep);
    } finally {
      await disturbance?.stop();
    }
    // A point hit after the scenario (a heartbeat, a delivery, the count folding) still
    // kills it soon.
    if (fault?.action === 'kill') {
      const wait = fault.point === 'task.counts' ? COUNTS_EVERY_MS + LEASE_MS : LEASE_MS;
      await Promise.race([child.exited, sleep(wait)]);
    }
    const running = child.process.exitCode === null && child.process.signalCode === null;
    if (options.whileRunning && running) told = await options.whileRunning({ child, prefix, webhook, told });
    if (options.replicas) child.process.kill('SIGKILL');
  } finally {
    const end = await stopChild(child);
    const stderr = child.stderr();
    assert.ok(!unhandled(stderr), `the faulted server reported an unhandled error: ${stderr}`);
    if (end.signal !== 'SIGKILL') {
      assert.equal(end.code, 0, `the faulted server exited with ${end.code ?? end.signal}: ${stderr}`);
    }
  }
  return told;
}

/**
 * Runs one case: the scenario against a server process faulted as `options` say, then the
 * invariants on a server (in this process) on the same store: a restart, or with `replicas`
 * the replica that ran beside it all along.
 */
export async function runCase(kind: StoreKind, webhook: Webhook, options: CaseOptions = {}): Promise<void> {
  const store = freshStore(kind, options.place);
  const { fault } = options;
  const prefix = fault ? `${fault.point}-${fault.hit}-${fault.action}` : (options.name ?? 'disturbed');
  const servers: { server: A2AServer; url: string }[] = [];
  try {
    if (options.replicas) servers.push(await startHere(store.spec, options.interruptedTimeoutMs));
    let told = await runFaulted(store.spec, prefix, webhook, options);
    // Past the lease time of everything the dead process held.
    await sleep(LEASE_MS + 50);
    if (options.restartFault) {
      told = await faultedRestart(store.spec, prefix, webhook, options.restartFault, told);
    }
    if (!options.replicas) servers.push(await startHere(store.spec, options.interruptedTimeoutMs));
    const { server, url } = servers[0]!;
    const ctx = callAs('anonymous');
    const listIn = async (states: readonly TaskState[]) => {
      const page = await server.handler.listTasks({ pageSize: 100 }, ctx);
      return page.tasks.filter((t) => states.includes(t.status.state));
    };
    const listActive = () => listIn([TaskState.SUBMITTED, TaskState.WORKING]);
    // Recovery runs at start and at each heartbeat: expired leases are ended within a few.
    for (let i = 0; i < 40 && (await listActive()).length > 0; i++) await sleep(LEASE_MS / 4);
    await checkInvariants(
      url,
      prefix,
      webhook.url,
      told,
      {
        listActive,
        listWaiting: () => listIn([TaskState.INPUT_REQUIRED, TaskState.AUTH_REQUIRED]),
        received: () => webhook.received.map((r) => r.json),
      },
      options.interruptedTimeoutMs,
    );
  } finally {
    for (const { server } of servers) await server.close();
    await store.dispose();
  }
}
