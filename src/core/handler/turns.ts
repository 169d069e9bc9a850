/**
 * One execution per task at a time: each task's turn (the execution it runs, or that a message
 * is about to run) and the messages that arrived meanwhile, waiting in arrival order.
 */
import { UnavailableError, UnsupportedOperationError } from '../../errors/a2a-error.js';
import type { ServerCallContext } from '../context.js';
import { Execution } from './execution.js';
import { shuttingDown } from './refusals.js';
import { TransientIndex } from '../transient-map.js';

/** Messages that may wait for a task's running execution; one more is refused. */
const MAX_WAITING_MESSAGES = 4;

/** A message waiting for the running execution of its task to end. */
interface WaitingTurn {
  readonly grant: (execution: Execution) => void;
  readonly reject: (error: unknown) => void;
}

interface TaskTurn {
  execution: Execution;
  waiting: WaitingTurn[] | undefined;
}

/** The turns of every task with a running execution, by tenant, then task id. */
export class TaskTurns {
  readonly #turns = new TransientIndex<TaskTurn>();

  /** Takes a task's turn when no execution of it runs (synchronously: no other message can slip in); else undefined. */
  take(tenant: string, taskId: string): Execution | undefined {
    if (this.#turns.has(tenant, taskId)) return undefined;
    const execution = new Execution();
    this.#turns.set(tenant, taskId, { execution, waiting: undefined });
    return execution;
  }

  /**
   * Waits until the task's running execution, and every message that waited before this one,
   * are done; resolves with this message's execution. Refused when too many already wait;
   * given up when the client goes away or the server closes.
   */
  wait(tenant: string, taskId: string, ctx: ServerCallContext): Promise<Execution> {
    const turn = this.#turns.get(tenant, taskId);
    if (!turn) return Promise.resolve(this.take(tenant, taskId)!);
    const waiting = (turn.waiting ??= []);
    if (waiting.length >= MAX_WAITING_MESSAGES) {
      throw new UnsupportedOperationError(
        `task ${taskId} already has ${MAX_WAITING_MESSAGES} messages waiting for the agent's running execution; send this one once the task is interrupted or terminal`,
        { metadata: { taskId } },
      );
    }
    return new Promise<Execution>((resolve, reject) => {
      const signal = ctx.signal;
      const onAbort = (): void => {
        const index = waiting.indexOf(entry);
        if (index >= 0) waiting.splice(index, 1);
        reject(new UnavailableError('the client went away'));
      };
      const entry: WaitingTurn = {
        grant: (execution) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(execution);
        },
        reject: (error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      waiting.push(entry);
    });
  }

  /** Ends the turn of `execution`: the task's next waiting message takes it, else the task is free. */
  end(tenant: string, taskId: string, execution: Execution): void {
    const turn = this.#turns.get(tenant, taskId);
    if (!turn || turn.execution !== execution) return;
    const next = turn.waiting?.shift();
    if (next) {
      turn.execution = new Execution();
      next.grant(turn.execution);
      return;
    }
    this.#turns.delete(tenant, taskId);
  }

  /** The execution that holds a task's turn now, if any. */
  current(tenant: string, taskId: string): Execution | undefined {
    return this.#turns.get(tenant, taskId)?.execution;
  }

  /** Aborts every running execution as stopped by the server and refuses every waiting message. */
  stopAll(): void {
    for (const turn of [...this.#turns.values()]) {
      turn.execution.serverStopped = true;
      turn.execution.abort(shuttingDown());
      for (const waiting of turn.waiting?.splice(0) ?? []) waiting.reject(shuttingDown());
    }
  }
}
