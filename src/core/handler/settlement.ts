/** Waiting for a task to settle: a blocking SendMessage returns once its task is terminal or interrupted. */
import { UnavailableError } from '../../errors/a2a-error.js';
import { isInterruptedState, isTerminalState, type TaskState } from '../../model/enums.js';
import type { ServerCallContext } from '../context.js';
import type { TaskEvent } from '../event-bus/event-bus.js';
import type { StoredTask, TaskScope } from '../stores/task-store.js';
import { savedRecordOf } from '../published-records.js';
import { snapshotRecord } from '../task-snapshot.js';
import type { HandlerDependencies } from './dependencies.js';
import { shuttingDown } from './refusals.js';
import { TransientMap } from '../transient-map.js';
import { endNotRecordedError } from '../event-bus/task-stream.js';

/** Terminal or interrupted: the agent is done until the client does something. */
export function isSettled(state: TaskState): boolean {
  return isTerminalState(state) || isInterruptedState(state);
}

/** A blocking SendMessage waiting for its task to settle; released by close(). */
interface Waiter {
  readonly reject: (error: unknown) => void;
}

/** Marks a settling event whose record is not at hand (published elsewhere): read the task. */
const READ_TASK = Symbol('read the task');

/**
 * Watches one task's events from before its agent runs (subscribed by the send, like a stream),
 * so a blocking SendMessage knows whether the task settled without reading the store: the
 * settling event of this process's own execution carries the record it was saved with.
 */
export class SettlementWatch {
  /** The settled record seen, READ_TASK for a settling event without one, undefined while running. */
  #settled: StoredTask | typeof READ_TASK | undefined;
  #unsubscribe: (() => void) | undefined;
  #onSettled: (() => void) | undefined;
  #closed = false;
  /** Set when the task's execution ended without its end being recorded. */
  #failure: Error | undefined;

  /** The error to answer with, when the execution ended without its end being recorded. */
  get failure(): Error | undefined {
    return this.#failure;
  }

  /** The bus listener (events of the watched task, in order). */
  readonly handle = (event: TaskEvent): void => {
    if (event.endNotRecorded !== undefined) {
      this.#failure = endNotRecordedError(event.taskId, event.endNotRecorded);
      this.#onSettled?.();
      return;
    }
    if (event.executionEnded || !isSettled(event.state)) return;
    const record = savedRecordOf(event);
    // A snapshot now: the manager extends the record's arrays in place on the task's next change.
    this.#settled = record ? snapshotRecord(record) : READ_TASK;
    this.#onSettled?.();
  };

  /** Called by whoever subscribed {@link SettlementWatch.handle} with the function that stops it. */
  onEnd(unsubscribe: () => void): void {
    if (this.#closed) unsubscribe();
    else this.#unsubscribe = unsubscribe;
  }

  /** Stops watching (idempotent). */
  close(): void {
    this.#closed = true;
    this.#onSettled = undefined;
    const unsubscribe = this.#unsubscribe;
    this.#unsubscribe = undefined;
    unsubscribe?.();
  }

  /** True once subscribed to the bus (the send reached its agent). */
  get subscribed(): boolean {
    return this.#unsubscribe !== undefined;
  }

  /** What was seen so far; `listener` is called at the next settling event. */
  take(listener: () => void): StoredTask | typeof READ_TASK | undefined {
    this.#onSettled = listener;
    return this.#settled;
  }
}

/** The blocking SendMessage calls waiting for their tasks. */
export class Settlements {
  /** Each waiting call, by itself (a Set would shrink and grow again around every call). */
  readonly #waiters = new TransientMap<Waiter, Waiter>();

  constructor(private readonly deps: HandlerDependencies) {}

  /**
   * Resolves with the task once it is terminal or interrupted. The client's signal is read only
   * when the task is still running a turn of the event loop after the first look (reading it
   * may create it, and an agent that answers without I/O has settled by then); a client gone
   * meanwhile leaves the signal aborted, which is then noticed at once. `watch`: subscribed to
   * the task since before its agent ran; then every settling event has been seen, and one this
   * process saved needs no store read.
   */
  wait(
    scope: TaskScope,
    taskId: string,
    ctx: ServerCallContext,
    watch?: SettlementWatch,
  ): Promise<StoredTask | undefined> {
    // close() released the waiters it knew; one arriving later would never be released.
    if (this.deps.closed) return Promise.reject(shuttingDown());
    const { bus, manager } = this.deps;
    const watched = watch?.subscribed ? watch : undefined;
    return new Promise<StoredTask | undefined>((resolve, reject) => {
      let finished = false;
      let signal: AbortSignal | undefined;
      let pendingListen: NodeJS.Immediate | undefined;
      const waiter: Waiter = { reject: (e) => finish(undefined, e) };
      const onAbort = (): void => finish(undefined, new UnavailableError('the client went away'));
      const listen = (): void => {
        pendingListen = undefined;
        if (finished || signal) return;
        signal = ctx.signal;
        if (!signal) return;
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
      };
      const listenSoon = (): void => {
        if (finished || signal || pendingListen) return;
        pendingListen = setImmediate(listen);
      };
      const finish = (record: StoredTask | undefined, error?: unknown): void => {
        if (finished) return;
        finished = true;
        unsubscribe?.();
        watched?.close();
        this.#waiters.delete(waiter);
        if (pendingListen) clearImmediate(pendingListen);
        signal?.removeEventListener('abort', onAbort);
        if (error !== undefined) reject(error);
        else resolve(record);
      };
      const check = (): void => {
        manager.get(scope, taskId).then(
          (record) => {
            if (!record || isSettled(record.task.status.state)) finish(record);
            else listenSoon();
          },
          (error: unknown) => finish(undefined, error),
        );
      };
      const look = (): void => {
        const seen = watched!.take(look);
        if (watched!.failure) return finish(undefined, watched!.failure);
        if (seen === READ_TASK) check();
        else if (seen) finish(seen);
        else listenSoon();
      };
      const unsubscribe = watched
        ? undefined
        : bus.subscribe({ tenant: scope.tenant, taskId, owner: scope.owner }, (event) => {
            if (event.endNotRecorded !== undefined) {
              finish(undefined, endNotRecordedError(event.taskId, event.endNotRecorded));
            } else if (!event.executionEnded && isSettled(event.state)) check();
          });
      this.#waiters.set(waiter, waiter);
      if (watched) look();
      else check();
    });
  }

  /** Releases every waiting call with UnavailableError (the server is closing). */
  releaseAll(): void {
    for (const waiter of [...this.#waiters.values()]) waiter.reject(shuttingDown());
  }
}
