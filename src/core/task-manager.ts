/**
 * The only writer of tasks. Every change goes through {@link TaskManager.update}: it runs
 * in per-task order, checks the state machine, stamps `status.timestamp`, saves to the
 * TaskStore first and publishes on the EventBus after, so a subscriber that reads the
 * task after an event sees at least that event's state.
 */
import { formatTimestamp } from '../model/timestamp.js';
import { isInterruptedState, TaskState } from '../model/enums.js';
import type { Artifact, Message, StreamResponse, Task } from '../model/schema.js';
import type { EventBus, TaskEvent } from './event-bus/event-bus.js';
import { InterruptedWaits, type UpdateTask } from './interrupted-waits.js';
import { withRecord } from './published-records.js';
import { PerTaskOrder } from './per-task-order.js';
import {
  TaskVersionConflictError,
  type SaveChange,
  type StoredTask,
  type TaskScope,
  type TaskStore,
} from './stores/task-store.js';
import {
  artifactChange,
  clientMessageChange,
  IllegalTaskEventError,
  isKnownState,
  statusChange,
  type TaskChange,
} from './task-changes.js';
import { addSizes, checkTaskSize, remember, taskSize, type TaskLimits } from './task-size.js';
import { snapshotRecord, snapshotTask } from './task-snapshot.js';
import { newTaskRecord, type NewTask } from './new-task.js';
import { interruptedTimeoutOf, taskLimitsOf, type TaskManagerOptions } from './task-manager-options.js';
import { pushStagerOf, StagedChanges, stagerOf, type StageWrite } from './staged-changes.js';
import type { PushChangeWriter } from './push/outbox.js'; // PUSH HOOK (issue 12)

export type { NewTask } from './new-task.js';
export type { TaskManagerOptions } from './task-manager-options.js';

/** How many times a change is retried when another writer (replica) changed the task meanwhile. */
const MAX_CONFLICT_RETRIES = 8;

/** Applies events to tasks, persists, then publishes. */
export class TaskManager {
  /** Runs the changes of each task one after another. */
  readonly #order = new PerTaskOrder();
  /** Times interrupted tasks; undefined when they may wait forever. */
  readonly #waits: InterruptedWaits | undefined;
  readonly #limits: TaskLimits;
  /** PUSH HOOK (issue 12): when set, every save goes through it to enqueue its notifications. */
  #push: PushChangeWriter | undefined;
  /** The write-behind save of the agent's changes, when the store (or push outbox) has one. */
  #stage: StageWrite | undefined;
  /** The agent's changes staged and not yet published. */
  readonly #staged: StagedChanges;
  /** Events kept per task in the store's event log (GEN-5); 0: none written. */
  readonly #logKeep: number;

  constructor(
    readonly store: TaskStore,
    readonly bus: EventBus,
    options: TaskManagerOptions = {},
  ) {
    const timeoutMs = interruptedTimeoutOf(options);
    this.#limits = taskLimitsOf(options);
    this.#logKeep = store.readEvents && options.eventLogPerTask ? options.eventLogPerTask : 0;
    this.#stage = stagerOf(store);
    this.#staged = new StagedChanges(bus);
    if (timeoutMs > 0 && Number.isFinite(timeoutMs)) {
      const update: UpdateTask = (scope, taskId, change) => this.update(scope, taskId, change);
      this.#waits = new InterruptedWaits(timeoutMs, store, update, options.onInterruptedExpired);
    }
  }

  /**
   * PUSH HOOK (issue 12): from now on every change is saved through `writer`, which enqueues
   * the change's push notifications in the same write (see PushChangeWriter).
   */
  attachPushOutbox(writer: PushChangeWriter): void {
    this.#push = writer;
    // The outbox writes the rows now: staged only when it stages too (with the notifications).
    this.#stage = pushStagerOf(writer, this.store);
  }

