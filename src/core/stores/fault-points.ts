/**
 * The named write points of the durable stores (SQLite, PostgreSQL), and the test-only fault
 * hook that stops a process exactly at one of them. Every store write calls {@link faultAt}
 * with its point's name first, so a new write path must join {@link WRITE_POINTS} (the type
 * refuses any other name), and the fault suite (`test/faults/`) crashes a real server at each.
 *
 * The hook is off unless `A2A_FAULT_POINT` is set when this module loads; then
 * {@link faultAt} is undefined and a call site costs one property read.
 *
 * `A2A_FAULT_POINT=<point>:<n>[:<action>]`: at the n-th hit (1-based) of `<point>` in this
 * process, `kill` (the default) sends SIGKILL to the process; `eio` makes that one write throw
 * an I/O error; `full` fills the disk there for real: every SQLite connection opened while the
 * hook is on stops growing (`PRAGMA max_page_count` set to its current size), so this write and
 * every later one that needs a new page fail with SQLite's own `SQLITE_FULL`, until
 * {@link freeFaultDisks} gives the room back. Several plans may be given, separated by commas.
 * `A2A_FAULT_TRACE=<file>` appends each point hit to `<file>`, one name a line (how the suite
 * knows a scenario passes every point).
 */
import type * as Fs from 'node:fs';
import { requireNode } from '../node-modules.js';

/** Every write point of the durable stores, in the order a task usually meets them. */
export const WRITE_POINTS = [
  /** SendMessage claims its messageId (before anything else of the send). */
  'idempotency.claim',
  /** A stale pending claim (its worker is gone) is taken over by a retry. */
  'idempotency.retake',
  /** The record of a direct Message reply (or a claim written again after its window). */
  'idempotency.record',
  /** A claim removed (its send failed before any task existed). */
  'idempotency.clear',
  /** An execution's lease is taken. */
  'lease.acquire',
  /** The heartbeat renews this process's leases. */
  'lease.renew',
  /** An execution's lease is dropped (or expired at once, for a resumable hand-back). */
  'lease.release',
  /** An expired lease of a dead worker is taken over by recovery. */
  'lease.takeover',
  /** A task is written for the first time. */
  'task.create',
  /** A task is rewritten (client message, cancel, recovery, interrupted wait expired). */
  'task.update',
  /** An agent event is staged (written behind, in the next batch). */
  'task.stage',
  /** The per-caller task counts are compacted (PostgreSQL, on a timer). */
  'task.counts',
  /** A push config is stored (with a send, or CreateTaskPushNotificationConfig). */
  'push.config.put',
  /** One push config, or all of a task's, deleted. */
  'push.config.delete',
  /** A push notification is queued in the outbox, with its task change. */
  'push.outbox.enqueue',
  /** Notifications are claimed (leased) by a delivery worker. */
  'push.outbox.claim',
  /** A delivery attempt is settled (delivered, retried later, or given up). */
  'push.outbox.settle',
  /** A claimed notification's lease is extended, or a delivery replayed. */
  'push.outbox.renew',
  /** Retention deletes old terminal tasks, idempotency records or delivered notifications. */
  'retention.purge',
  /** A named secret (the page-token key) is made. */
  'secret.create',
] as const;

/** One named write point. */
export type WritePoint = (typeof WRITE_POINTS)[number];

/** What the hook does at its chosen hit. */
export type FaultAction = 'kill' | 'eio' | 'full';

/** The parsed `A2A_FAULT_POINT` value. */
export interface FaultPlan {
  readonly point: WritePoint;
  readonly hit: number;
  readonly action: FaultAction;
}

/** Parses an `A2A_FAULT_POINT` value; throws with the reason when it is not one. */
export function parseFaultPlan(text: string): FaultPlan {
  const [point, hit, action = 'kill'] = text.split(':');
  if (!(WRITE_POINTS as readonly string[]).includes(point ?? '')) {
    throw new Error(`A2A_FAULT_POINT: unknown write point ${JSON.stringify(point)}`);
  }
  const n = Number(hit);
  if (!Number.isInteger(n) || n < 1) throw new Error(`A2A_FAULT_POINT: hit must be an integer >= 1`);
  if (action !== 'kill' && action !== 'eio' && action !== 'full') {
    throw new Error(`A2A_FAULT_POINT: action must be kill, eio or full`);
  }
  return { point: point as WritePoint, hit: n, action };
}

/** The error a write fails with under `eio` (shaped like SQLite's own). */
function injectedIoError(point: WritePoint): Error {
  const error = new Error(`disk I/O error (injected at ${point})`) as Error & { code: string };
  error.code = 'SQLITE_IOERR';
  return error;
}

/** A SQLite connection the `full` action can fill (registered by `SqliteDatabase.open`). */
export interface FaultDisk {
  /** Stops the file growing past its current size. */
  fill(): void;
  /** Lets it grow again, as before {@link FaultDisk.fill}. */
  free(): void;
}

/** The connections open while the hook is on (one per open SQLite file). */
const disks = new Set<FaultDisk>();

/**
 * Registers a connection for the `full` action (called only while the hook is on); returns
 * the function that removes it (at close).
 */
export function addFaultDisk(disk: FaultDisk): () => void {
  disks.add(disk);
  return () => void disks.delete(disk);
}

/** How many `full` faults filled the disks in this process so far. */
let fills = 0;

/** How many `full` faults have filled the disks in this process (a test waits for its fault). */
export function faultDiskFills(): number {
  return fills;
}

/** Gives the room back to every connection a `full` fault filled (the disk freed). */
export function freeFaultDisks(): void {
  for (const disk of disks) disk.free();
}

function fillDisks(point: WritePoint): void {
  if (disks.size === 0) throw new Error(`A2A_FAULT_POINT: full at ${point}, but no SQLite file is open`);
  for (const disk of disks) disk.fill();
  fills++;
}

function createHook(plans: readonly FaultPlan[], trace: string | undefined): (point: WritePoint) => void {
  const hits = new Map<WritePoint, number>();
  // Loaded only when a test turned the hook on: the neutral entries must not import node:fs.
  const fs = trace ? requireNode<typeof Fs>('node:fs') : undefined;
  return (point) => {
    if (trace) fs!.appendFileSync(trace, `${point}\n`);
    if (plans.length === 0) return;
    const hit = (hits.get(point) ?? 0) + 1;
    hits.set(point, hit);
    const plan = plans.find((p) => p.point === point && p.hit === hit);
    if (!plan) return;
    if (plan.action === 'eio') throw injectedIoError(point);
    // This write goes on, and meets the real limit if it needs a new page.
    if (plan.action === 'full') return fillDisks(point);
    process.kill(process.pid, 'SIGKILL');
    // The signal is delivered at once; nothing of this write may run meanwhile.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10_000);
  };
}

function hookFromEnvironment(): ((point: WritePoint) => void) | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  const planText = env?.A2A_FAULT_POINT;
  const trace = env?.A2A_FAULT_TRACE;
  if (!planText && !trace) return undefined;
  const plans = planText ? planText.split(',').map(parseFaultPlan) : [];
  return createHook(plans, trace || undefined);
}

/**
 * Called by each store write with its point's name, first; undefined (nothing to call) unless
 * a test set `A2A_FAULT_POINT` or `A2A_FAULT_TRACE` before this module loaded.
 */
export const faultAt: ((point: WritePoint) => void) | undefined = hookFromEnvironment();
