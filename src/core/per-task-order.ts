/** Per-task order: the changes of one task run one after another, those of different tasks freely. */
import { TransientIndex } from './transient-map.js';

/** The changes of one task waiting to run, in order; gone when the last one settles. */
class TaskQueue {
  /** The latest change (it may reject: the next one runs either way). */
  tail: Promise<unknown>;
  #pending = 1;

  constructor(
    private readonly owner: TransientIndex<TaskQueue>,
    private readonly tenant: string,
    private readonly taskId: string,
    first: Promise<unknown>,
  ) {
    this.tail = first;
    first.then(this.settled, this.settled);
  }

  add(next: Promise<unknown>): void {
    this.#pending++;
    this.tail = next;
    next.then(this.settled, this.settled);
  }

  readonly settled = (): void => {
    if (--this.#pending === 0) this.owner.delete(this.tenant, this.taskId);
  };
}

/** The per-task queues of a TaskManager, by tenant, then task id; a queue is gone once idle. */
export class PerTaskOrder {
  readonly #queues = new TransientIndex<TaskQueue>();

  /** Runs `fn` after every earlier change of the same task has finished. */
  run<T>(tenant: string, taskId: string, fn: () => Promise<T>): Promise<T> {
    const queue = this.#queues.get(tenant, taskId);
    if (queue) {
      const result = queue.tail.then(fn, fn);
      queue.add(result);
      return result;
    }
    const result = fn();
    this.#queues.set(tenant, taskId, new TaskQueue(this.#queues, tenant, taskId, result));
    return result;
  }
}
