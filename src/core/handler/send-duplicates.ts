/**
 * SendMessage idempotency: a repeat of a messageId from the same caller within the window
 * returns the first result (the agent runs once); a repeat with other content is refused.
 * Sends in progress are known in memory, finished ones through the TaskStore's records.
 */
import type { Message, SendMessageRequest } from '../../model/schema.js';
import { UnavailableError } from '../../errors/a2a-error.js';
import type { ServerCallContext } from '../context.js';
import type { ExecutionSink } from '../event-sink.js';
import { messageIdReused, requestFingerprint, sameRequest } from '../idempotency.js';
import type { IdempotencyKey, IdempotencyRecord, TaskScope } from '../stores/task-store.js';
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
  | { readonly kind: 'run'; readonly sink: ExecutionSink };

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
   * claims the messageId and calls `start` to run the agent.
   */
  async begin(
    request: SendMessageRequest,
    ctx: ServerCallContext,
    taskId: string,
    start: () => Promise<ExecutionSink>,
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
    try {
      const createdAtMs = Date.now();
      const claim: IdempotencyRecord = { status: 'pending', taskId, fingerprint, createdAtMs };
      const previous = await store.claimIdempotencyKey(key, claim);
      if (previous && previous.createdAtMs !== undefined && previous.createdAtMs + ttlMs <= createdAtMs) {
        // Outside the window: the messageId is free again.
        await store.setIdempotencyRecord(key, claim);
      } else if (previous) {
        if (previous.fingerprint !== undefined && !sameRequest(previous.fingerprint, fingerprint, request)) {
          this.#inflight.delete(tenant, principal, messageId);
          inflight.reject(messageIdReused(messageId));
          throw messageIdReused(messageId);
        }
        const scope = scopeOf(ctx);
        let found: OriginalFound = { kind: 'record', record: previous };
        // Pending without its task, on a store replicas share: the original runs on another
        // replica and has not emitted yet; wait for it (bounded) rather than answer "retry later".
        if (
          previous.status === 'pending' &&
          isSharedByReplicas(store) &&
          !(await this.deps.manager.get(scope, previous.taskId))
        ) {
          found = await waitForOriginal(store, this.deps.manager, scope, key, claim, ctx.signal);
        }
        if (found.kind === 'record') {
          const record = found.record;
          this.#inflight.delete(tenant, principal, messageId);
          if (record.fingerprint !== undefined && !sameRequest(record.fingerprint, fingerprint, request)) {
            inflight.reject(messageIdReused(messageId));
            throw messageIdReused(messageId);
          }
          inflight.resolve(await this.#outcomeOf(record, scope));
          return duplicate(inflight.outcome());
        }
        // The original gave up meanwhile (its claim was removed): this request now holds the
        // messageId and runs the agent.
      }
      claimed = true;
      const sink = await start();
      sink.outcome.then(
        (outcome) => {
          const result: SendOutcome =
            outcome.kind === 'message'
              ? { kind: 'message', message: outcome.message }
              : { kind: 'task', taskId: outcome.record.task.id };
          inflight.resolve(result);
          const release = (): void => this.#inflight.delete(tenant, principal, messageId);
          // A task outcome leaves the claim as it is: `pending` with the task's id, and the
          // task now exists, which is all a repeat needs (one store write less per send).
          if (result.kind === 'task') release();
          else {
            store
              .setIdempotencyRecord(key, {
                status: 'message',
                message: result.message,
                fingerprint,
                createdAtMs,
              })
              .then(release, release);
          }
        },
        (error: unknown) => {
          inflight.reject(error);
          this.#inflight.delete(tenant, principal, messageId);
          void store.setIdempotencyRecord(key, undefined);
        },
      );
      return { kind: 'run', sink };
    } catch (error) {
      inflight.reject(error);
      this.#inflight.delete(tenant, principal, messageId);
      if (claimed) await store.setIdempotencyRecord(key, undefined);
      throw error;
    }
  }

  /** The outcome recorded for a repeated messageId (from the store). */
  async #outcomeOf(record: IdempotencyRecord, scope: TaskScope): Promise<SendOutcome> {
    if (record.status === 'message') return { kind: 'message', message: record.message };
    if (record.status === 'task') return { kind: 'task', taskId: record.taskId };
    // Pending: the send made (or, on another replica, is making) this task; it exists once
    // the agent emitted anything.
    const task = await this.deps.manager.get(scope, record.taskId);
    if (task) return { kind: 'task', taskId: record.taskId };
    throw new UnavailableError('a message with this messageId is still being processed; retry later');
  }
}

/** Waits for the original's first event, so its errors are this request's errors too. */
async function duplicate(outcome: Promise<SendOutcome>): Promise<SendStart> {
  await outcome;
  return { kind: 'duplicate', outcome };
}
