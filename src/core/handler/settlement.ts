/** Waiting for a task to settle: a blocking SendMessage returns once its task is terminal or interrupted. */
import { UnavailableError } from '../../errors/a2a-error.js';
import { isInterruptedState, isTerminalState, type TaskState } from '../../model/enums.js';
import type { ServerCallContext } from '../context.js';
import type { StoredTask, TaskScope } from '../stores/task-store.js';
import type { HandlerDependencies } from './dependencies.js';
import { shuttingDown } from './refusals.js';

/** Terminal or interrupted: the agent is done until the client does something. */
export function isSettled(state: TaskState): boolean {
  return isTerminalState(state) || isInterruptedState(state);
}

/** A blocking SendMessage waiting for its task to settle; released by close(). */
interface Waiter {
  readonly reject: (error: unknown) => void;
}

/** The blocking SendMessage calls waiting for their tasks. */
export class Settlements {
  readonly #waiters = new Set<Waiter>();

  constructor(private readonly deps: HandlerDependencies) {}

  /**
   * Resolves with the task once it is terminal or interrupted. The client's signal is read only
   * when the task is still running a turn of the event loop after the first look (reading it
   * may create it, and an agent that answers without I/O has settled by then); a client gone
   * meanwhile leaves the signal aborted, which is then noticed at once.
   */
  wait(scope: TaskScope, taskId: string, ctx: ServerCallContext): Promise<StoredTask | undefined> {
    // close() released the waiters it knew; one arriving later would never be released.
    if (this.deps.closed) return Promise.reject(shuttingDown());
    const { bus, manager } = this.deps;
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
      const unsubscribe = bus.subscribe({ tenant: scope.tenant, taskId, owner: scope.owner }, (event) => {
        if (!event.executionEnded && isSettled(event.state)) check();
      });
      const finish = (record: StoredTask | undefined, error?: unknown): void => {
        if (finished) return;
        finished = true;
        unsubscribe();
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
      this.#waiters.add(waiter);
      check();
    });
  }

  /** Releases every waiting call with UnavailableError (the server is closing). */
  releaseAll(): void {
    for (const waiter of [...this.#waiters]) waiter.reject(shuttingDown());
  }
}
