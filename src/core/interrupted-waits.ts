/**
 * The bounded wait of INPUT_REQUIRED and AUTH_REQUIRED tasks, as TaskManager keeps it: timed
 * when a task enters (or re-enters) such a state, untimed when it leaves, failed through the
 * manager's own update when the wait is over; on a shared store, scanned for the waits of
 * replicas gone for good.
 */
import { isInterruptedState } from '../model/enums.js';
import { expiryChange, InterruptedTaskScan, InterruptedTaskTimer, refOf } from './interrupted-timer.js';
import type { InterruptedTaskRef, StoredTask, TaskScope, TaskStore } from './stores/task-store.js';
import type { TaskChange } from './task-changes.js';

/** TaskManager.update, as the waits use it to fail a task. */
export type UpdateTask = (
  scope: TaskScope,
  taskId: string,
  change: (current: StoredTask) => TaskChange,
) => Promise<StoredTask>;

/** The timed waits of one TaskManager (made only when waits are bounded). */
export class InterruptedWaits {
  readonly #timer: InterruptedTaskTimer;
  readonly #scan: InterruptedTaskScan | undefined;

  constructor(
    private readonly timeoutMs: number,
    store: TaskStore,
    private readonly update: UpdateTask,
    private readonly onExpired: ((record: StoredTask) => void) | undefined,
  ) {
    this.#timer = new InterruptedTaskTimer(timeoutMs, (ref) => void this.#expire(ref));
    const listBefore = store.listInterruptedBefore?.bind(store);
    if (listBefore) this.#scan = new InterruptedTaskScan(timeoutMs, listBefore, this.#expire);
    store.listInterrupted?.().then(
      (refs) => this.#timer.recover(refs),
      () => {
        // Without the list, tasks interrupted before this start wait until resumed.
      },
    );
  }

  /** Times a new task that starts interrupted. */
  created(record: StoredTask): void {
    if (isInterruptedState(record.task.status.state)) this.#timer.arm(refOf(record));
  }

  /** Arms or disarms the wait of a task after a change (cheap for tasks never interrupted). */
  changed(previous: StoredTask, record: StoredTask): void {
    if (isInterruptedState(record.task.status.state)) {
      // A new interrupted status (entered, or re-entered with a new question) restarts the wait.
      if (record.task.status !== previous.task.status) this.#timer.arm(refOf(record));
    } else if (isInterruptedState(previous.task.status.state)) {
      this.#timer.disarm(record.tenant, record.task.id);
    }
  }

  /** Stops timing (the handler's close()). */
  close(): void {
    this.#timer.close();
    this.#scan?.close();
  }

  /**
   * Fails a task whose interrupted wait is over (see {@link expiryChange}); a wait found not
   * over is timed again.
   */
  readonly #expire = async (ref: InterruptedTaskRef): Promise<void> => {
    let stillWaiting: StoredTask | undefined;
    let record: StoredTask;
    try {
      record = await this.update(
        { tenant: ref.tenant, owner: ref.owner },
        ref.taskId,
        expiryChange(this.timeoutMs, (current) => (stillWaiting = current)),
      );
    } catch {
      // Not due yet (a newer interrupted status, written elsewhere): wait again. Resumed, gone,
      // or a store failure: nothing to do here (a restart's listInterrupted finds it again).
      if (stillWaiting) this.#timer.arm(refOf(stillWaiting));
      return;
    }
    this.onExpired?.(record);
  };
}
