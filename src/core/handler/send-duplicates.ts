/**
 * SendMessage idempotency: a repeat of a messageId from the same caller within the window
 * returns the first result (the agent runs once); a repeat with other content is refused.
 * Sends in progress are known in memory, finished ones through the TaskStore's records.
 */
import type { Message, SendMessageRequest } from '../../model/schema.js';
import { UnavailableError } from '../../errors/a2a-error.js';
import type { ServerCallContext } from '../context.js';
import { ServerStoppedWaiting, type ExecutionOutcome, type ExecutionSink } from '../event-sink.js';
import type { HeldLease } from '../recovery.js';
import type { LeaseStore } from '../stores/leases.js';
import { messageIdReused, requestFingerprint, sameRequest } from '../idempotency.js';
import type { IdempotencyKey, IdempotencyRecord, TaskScope, TaskStore } from '../stores/task-store.js';
import { TransientMap } from '../transient-map.js';
import { scopeOf, type HandlerDependencies } from './dependencies.js';
import { isSharedByReplicas, waitForOriginal, type OriginalFound } from './duplicate-wait.js';

/** What a SendMessage led to, shared with duplicates of the same messageId. */
export type SendOutcome =
  | { readonly kind: 'task'; readonly taskId: string }
  | { readonly kind: 'message'; readonly message: Message };

/** How a send began: as a duplicate of an earlier one, or by running the agent. */
export type SendStart =
  | { readonly kind: 'duplicate'; readonly outcome: Promise<SendOutcome> }
  | {
      readonly kind: 'run';
      readonly sink: ExecutionSink;
      /**
       * The execution's first outcome as the caller may be told it: a direct reply only once
       * its idempotency record is durable (a client that got the reply gets it again on a
       * retry after a crash).
       */
      readonly outcome: Promise<ExecutionOutcome>;
    };

/** How long a pending claim is waited for without leases to tell (the default lease time). */
const CLAIM_WAIT_WITHOUT_LEASES_MS = 30_000;

/** One value of a {@link CallerMap}, chained to the others of the same key. */
interface CallerEntry<V> {
  readonly tenant: string;
  readonly principal: string;
  readonly value: V;
  next: CallerEntry<V> | undefined;
}

/**
 * Values keyed by tenant, principal and one more string (a messageId), held by that string:
 * the rare values of one messageId from several callers are chained. No joined key strings,
 * and one map that keeps its size as sends come and go (see TransientMap).
 */
class CallerMap<V> {
  readonly #byKey = new TransientMap<string, CallerEntry<V>>();

  get(tenant: string, principal: string, key: string): V | undefined {
    for (let entry = this.#byKey.get(key); entry; entry = entry.next) {
      if (entry.tenant === tenant && entry.principal === principal) return entry.value;
    }
    return undefined;
  }

  /** Adds a value for a (tenant, principal, key) that has none. */
  set(tenant: string, principal: string, key: string, value: V): void {
    this.#byKey.set(key, { tenant, principal, value, next: this.#byKey.get(key) });
  }

  delete(tenant: string, principal: string, key: string): void {
    let previous: CallerEntry<V> | undefined;
    let entry = this.#byKey.get(key);
    while (entry && !(entry.tenant === tenant && entry.principal === principal)) {
      previous = entry;
      entry = entry.next;
    }
    if (!entry) return;
    if (previous) previous.next = entry.next;
    else if (entry.next) this.#byKey.set(key, entry.next);
    else this.#byKey.delete(key);
  }
}

/**
 * A SendMessage in progress, for duplicates of its messageId arriving meanwhile. The promise
 * they wait on is made only when one arrives (rare), not for every request.
 */
class InflightSend {
  constructor(readonly fingerprint: string) {}

  #state: 'running' | 'resolved' | 'rejected' = 'running';
  #value: unknown;
  #promise: Promise<SendOutcome> | undefined;
  #resolve: ((outcome: SendOutcome) => void) | undefined;
  #reject: ((error: unknown) => void) | undefined;

  /** The outcome of the original request. */
  outcome(): Promise<SendOutcome> {
    if (!this.#promise) {
      if (this.#state === 'resolved') this.#promise = Promise.resolve(this.#value as SendOutcome);
      else if (this.#state === 'rejected') this.#promise = Promise.reject(this.#value);
      else {
        this.#promise = new Promise<SendOutcome>((resolve, reject) => {
          this.#resolve = resolve;
          this.#reject = reject;
        });
      }
      this.#promise.catch(noop);
    }
    return this.#promise;
  }

