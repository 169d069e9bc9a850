/** Per-task order: the changes of one task run one after another, those of different tasks freely. */

/** The changes of one task waiting to run, in order; gone when the last one settles. */
class TaskQueue {
  /** The latest change (it may reject: the next one runs either way). */
  tail: Promise<unknown>;
  #pending = 1;

  constructor(
    private readonly owner: Map<string, TaskQueue>,
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
    if (--this.#pending === 0) {
      this.owner.delete(this.taskId);
    }
  };
}

/** The per-task queues of a TaskManager, by tenant, then task id; a queue is gone once idle. */
export class PerTaskOrder {
  readonly #queues = new Map<string, Map<string, TaskQueue>>();

  /** Runs `fn` after every earlier change of the same task has finished. */
  run<T>(tenant: string, taskId: string, fn: () => Promise<T>): Promise<T> {
    let byTask = this.#queues.get(tenant);
    if (!byTask) {
      byTask = new Map();
      this.#queues.set(tenant, byTask);
    }
    const queue = byTask.get(taskId);
    if (queue) {
      const result = queue.tail.then(fn, fn);
      queue.add(result);
      return result;
    }
    const result = fn();
    byTask.set(taskId, new TaskQueue(byTask, taskId, result));
    return result;
  }
}
