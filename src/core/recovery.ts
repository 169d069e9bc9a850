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
import { statusChange } from './task-changes.js';
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

/** The leases of this process's executions, their heartbeat, and the recovery of dead ones. */
export class ExecutionLeases {
  /** This process (a fresh id per start: leases of a previous run are someone else's). */
  readonly worker = randomUUID();
  readonly #leaseMs: number;
  readonly #heartbeatMs: number;
  /** Executions holding a lease, by `tenant NUL owner NUL taskId`, with how many run. */
  readonly #held = new Map<string, { ref: LeaseRef; count: number }>();
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

  /** Takes a lease for an execution starting now; returns the function that drops it. */
  hold(tenant: string, owner: string, taskId: string): ReleaseLease {
    const key = `${tenant}\u0000${owner}\u0000${taskId}`;
    const held = this.#held.get(key);
    if (held) held.count++;
    else {
      const ref: LeaseRef = { tenant, owner, taskId, worker: this.worker };
      this.#held.set(key, { ref, count: 1 });
      // Queued with the task's first writes (the same transaction on SQLite).
      this.store.acquireLease(ref, Date.now() + this.#leaseMs).catch(() => {});
    }
    let done = false;
    return (handBack = false) => {
      if (done) return;
      done = true;
      const entry = this.#held.get(key);
      if (!entry || --entry.count > 0) return;
      this.#held.delete(key);
      // Handed back: expired at once (the heartbeat has stopped, so nothing renews it).
      const settled = handBack ? this.store.acquireLease(entry.ref, 0) : this.store.releaseLease(entry.ref);
      settled.catch(() => {});
    };
  }

  async #beat(): Promise<void> {
    if (this.#beating || this.#closed) return;
    this.#beating = true;
    try {
      const now = Date.now();
      if (this.#held.size > 0) await this.store.renewLeases(this.worker, now + this.#leaseMs);
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
        // A resumed execution holds the lease it took over; it drops it when it ends.
        if (await this.#recover(ref)) continue;
        await this.store.releaseLease({ ...ref, worker: this.worker });
      }
    } catch {
      // A store failure: the next heartbeat tries again.
    } finally {
      this.#beating = false;
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
    try {
      await this.manager.update({ tenant: ref.tenant, owner: ref.owner }, ref.taskId, (current) => {
        const state = current.task.status.state;
        if (state !== TaskState.SUBMITTED && state !== TaskState.WORKING) throw new NothingToRecover();
        return statusChange(current.task, TaskState.FAILED, workerLostMessage(ref, current.task.contextId), {
          workerLost: true,
        });
      });
    } catch {
      // Finished, waiting, or never created (the worker died before the first event).
    }
    return false;
  }

  /** Stops the heartbeat. Leases still held run out and are recovered elsewhere. */
  close(): void {
    this.#closed = true;
    clearInterval(this.#timer);
  }
}

function workerLostMessage(ref: LeaseRef, contextId: string | undefined): Message {
  return {
    messageId: newId(),
    role: Role.AGENT,
    parts: [
      {
        text: 'The worker running this task was lost (its process ended or stopped responding) before the task finished. Send the message again to retry.',
      },
    ],
    taskId: ref.taskId,
    contextId: contextId ?? '',
  };
}