  /** PUSH HOOK (issue 12): `store.save`, through the push outbox when one is attached. */
  #save(
    record: StoredTask,
    expectedVersion: number,
    event: StreamResponse | undefined,
    change?: SaveChange,
  ): Promise<void> {
    return this.#push
      ? this.#push.saveChange(this.store, record, expectedVersion, event, change)
      : this.store.save(record, expectedVersion, change);
  }

  /** Stops timing interrupted tasks (the handler's close()). */
  close(): void {
    this.#waits?.close();
  }

  /**
   * Reads a task the caller may see, as stored once the changes this process staged for it so
   * far are written (so a read after an agent's event never sees an older version).
   */
  get(scope: TaskScope, id: string): Promise<StoredTask | undefined> {
    const staged = this.#staged.of(scope.tenant, id);
    if (!staged) return this.store.get(scope, id);
    const read = (): Promise<StoredTask | undefined> => this.store.get(scope, id);
    return staged.tail.then(read, read);
  }

  /**
   * Creates a task and publishes it as a `task` event. `staged`: see {@link TaskManager.update}.
   */
  create(scope: TaskScope, init: NewTask, staged = false): Promise<StoredTask> {
    if (!isKnownState(init.state) || init.state === TaskState.UNSPECIFIED) {
      return Promise.reject(new IllegalTaskEventError(`a task cannot start in ${String(init.state)}`));
    }
    return this.#order.run(scope.tenant, init.id, async () => {
      const record = newTaskRecord(scope, init, this.#limits);
      const response: StreamResponse = { task: snapshotTask(record.task) };
      const change = this.#logOf(record, response, undefined);
      const stage = staged ? this.#stage : undefined;
      if (stage) {
        const written = stage(record, 0, response, change);
        this.#waits?.created(record);
        return this.#chainStaged(scope.tenant, record, written, response);
      }
      await this.#save(record, 0, response, change); // PUSH HOOK (issue 12): was store.save(record, 0)
      this.#waits?.created(record);
      await this.#publish(
        scope.tenant,
        withRecord({ taskId: init.id, version: 1, state: init.state, response }, record),
      );
      return record;
    });
  }

  /**
   * Applies `change` to the current task, in per-task order. `change` may throw to refuse
   * (nothing is written). A change that replaces `task.status` gets a new status timestamp.
   * `latest`: the record this caller saved last (an execution's previous event), tried as the
   * current task without reading the store; when someone else wrote since, the save's
   * version check refuses it and the change is retried on the stored task. Only the writer of
   * `latest` may pass it: its arrays are extended in place.
   *
   * `staged` (the agent's own events): on a store that stages ({@link TaskStore.stage}), the
   * change is queued and the record returned at once, so the agent's next event can join the
   * same write; its event is published once it is durable, after the task's earlier events.
   * Nothing is told to a client before that: a caller that answers a client with the record
   * waits for {@link stagedWriteOf} first. Elsewhere it is saved as usual.
   */
  update(
    scope: TaskScope,
    taskId: string,
    change: (current: StoredTask) => TaskChange,
    latest?: StoredTask,
    staged = false,
  ): Promise<StoredTask> {
    return this.#order.run(scope.tenant, taskId, async () => {
      for (let attempt = 0; ; attempt++) {
        const pending = this.#staged.of(scope.tenant, taskId);
        // A broken chain: the agent's later events cannot follow the ones that were lost.
        if (staged && pending?.failed !== undefined) throw pending.failed;
        // The newest record in this process is the staged one (the store has it only once
        // written). A change saved otherwise works on a copy: extending the staged record's
        // arrays would put this change into the staged row, which is serialized later.
        const current =
          attempt === 0 && pending && pending.failed === undefined
            ? staged
              ? pending.record
              : snapshotRecord(pending.record)
            : attempt === 0 && latest?.task.id === taskId
              ? latest
              : await this.store.get(scope, taskId);
        if (!current) throw new IllegalTaskEventError(`task ${taskId} does not exist`);
        const before = taskSize(current.task);
        const changed = change(current);
        const { task, response, grew } = changed;
        const size = grew ? addSizes(before, grew) : undefined;
        if (size && !changed.uncapped) {
          try {
            checkTaskSize(taskId, size, this.#limits);
          } catch (error) {
            changed.rollback?.();
            throw error;
          }
        }
        const statusUnchanged = task.status === current.task.status;
        const statusTimeMs = statusUnchanged ? current.statusTimeMs : statusTime(task, current);
        const record: StoredTask = {
          tenant: current.tenant,
          owner: current.owner,
          task,
          version: current.version + 1,
          statusTimeMs,
        };
        const hint = this.#logOf(record, response, {
          statusUnchanged,
          previousState: current.task.status.state,
        });
        const stage = staged ? this.#stage : undefined;
        if (stage) {
          const written = stage(record, current.version, response, hint);
          if (size) remember(task, size);
          this.#waits?.changed(current, record);
          return this.#chainStaged(scope.tenant, record, written, response);
        }
        try {
          // PUSH HOOK (issue 12): was store.save
          await this.#save(record, current.version, response, hint);
        } catch (error) {
          changed.rollback?.();
          if (error instanceof TaskVersionConflictError && attempt < MAX_CONFLICT_RETRIES) continue;
          throw error;
        }
        if (size) remember(task, size);
        this.#waits?.changed(current, record);
        // Saved after staged changes: its event follows theirs.
        if (pending) await this.#staged.savedAfter(scope.tenant, pending, record);
        if (response) {
          const event = withRecord(
            { taskId, version: record.version, state: task.status.state, response },
            record,
          );
          const published = this.bus.publish({ tenant: scope.tenant, taskId }, event);
          if (published) await published;
        }
        return record;
      }
    });
  }

  /**
   * `change` with the event log entry of `record`'s version when the log is on (GEN-5): every
   * version gets one, with its streamed form when it has one. A feature nobody turned on
   * returns `change` as it is and writes nothing more.
   */
  #logOf(
    record: StoredTask,
    response: StreamResponse | undefined,
    change: SaveChange | undefined,
  ): SaveChange | undefined {
    if (this.#logKeep === 0) return change;
    const event = response
      ? { generation: record.version, state: record.task.status.state, response }
      : { generation: record.version, state: record.task.status.state };
    return { statusUnchanged: false, ...change, log: { events: [event], keep: this.#logKeep } };
  }

  /** Hands a staged change's event to the chain of its task (published once written). */
  async #chainStaged(
    tenant: string,
    record: StoredTask,
    written: Promise<void>,
    response: StreamResponse | undefined,
  ): Promise<StoredTask> {
    const state = record.task.status.state;
    // Published later than now: an interrupted task may change again before (a terminal one
    // never does), so its settling event carries a snapshot of this version.
    const event = response
      ? withRecord(
          { taskId: record.task.id, version: record.version, state, response },
          isInterruptedState(state) ? snapshotRecord(record) : record,
        )
      : undefined;
    await this.#staged.add(tenant, record, written, event);
    return record;
  }

  /**
   * Moves a task to `state` with an optional status message (added to history too).
   * `latest`, `staged`: see {@link TaskManager.update}.
   */
  setStatus(
    scope: TaskScope,
    taskId: string,
    state: TaskState,
    message?: Message,
    metadata?: Record<string, unknown>,
    latest?: StoredTask,
    staged = false,
  ): Promise<StoredTask> {
    return this.update(
      scope,
      taskId,
      (current) => statusChange(current.task, state, message, metadata),
      latest,
      staged,
    );
  }

  /** Adds an artifact, or appends a chunk to one. */
  addArtifact(
    scope: TaskScope,
    taskId: string,
    artifact: Artifact,
    options: {
      append?: boolean;
      lastChunk?: boolean;
      metadata?: Record<string, unknown>;
      /** See {@link TaskManager.update}. */
      latest?: StoredTask;
      /** See {@link TaskManager.update}. */
      staged?: boolean;
    } = {},
  ): Promise<StoredTask> {
    return this.update(
      scope,
      taskId,
      (current) => artifactChange(current.task, artifact, options),
      options.latest,
      options.staged === true,
    );
  }

  /**
   * Records a client message on an existing task. An interrupted task moves back to
   * WORKING (the client answered), which is published as a status update. `ifVersion` may
   * throw to refuse the change on the version it is about to replace (nothing is written).
   */
  addClientMessage(
    scope: TaskScope,
    taskId: string,
    message: Message,
    ifVersion?: (current: StoredTask) => void,
  ): Promise<StoredTask> {
    // `ifVersion` (ifGenerationMatch, GEN-4) judges the very version this change is written
    // over: a concurrent write makes the save's compare-and-set fail and the change run again
    // on the new version, so two senders naming the same generation never both pass.
    return this.update(scope, taskId, (current) => {
      ifVersion?.(current);
      return clientMessageChange(current.task, message);
    });
  }

  /**
   * Publishes that an execution ended but its end could not be written (`reason`): streams and
   * waiting calls of the task end with UnavailableError instead of waiting for an end that
   * the store does not have (it is recorded later, by recovery). No store change.
   */
  publishEndNotRecorded(scope: TaskScope, taskId: string, reason: string): Promise<void> {
    return this.#order.run(scope.tenant, taskId, async () => {
      await this.#staged.published(scope.tenant, taskId).catch(() => {});
      const current = await this.store.get(scope, taskId).catch(() => undefined);
      await this.#publish(scope.tenant, {
        taskId,
        version: current?.version ?? 0,
        state: current?.task.status.state ?? TaskState.WORKING,
        endNotRecorded: reason,
      });
    });
  }

  /** Publishes that an execution ended leaving the task in `state` (no store change). */
  publishExecutionEnded(scope: TaskScope, record: StoredTask): Promise<void> {
    return this.#order.run(scope.tenant, record.task.id, async () => {
      await this.#staged.published(scope.tenant, record.task.id);
      await this.#publish(scope.tenant, {
        taskId: record.task.id,
        version: record.version,
        state: record.task.status.state,
        executionEnded: true,
      });
    });
  }

  async #publish(tenant: string, event: TaskEvent): Promise<void> {
    const pending = this.bus.publish({ tenant, taskId: event.taskId }, event);
    if (pending) await pending;
  }
}

/** Stamps the new status with a timestamp that never goes back in time for this task. */
function statusTime(task: Task, current: StoredTask): number {
  const ms = Math.max(Date.now(), current.statusTimeMs);
  task.status.timestamp = formatTimestamp(ms);
  return ms;
}
