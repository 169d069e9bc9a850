/**
 * Crash recovery: each running execution holds a lease in the store, renewed for all of this
 * process's executions by one heartbeat. Every heartbeat also looks for leases that ran out
 * (their process died: kill -9, a lost machine) and ends those tasks: a task still SUBMITTED
 * or WORKING becomes FAILED with an agent status message saying its worker was lost. Tasks
 * that were waiting (INPUT_REQUIRED, AUTH_REQUIRED) are left alone: their bounded wait is
 * timed from the store after a restart. Whoever takes over a lease first (this process after
 * a restart, or another replica) does the recovery; the others see it taken.
 *
 * An executor that declares itself `resumable` gets such a task handed back instead: the
 * handler's resume hook runs `execute` again on the stored task (`context.resumed`), under a
 * lease of the new worker. A server that closes while a resumable execution runs leaves the
 * task unfinished and its lease expired, so the next start resumes it at once.
 */
import { randomUUID } from 'node:crypto';
import { Role, TaskState } from '../model/enums.js';
import { newId } from '../model/ids.js';
import type { Message } from '../model/schema.js';
import type { LeaseRef, LeaseStore } from './stores/leases.js';
import type { StoredTask, TaskScope } from './stores/task-store.js';
import { IllegalTaskEventError, statusChange } from './task-changes.js';
import type { TaskManager } from './task-manager.js';

/** Options of crash recovery (`DefaultRequestHandlerOptions.recovery`). */
export interface RecoveryOptions {
  /**
   * How long a lease lasts without a heartbeat: a process silent for this long is taken for
   * dead and its running tasks are failed. Longer than any event-loop stall you expect.
   * @default 30000
   */
  leaseMs?: number;
  /** How often leases are renewed and expired ones looked for. @default leaseMs / 3 */
  heartbeatMs?: number;
}

/** Expired leases handled per heartbeat (the rest wait for the next one). */
const SWEEP_LIMIT = 100;

/** Thrown inside an update to leave the task unchanged. */
class NothingToRecover extends Error {}

/**
 * Runs the agent again on an unfinished task whose worker was lost; false when it cannot
 * (the task's turn is taken here, or the handler is closing).
 */
export type ResumeExecution = (scope: TaskScope, record: StoredTask) => boolean;

/** Drops an execution's lease; `handBack`: expire it now instead, for the next start to resume. */
export type ReleaseLease = (handBack?: boolean) => void;

/** An execution's lease, from {@link ExecutionLeases.hold}. */
export interface HeldLease {
  /** Settles once the lease is in the store (rejects when it could not be written). */
  readonly taken: Promise<void>;
  /** Drops the lease (the execution ended and its end is recorded). */
  readonly release: ReleaseLease;
  /**
   * The execution ended but its end could not be recorded (the final write failed): the lease
   * is kept, and this process retries failing the task at each heartbeat; should it die
   * first, the lease runs out and recovery elsewhere (or the next start) fails the task.
   */
  readonly keepForRecovery: () => void;
}

/** Tasks whose end could not be recorded, retried by this process's heartbeat (more wait for the lease to run out). */
const MAX_UNRECORDED_ENDS = 10_000;

/** The status message of a task whose execution ended but whose end could not be written then. */
const END_NOT_RECORDED =
  'The agent finished, but the server could not record how this task ended, so it was failed later. Send the message again to retry.';

/** The leases of this process's executions, their heartbeat, and the recovery of dead ones. */
export class ExecutionLeases {
  /** This process (a fresh id per start: leases of a previous run are someone else's). */
  readonly worker = randomUUID();
  readonly #leaseMs: number;
  readonly #heartbeatMs: number;
  /** Executions holding a lease, by `tenant NUL owner NUL taskId`, with how many run. */
  readonly #held = new Map<string, { ref: LeaseRef; count: number; taken: Promise<void> }>();
  /** Leases kept for tasks whose end could not be written, by the same key: failed at the next heartbeats. */
  readonly #unrecorded = new Map<string, LeaseRef>();
  /** Leases this heartbeat took over to end their tasks (held for a moment, by no execution). */
  readonly #recovering = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  #beating = false;
  #closed = false;
  #resume: ResumeExecution | undefined;