  resolve(outcome: SendOutcome): void {
    if (this.#state !== 'running') return;
    this.#state = 'resolved';
    this.#value = outcome;
    this.#resolve?.(outcome);
  }

  reject(error: unknown): void {
    if (this.#state !== 'running') return;
    this.#state = 'rejected';
    this.#value = error;
    this.#reject?.(error);
  }
}

export function noop(): void {}

/** The de-duplication of SendMessage by (tenant, principal, messageId). */
export class SendDuplicates {
  /** SendMessages in progress by idempotency key, for duplicates arriving meanwhile. */
  readonly #inflight = new CallerMap<InflightSend>();

  constructor(
    private readonly deps: HandlerDependencies,
    /** The idempotency window (> 0). */
    private readonly ttlMs: number,
  ) {}

  /**
   * Begins a send of task `taskId`: answers a duplicate from the first send's outcome, or
   * claims the messageId and calls `start` to run the agent. A message that starts a new task
   * takes the task's lease with the claim (`start` receives it): both are written in one
   * batch, so the agent runs one write sooner.
   */
  async begin(
    request: SendMessageRequest,
    ctx: ServerCallContext,
    taskId: string,
    start: (lease?: HeldLease) => Promise<ExecutionSink>,
  ): Promise<SendStart> {
    const store = this.deps.store;
    const tenant = ctx.tenant;
    const principal = ctx.principal.id;
    const messageId = request.message.messageId;
    const key: IdempotencyKey = { tenant, principal, messageId };
    const ttlMs = this.ttlMs;
    const fingerprint = requestFingerprint(request);
    const running = this.#inflight.get(tenant, principal, messageId);
    if (running) {
      if (running.fingerprint !== fingerprint) throw messageIdReused(messageId);
      return duplicate(running.outcome());
    }

    const inflight = new InflightSend(fingerprint);
    this.#inflight.set(tenant, principal, messageId, inflight);
    let claimed = false;
    /** The new task's lease, until `start` takes it (released here if the send ends before). */
    let lease: HeldLease | undefined;
    try {
      const createdAtMs = Date.now();
      const claim: IdempotencyRecord = { status: 'pending', taskId, fingerprint, createdAtMs };
      const claiming = store.claimIdempotencyKey(key, claim);
      // Queued after the claim, so in its batch (or a later one): never a lease without a claim.
      if (!request.message.taskId) lease = this.deps.leases?.hold(tenant, principal, taskId);
      const previous = await claiming;
      if (previous && previous.createdAtMs !== undefined && previous.createdAtMs + ttlMs <= createdAtMs) {
        // Outside the window: the messageId is free again.
        await store.setIdempotencyRecord(key, claim);
      } else if (previous) {
        if (previous.fingerprint !== undefined && !sameRequest(previous.fingerprint, fingerprint, request)) {
          throw messageIdReused(messageId);
        }
        const scope = scopeOf(ctx);
        let found: OriginalFound = { kind: 'record', record: previous };
        // Pending without its task, on a store replicas share, and not abandoned: the original
        // runs on another replica and has not emitted yet; wait for it (bounded) rather than
        // answer "retry later".
        if (
          previous.status === 'pending' &&
          isSharedByReplicas(store) &&
          !(await this.deps.manager.get(scope, previous.taskId)) &&
          !(await this.#abandoned(previous, key))
        ) {
          found = await waitForOriginal(store, this.deps.manager, scope, key, claim, ctx.signal);
        }
        if (found.kind === 'record') {
          const record = found.record;
          if (record.fingerprint !== undefined && !sameRequest(record.fingerprint, fingerprint, request)) {
            throw messageIdReused(messageId);
          }
          // Undefined: the first send's worker is gone and recorded nothing; this one runs instead.
          const outcome = await this.#outcomeOf(record, scope, key, claim);
          if (outcome) {
            this.#inflight.delete(tenant, principal, messageId);
            inflight.resolve(outcome);
            lease?.release();
            return duplicate(inflight.outcome());
          }
        }
        // The original gave up meanwhile (its claim was removed) or was abandoned: this
        // request now holds the messageId and runs the agent.
      }
      claimed = true;
      const given = lease;
      lease = undefined; // start owns it now
      const sink = await start(given);
      // A direct reply is told to nobody before its record is durable: after a crash, the
      // retry of a client that got it finds it (issue 26). A task outcome leaves the claim
      // as it is: `pending` with the task's id, and the task now exists, which is all a
      // repeat needs (one store write less per send).
      const recorded = sink.outcome.then((outcome): ExecutionOutcome | Promise<ExecutionOutcome> =>
        outcome.kind === 'message'
          ? store
              .setIdempotencyRecord(key, {
                status: 'message',
                message: outcome.message,
                fingerprint,
                createdAtMs,
              })
              .then(() => outcome)
          : outcome,
      );
      recorded.then(
        (outcome) => {
          inflight.resolve(
            outcome.kind === 'message'
              ? { kind: 'message', message: outcome.message }
              : { kind: 'task', taskId: outcome.record.task.id },
          );
          this.#inflight.delete(tenant, principal, messageId);
        },
        (error: unknown) => {
          inflight.reject(error);
          this.#inflight.delete(tenant, principal, messageId);
          // A caller answered at the server's stop leaves the claim: the agent may still make
          // the task, which a retry then finds (or, if it never does, runs again after the lease time).
          if (!(error instanceof ServerStoppedWaiting)) {
            store.setIdempotencyRecord(key, undefined).catch(noop);
          }
        },
      );
      return { kind: 'run', sink, outcome: recorded };
    } catch (error) {
      inflight.reject(error);
      this.#inflight.delete(tenant, principal, messageId);
      lease?.release();
      if (claimed) await store.setIdempotencyRecord(key, undefined);
      throw error;
    }
  }

  /**
   * The outcome recorded for a repeated messageId (from the store), or undefined when the
   * first send's claim was abandoned (its worker is gone and recorded nothing) and has now
   * been retaken with `claim` for this request to run.
   */
  async #outcomeOf(
    record: IdempotencyRecord,
    scope: TaskScope,
    key: IdempotencyKey,
    claim: IdempotencyRecord,
  ): Promise<SendOutcome | undefined> {
    if (record.status === 'message') return { kind: 'message', message: record.message };
    if (record.status === 'task') return { kind: 'task', taskId: record.taskId };
    // Pending: the send made (or, on another replica, is making) this task; it exists once
    // the agent emitted anything. A follow-up's task existed before: the send reached it
    // once the task's history holds its message.
    const stored = await this.deps.manager.get(scope, record.taskId);
    const reached = stored?.task.history?.some((m) => m.messageId === key.messageId) === true;
    if (reached || (stored && !(await this.#abandoned(record, key)))) {
      return { kind: 'task', taskId: record.taskId };
    }
    if (!stored && !(await this.#abandoned(record, key))) {
      throw new UnavailableError('a message with this messageId is still being processed; retry later');
    }
    const store = this.deps.store;
    const retaken = store.replaceIdempotencyRecord
      ? await store.replaceIdempotencyRecord(key, record, claim)
      : (await store.setIdempotencyRecord(key, claim), true);
    if (retaken) return undefined;
    // Another retry (on another replica) took it over first and runs it now.
    throw new UnavailableError('a message with this messageId is still being processed; retry later');
  }

  /**
   * True when the send that made `record` can no longer be running: the lease time has passed
   * since its claim and no live lease is held on its task (a running execution renews its
   * lease, taken before the agent runs). Without leases, the lease time alone decides.
   */
  async #abandoned(record: IdempotencyRecord, key: IdempotencyKey): Promise<boolean> {
    if (record.status !== 'pending') return false;
    const leases = this.deps.leases;
    const now = Date.now();
    const waitMs = leases?.leaseMs ?? CLAIM_WAIT_WITHOUT_LEASES_MS;
    if (now < (record.createdAtMs ?? 0) + waitMs) return false;
    const store = this.deps.store as TaskStore & Partial<LeaseStore>;
    if (!leases || !store.hasLiveLease) return true;
    if (!(await store.hasLiveLease(key.tenant, key.principal, record.taskId, now))) return true;
    // The live lease may be this process's recovery ending the dead worker's task.
    return leases.recovering(key.tenant, key.principal, record.taskId);
  }
}

/** Waits for the original's first event, so its errors are this request's errors too. */
async function duplicate(outcome: Promise<SendOutcome>): Promise<SendStart> {
  await outcome;
  return { kind: 'duplicate', outcome };
}