  constructor(
    private readonly store: LeaseStore,
    private readonly manager: TaskManager,
    options: RecoveryOptions = {},
  ) {
    this.#leaseMs = options.leaseMs ?? 30_000;
    this.#heartbeatMs = options.heartbeatMs ?? Math.max(1, Math.floor(this.#leaseMs / 3));
    if (!(this.#leaseMs > 0) || !(this.#heartbeatMs > 0) || this.#heartbeatMs >= this.#leaseMs) {
      throw new RangeError('recovery: leaseMs and heartbeatMs must be > 0, with heartbeatMs < leaseMs');
    }
  }

  /**
   * True while this process's recovery holds the task's lease only to end it (taken over
   * from a dead worker): no execution runs under it.
   */
  recovering(tenant: string, owner: string, taskId: string): boolean {
    return this.#recovering.has(`${tenant}\u0000${owner}\u0000${taskId}`);
  }

  /** How long a lease lasts without a heartbeat. */
  get leaseMs(): number {
    return this.#leaseMs;
  }

  /** Starts the heartbeat, and looks for dead executions at once. */
  start(): void {
    this.#timer = setInterval(() => void this.#beat(), this.#heartbeatMs);
    this.#timer.unref?.(); // workerd: timers without unref
    void this.#beat();
  }

  /** Hands recovered unfinished tasks to `resume` (a resumable executor) instead of failing them. */
  resumeWith(resume: ResumeExecution): void {
    this.#resume = resume;
  }

  /**
   * Takes a lease for an execution starting now. The caller waits for `taken` before the
   * execution's first write of the task, so no task is ever SUBMITTED or WORKING in the store
   * without a lease that recovery can find (defect 2 of issue 26).
   */
  hold(tenant: string, owner: string, taskId: string): HeldLease {
    const key = `${tenant}\u0000${owner}\u0000${taskId}`;
    let entry = this.#held.get(key);
    if (entry) entry.count++;
    else {
      const ref: LeaseRef = { tenant, owner, taskId, worker: this.worker };
      // A task whose unrecorded end is being retried runs again: its lease is this one.
      this.#unrecorded.delete(key);
      const taken = this.store.acquireLease(ref, Date.now() + this.#leaseMs);
      taken.catch(() => {});
      entry = { ref, count: 1, taken };
      this.#held.set(key, entry);
    }
    const taken = entry.taken;
    let done = false;
    const drop = (): { ref: LeaseRef } | undefined => {
      if (done) return undefined;
      done = true;
      const current = this.#held.get(key);
      if (!current || --current.count > 0) return undefined;
      this.#held.delete(key);
      return current;
    };
    return {
      taken,
      release: (handBack = false) => {
        const last = drop();
        if (!last) return;
        // Handed back: expired at once (the heartbeat has stopped, so nothing renews it).
        const settled = handBack ? this.store.acquireLease(last.ref, 0) : this.store.releaseLease(last.ref);
        settled.catch(() => {});
      },
      keepForRecovery: () => {
        const last = drop();
        if (!last) return;
        // Beyond the bound the lease is still kept: it is recovered once this process is gone.
        if (this.#unrecorded.size < MAX_UNRECORDED_ENDS) this.#unrecorded.set(key, last.ref);
      },
    };
  }

  async #beat(): Promise<void> {
    if (this.#beating || this.#closed) return;
    this.#beating = true;
    try {
      const now = Date.now();
      if (this.#held.size > 0 || this.#unrecorded.size > 0) {
        await this.store.renewLeases(this.worker, now + this.#leaseMs);
      }
      await this.#failUnrecorded();
      const expired = await this.store.expiredLeases(now, SWEEP_LIMIT);
      for (const ref of expired) {
        if (this.#closed) return;
        if (ref.worker === this.worker) continue;
        const taken = await this.store.takeOverLease(
          ref,
          this.worker,
          Date.now(),
          Date.now() + this.#leaseMs,
        );
        if (!taken) continue;
        const key = `${ref.tenant}\u0000${ref.owner}\u0000${ref.taskId}`;
        this.#recovering.add(key);
        try {
          // A resumed execution holds the lease it took over; it drops it when it ends.
          if (await this.#recover(ref)) continue;
          await this.store.releaseLease({ ...ref, worker: this.worker });
        } finally {
          this.#recovering.delete(key);
        }
      }
    } catch {
      // A store failure: the next heartbeat tries again.
    } finally {
      this.#beating = false;
    }
  }

  /**
   * Retries failing the tasks whose end this process could not write (at most SWEEP_LIMIT a
   * heartbeat); each lease is dropped once its task is ended.
   */
  async #failUnrecorded(): Promise<void> {
    let n = 0;
    for (const [key, ref] of [...this.#unrecorded]) {
      if (this.#closed || n++ >= SWEEP_LIMIT) return;
      if (!(await this.#fail(ref, END_NOT_RECORDED))) continue;
      if (this.#unrecorded.get(key) !== ref) continue;
      this.#unrecorded.delete(key);
      await this.store.releaseLease(ref).catch(() => {});
    }
  }

  /**
   * Fails a task left SUBMITTED or WORKING, with `text` as its status message; true when the
   * task needs nothing more (failed now, or already ended or waiting), false when the store failed.
   */
  async #fail(ref: LeaseRef, text: string): Promise<boolean> {
    try {
      await this.manager.update({ tenant: ref.tenant, owner: ref.owner }, ref.taskId, (current) => {
        const state = current.task.status.state;
        if (state !== TaskState.SUBMITTED && state !== TaskState.WORKING) throw new NothingToRecover();
        return statusChange(current.task, TaskState.FAILED, agentText(ref, current.task.contextId, text), {
          workerLost: true,
        });
      });
      return true;
    } catch (error) {
      // Finished, waiting, or never created (the worker died before the first event).
      return error instanceof NothingToRecover || error instanceof IllegalTaskEventError;
    }
  }

  /**
   * Ends a task whose worker died while it ran, or hands it back to a resumable executor;
   * true when the lease now belongs to a resumed execution.
   */
  async #recover(ref: LeaseRef): Promise<boolean> {
    const scope = { tenant: ref.tenant, owner: ref.owner };
    if (this.#resume) {
      const record = await this.manager.get(scope, ref.taskId).catch(() => undefined);
      const state = record?.task.status.state;
      if (!record || (state !== TaskState.SUBMITTED && state !== TaskState.WORKING)) return false;
      // Refused (closing, or its turn is taken here): the lease stays ours and runs out for
      // the next start, or is the running execution's.
      this.#resume(scope, record);
      return true;
    }
    await this.#fail(ref, WORKER_LOST);
    return false;
  }

  /** Stops the heartbeat. Leases still held run out and are recovered elsewhere. */
  close(): void {
    this.#closed = true;
    clearInterval(this.#timer);
  }
}

const WORKER_LOST =
  'The worker running this task was lost (its process ended or stopped responding) before the task finished. Send the message again to retry.';

function agentText(ref: LeaseRef, contextId: string | undefined, text: string): Message {
  return {
    messageId: newId(),
    role: Role.AGENT,
    parts: [{ text }],
    taskId: ref.taskId,
    contextId: contextId ?? '',
  };
}
