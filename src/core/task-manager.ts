/**
 * The only writer of tasks. Every change goes through {@link TaskManager.update}: it runs
 * in per-task order, checks the state machine, stamps `status.timestamp`, saves to the
 * TaskStore first and publishes on the EventBus after, so a subscriber that reads the
 * task after an event sees at least that event's state.
 */
import { formatTimestamp } from '../model/timestamp.js';
import { InvalidAgentResponseError } from '../errors/a2a-error.js';
import { isInterruptedState, isTerminalState, Role, TaskState, TASK_STATE_NAMES } from '../model/enums.js';
import { newId } from '../model/ids.js';
import type { Artifact, Message, StreamResponse, Task, TaskStatus } from '../model/schema.js';
import { canTransition, explainTransition } from '../model/state-machine.js';
import type { EventBus, TaskEvent } from './event-bus/event-bus.js';
import {
  TaskVersionConflictError,
  type InterruptedTaskRef,
  type StoredTask,
  type TaskScope,
  type TaskStore,
} from './stores/task-store.js';
import {
  addSizes,
  artifactSize,
  checkTaskSize,
  DEFAULT_MAX_TASK_BYTES,
  DEFAULT_MAX_TASK_PARTS,
  messageSize,
  partsSize,
  remember,
  taskSize,
  type TaskLimits,
  type TaskSize,
} from './task-size.js';
import { ownArtifact, snapshotTask } from './task-snapshot.js';
import type { PushChangeWriter } from './push/outbox.js'; // PUSH HOOK (issue 12)

/** How many times a change is retried when another writer (replica) changed the task meanwhile. */
const MAX_CONFLICT_RETRIES = 8;

/** A change computed from the current task: the new task document and the event to stream. */
export interface TaskChange {
  readonly task: Task;
  /** The streamed form of the change; omit for changes that are not streamed. */
  readonly response?: StreamResponse;
  /**
   * What the change added to history and artifacts. Changes append to the current task's
   * arrays in place (an append costs the same whatever the task's size), so they must say
   * what they added: it is checked against the task caps and kept as the task's new size.
   */
  readonly grew?: TaskSize;
  /** Not checked against the caps (a client message: the body limit bounds it already). */
  readonly uncapped?: boolean;
  /** Undoes the in-place appends when the change is not saved. */
  readonly rollback?: () => void;
}

/** Fields of a new task. */
export interface NewTask {
  readonly id: string;
  readonly contextId: string;
  readonly state: TaskState;
  /** The agent's status message, if the task starts with one. */
  readonly statusMessage?: Message;
  /** Initial history (the client's message). */
  readonly history: Message[];
  /** Initial artifacts (an agent that answers at once with a result). */
  readonly artifacts?: Artifact[];
  readonly metadata?: Record<string, unknown>;
}

/** Thrown when an event would break the state machine or the artifact rules. */
export class IllegalTaskEventError extends InvalidAgentResponseError {}

/** How long an interrupted task waits for the client by default: one hour. */
export const DEFAULT_INTERRUPTED_TIMEOUT_MS = 60 * 60 * 1000;

/** Options of {@link TaskManager}. */
export interface TaskManagerOptions {
  /**
   * How long a task may stay in `TASK_STATE_INPUT_REQUIRED` or `TASK_STATE_AUTH_REQUIRED`,
   * counted from its `status.timestamp`, before it is failed. `0` or `Infinity` waits forever.
   * @default Infinity (the DefaultRequestHandler passes {@link DEFAULT_INTERRUPTED_TIMEOUT_MS})
   */
  interruptedTimeoutMs?: number;
  /** Called once an interrupted task has been failed for waiting too long (persisted and published). */
  onInterruptedExpired?: (record: StoredTask) => void;
  /**
   * Most parts (history message parts plus artifact parts) one task may hold; an agent event
   * that would pass it is refused with InvalidAgentResponseError and changes nothing.
   * @default 200000
   */
  maxTaskParts?: number;
  /**
   * Most JSON characters (about bytes) of history and artifacts one task may hold; enforced
   * like `maxTaskParts`. @default 67108864 (64 MiB)
   */
  maxTaskBytes?: number;
}

/** The longest delay setTimeout accepts (about 24.8 days); longer waits take several timers in turn. */
const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/** An interrupted task's wait is not over (it was resumed, re-entered, or is gone): no change. */
class WaitNotExpired extends Error {}

/**
 * The interrupted tasks of this process in the order their waits end, with a single unref'd
 * timer for the first. The timeout is the same for every task, so the order in which tasks
 * entered their interrupted state (Map insertion order, re-arming moves a task to the end) is
 * the order of their deadlines: arming and disarming are O(1) and thousands of waiting tasks
 * cost one timer. Deadlines come from the stored `statusTimeMs`, so tasks found in the store
 * at start (interrupted before a restart) are timed exactly like the ones written here.
 * Entries are hints: the expiry re-reads the task and changes it only when its wait is over.
 */
class InterruptedTaskTimer {
  /** Waiting tasks by `tenant NUL taskId`, oldest status first. */
  #waiting = new Map<string, InterruptedTaskRef>();
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(
    private readonly timeoutMs: number,
    private readonly expire: (ref: InterruptedTaskRef) => void,
  ) {}

  /** Starts (or restarts, after a new interrupted status) the wait of a task. */
  arm(ref: InterruptedTaskRef): void {
    if (this.#closed) return;
    const key = waitKey(ref.tenant, ref.taskId);
    this.#waiting.delete(key);
    this.#waiting.set(key, ref);
    // A timer already set is due no later than this entry's deadline (it was armed for an
    // older one): nothing to change.
    if (!this.#timer) this.#schedule();
  }

  /** Ends the wait of a task that left its interrupted state. */
  disarm(tenant: string, taskId: string): void {
    // The timer is left as it is: if it was set for this task it fires, finds nothing due
    // and is set again for the next one. Cheaper than clearing it on every resume.
    this.#waiting.delete(waitKey(tenant, taskId));
  }

  /** Adds tasks found waiting in the store at start; the ones armed since then win. */
  recover(refs: readonly InterruptedTaskRef[]): void {
    if (this.#closed || refs.length === 0) return;
    const merged: InterruptedTaskRef[] = [];
    for (const ref of refs) if (!this.#waiting.has(waitKey(ref.tenant, ref.taskId))) merged.push(ref);
    merged.push(...this.#waiting.values());
    merged.sort((a, b) => a.statusTimeMs - b.statusTimeMs);
    this.#waiting = new Map(merged.map((ref) => [waitKey(ref.tenant, ref.taskId), ref]));
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#schedule();
  }

  /** Stops timing: clears the timer and forgets every task. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#waiting.clear();
  }

  #schedule(): void {
    const first = this.#waiting.values().next();
    if (first.done) return;
    const delay = first.value.statusTimeMs + this.timeoutMs - Date.now();
    this.#timer = setTimeout(this.#fire, Math.min(Math.max(delay, 0), MAX_TIMER_DELAY_MS));
    this.#timer.unref();
  }

  readonly #fire = (): void => {
    this.#timer = undefined;
    if (this.#closed) return;
    const now = Date.now();
    const due: InterruptedTaskRef[] = [];
    for (const [key, ref] of this.#waiting) {
      if (ref.statusTimeMs + this.timeoutMs > now) break;
      this.#waiting.delete(key);
      due.push(ref);
    }
    this.#schedule();
    for (const ref of due) this.expire(ref);
  };
}

function waitKey(tenant: string, taskId: string): string {
  return `${tenant}\u0000${taskId}`;
}

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

/** Applies events to tasks, persists, then publishes. */
export class TaskManager {
  /** Per-task queues by tenant, then task id. */
  readonly #queues = new Map<string, Map<string, TaskQueue>>();
  /** Times interrupted tasks; undefined when they may wait forever. */
  readonly #interrupted: InterruptedTaskTimer | undefined;
  readonly #interruptedTimeoutMs: number;
  readonly #onInterruptedExpired: ((record: StoredTask) => void) | undefined;
  readonly #limits: TaskLimits;
  /** PUSH HOOK (issue 12): when set, every save goes through it to enqueue its notifications. */
  #push: PushChangeWriter | undefined;

  constructor(
    readonly store: TaskStore,
    readonly bus: EventBus,
    options: TaskManagerOptions = {},
  ) {
    const timeoutMs = options.interruptedTimeoutMs ?? Infinity;
    if (typeof timeoutMs !== 'number' || Number.isNaN(timeoutMs) || timeoutMs < 0) {
      throw new RangeError(
        `interruptedTimeoutMs must be a number of milliseconds >= 0 (0 or Infinity: no limit), got ${String(timeoutMs)}`,
      );
    }
    this.#interruptedTimeoutMs = timeoutMs;
    this.#limits = {
      maxParts: positiveLimit(options.maxTaskParts, DEFAULT_MAX_TASK_PARTS, 'maxTaskParts'),
      maxBytes: positiveLimit(options.maxTaskBytes, DEFAULT_MAX_TASK_BYTES, 'maxTaskBytes'),
    };
    this.#onInterruptedExpired = options.onInterruptedExpired;
    if (timeoutMs > 0 && Number.isFinite(timeoutMs)) {
      this.#interrupted = new InterruptedTaskTimer(timeoutMs, (ref) => void this.#expire(ref));
      const listed = store.listInterrupted?.();
      if (listed) {
        listed.then(
          (refs) => this.#interrupted?.recover(refs),
          () => {
            // Without the list, tasks interrupted before this start wait until resumed.
          },
        );
      }
    }
  }

  /**
   * PUSH HOOK (issue 12): from now on every change is saved through `writer`, which enqueues
   * the change's push notifications in the same write (see PushChangeWriter).
   */
  attachPushOutbox(writer: PushChangeWriter): void {
    this.#push = writer;
  }

  /** PUSH HOOK (issue 12): `store.save`, through the push outbox when one is attached. */
  #save(record: StoredTask, expectedVersion: number, event: StreamResponse | undefined): Promise<void> {
    return this.#push
      ? this.#push.saveChange(this.store, record, expectedVersion, event)
      : this.store.save(record, expectedVersion);
  }

  /** Stops timing interrupted tasks (the handler's close()). */
  close(): void {
    this.#interrupted?.close();
  }

  /** Reads a task the caller may see. */
  get(scope: TaskScope, id: string): Promise<StoredTask | undefined> {
    return this.store.get(scope, id);
  }

  /** Creates a task and publishes it as a `task` event. */
  create(scope: TaskScope, init: NewTask): Promise<StoredTask> {
    if (!isKnownState(init.state) || init.state === TaskState.UNSPECIFIED) {
      return Promise.reject(new IllegalTaskEventError(`a task cannot start in ${String(init.state)}`));
    }
    return this.#serialize(scope.tenant, init.id, async () => {
      const now = Date.now();
      const status: TaskStatus = { state: init.state, timestamp: formatTimestamp(now) };
      if (init.statusMessage) status.message = init.statusMessage;
      // Own arrays: later changes append to them in place.
      const history = init.statusMessage ? [...init.history, init.statusMessage] : init.history.slice();
      const artifacts = (init.artifacts ?? []).map(ownArtifact);
      const task: Task = { id: init.id, contextId: init.contextId, status, history, artifacts };
      if (init.metadata) task.metadata = init.metadata;
      const size = taskSize(task);
      checkTaskSize(task.id, size, this.#limits);
      const record: StoredTask = {
        tenant: scope.tenant,
        owner: scope.owner,
        task,
        version: 1,
        statusTimeMs: now,
      };
      const response: StreamResponse = { task: snapshotTask(task) };
      await this.#save(record, 0, response); // PUSH HOOK (issue 12): was store.save(record, 0)
      if (this.#interrupted && isInterruptedState(init.state)) this.#interrupted.arm(refOf(record));
      const pending = this.bus.publish(
        { tenant: scope.tenant, taskId: task.id },
        { taskId: task.id, version: 1, state: init.state, response },
      );
      if (pending) await pending;
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
   */
  update(
    scope: TaskScope,
    taskId: string,
    change: (current: StoredTask) => TaskChange,
    latest?: StoredTask,
  ): Promise<StoredTask> {
    return this.#serialize(scope.tenant, taskId, async () => {
      for (let attempt = 0; ; attempt++) {
        const current =
          attempt === 0 && latest?.task.id === taskId ? latest : await this.store.get(scope, taskId);
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
        const statusTimeMs =
          task.status === current.task.status ? current.statusTimeMs : statusTime(task, current);
        const record: StoredTask = {
          tenant: current.tenant,
          owner: current.owner,
          task,
          version: current.version + 1,
          statusTimeMs,
        };
        try {
          await this.#save(record, current.version, response); // PUSH HOOK (issue 12): was store.save
        } catch (error) {
          changed.rollback?.();
          if (error instanceof TaskVersionConflictError && attempt < MAX_CONFLICT_RETRIES) continue;
          throw error;
        }
        if (size) remember(task, size);
        if (this.#interrupted) this.#timeInterrupted(current, record);
        if (response) {
          const pending = this.bus.publish(
            { tenant: scope.tenant, taskId },
            { taskId, version: record.version, state: task.status.state, response },
          );
          if (pending) await pending;
        }
        return record;
      }
    });
  }

  /** Moves a task to `state` with an optional status message (added to history too). */
  setStatus(
    scope: TaskScope,
    taskId: string,
    state: TaskState,
    message?: Message,
    metadata?: Record<string, unknown>,
    latest?: StoredTask,
  ): Promise<StoredTask> {
    return this.update(
      scope,
      taskId,
      (current) => statusChange(current.task, state, message, metadata),
      latest,
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
    } = {},
  ): Promise<StoredTask> {
    return this.update(
      scope,
      taskId,
      (current) => artifactChange(current.task, artifact, options),
      options.latest,
    );
  }

  /**
   * Records a client message on an existing task. An interrupted task moves back to
   * WORKING (the client answered), which is published as a status update.
   */
  addClientMessage(scope: TaskScope, taskId: string, message: Message): Promise<StoredTask> {
    return this.update(scope, taskId, (current) => {
      const task = current.task;
      if (isTerminalState(task.status.state)) {
        throw new IllegalTaskEventError(`task is ${task.status.state}; it accepts no more messages`);
      }
      const grew = messageSize(message);
      const { history, rollback } = appendMessage(task, message);
      if (!isInterruptedState(task.status.state)) {
        return { task: { ...task, history }, grew, uncapped: true, rollback };
      }
      const status: TaskStatus = { state: TaskState.WORKING, timestamp: '' };
      const next: Task = { ...task, history, status };
      return {
        task: next,
        response: { statusUpdate: { taskId, contextId: task.contextId ?? '', status } },
        grew,
        uncapped: true,
        rollback,
      };
    });
  }

  /** Arms or disarms the wait of a task after a change (cheap for tasks never interrupted). */
  #timeInterrupted(previous: StoredTask, record: StoredTask): void {
    const state = record.task.status.state;
    if (isInterruptedState(state)) {
      // A new interrupted status (entered, or re-entered with a new question) restarts the wait.
      if (record.task.status !== previous.task.status) this.#interrupted!.arm(refOf(record));
    } else if (isInterruptedState(previous.task.status.state)) {
      this.#interrupted!.disarm(record.tenant, record.task.id);
    }
  }

  /**
   * Fails a task whose interrupted wait is over. The check runs on the stored task inside the
   * task's serialized section (and the save is compare-and-set), so a resume that got there
   * first, another replica's expiry, or a newer interrupted status leaves it alone.
   *
   * Why FAILED: CANCELED means someone canceled the task (CancelTask, or the agent on a
   * client's behalf) and makes a later CancelTask succeed as if the client had asked; REJECTED
   * means the agent declined the work. Here the task could not finish because the input it
   * needed never came within the server's limit: it "finished with an error" (the proto's
   * FAILED). The agent-role status message says so, so a client can tell it from an agent fault.
   */
  async #expire(ref: InterruptedTaskRef): Promise<void> {
    const scope: TaskScope = { tenant: ref.tenant, owner: ref.owner };
    const timeoutMs = this.#interruptedTimeoutMs;
    let stillWaiting: StoredTask | undefined;
    let record: StoredTask;
    try {
      record = await this.update(scope, ref.taskId, (current) => {
        const state = current.task.status.state;
        if (!isInterruptedState(state)) throw new WaitNotExpired();
        if (current.statusTimeMs + timeoutMs > Date.now()) {
          stillWaiting = current;
          throw new WaitNotExpired();
        }
        return statusChange(
          current.task,
          TaskState.FAILED,
          waitExpiredMessage(current.task, timeoutMs),
          undefined,
        );
      });
    } catch {
      // Not due yet (a newer interrupted status, written elsewhere): wait again. Resumed, gone,
      // or a store failure: nothing to do here (a restart's listInterrupted finds it again).
      if (stillWaiting) this.#interrupted?.arm(refOf(stillWaiting));
      return;
    }
    this.#onInterruptedExpired?.(record);
  }

  /** Publishes that an execution ended leaving the task in `state` (no store change). */
  publishExecutionEnded(scope: TaskScope, record: StoredTask): Promise<void> {
    return this.#serialize(scope.tenant, record.task.id, () =>
      this.#publish(scope.tenant, {
        taskId: record.task.id,
        version: record.version,
        state: record.task.status.state,
        executionEnded: true,
      }),
    );
  }

  async #publish(tenant: string, event: TaskEvent): Promise<void> {
    const pending = this.bus.publish({ tenant, taskId: event.taskId }, event);
    if (pending) await pending;
  }

  /** Runs `fn` after every earlier change of the same task has finished. */
  #serialize<T>(tenant: string, taskId: string, fn: () => Promise<T>): Promise<T> {
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

function refOf(record: StoredTask): InterruptedTaskRef {
  return {
    tenant: record.tenant,
    owner: record.owner,
    taskId: record.task.id,
    statusTimeMs: record.statusTimeMs,
  };
}

/** The agent status message of a task failed for waiting too long. */
function waitExpiredMessage(task: Task, timeoutMs: number): Message {
  const state = task.status.state === TaskState.AUTH_REQUIRED ? 'authorization' : 'input';
  return {
    messageId: newId(),
    role: Role.AGENT,
    parts: [
      {
        text: `The task waited for ${state} (${task.status.state}) longer than this server allows (${formatDuration(timeoutMs)}) and was ended. Send a new message without taskId to start again.`,
      },
    ],
    taskId: task.id,
    contextId: task.contextId ?? '',
  };
}

/** `3600000` → `1 h`, `90000` → `90 s`, `50` → `50 ms`. */
function formatDuration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}

function isKnownState(state: unknown): state is TaskState {
  return typeof state === 'string' && (TASK_STATE_NAMES as readonly string[]).includes(state);
}

/** Stamps the new status with a timestamp that never goes back in time for this task. */
function statusTime(task: Task, current: StoredTask): number {
  const ms = Math.max(Date.now(), current.statusTimeMs);
  task.status.timestamp = formatTimestamp(ms);
  return ms;
}

/** The change that moves `task` to `state`; throws when the state machine refuses it. */
export function statusChange(
  task: Task,
  state: TaskState,
  message: Message | undefined,
  metadata: Record<string, unknown> | undefined,
): TaskChange {
  if (!isKnownState(state) || state === TaskState.UNSPECIFIED) {
    throw new IllegalTaskEventError(`${String(state)} is not a state a task can enter`);
  }
  const from = task.status.state;
  if (!canTransition(from, state)) throw new IllegalTaskEventError(explainTransition(from, state));
  const status: TaskStatus = { state, timestamp: '' };
  if (message) status.message = message;
  const next: Task = { ...task, status };
  const event: StreamResponse = {
    statusUpdate: { taskId: task.id, contextId: task.contextId ?? '', status },
  };
  if (metadata) event.statusUpdate.metadata = metadata;
  if (!message) return { task: next, response: event };
  const grew = messageSize(message);
  const { history, rollback } = appendMessage(task, message);
  next.history = history;
  return { task: next, response: event, grew, rollback };
}

/** Appends `message` to the task's history array in place (see {@link TaskChange.grew}). */
function appendMessage(task: Task, message: Message): { history: Message[]; rollback: () => void } {
  const history = task.history ?? [];
  const length = history.length;
  history.push(message);
  return { history, rollback: () => void (history.length = length) };
}

function positiveLimit(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || Number.isNaN(value) || value < 1) {
    throw new RangeError(`${name} must be a number >= 1 (Infinity: no limit), got ${String(value)}`);
  }
  return value;
}

/** The change that adds or extends an artifact; throws on a duplicate id or a missing append target. */
function artifactChange(
  task: Task,
  artifact: Artifact,
  options: { append?: boolean; lastChunk?: boolean; metadata?: Record<string, unknown> },
): TaskChange {
  if (isTerminalState(task.status.state)) {
    throw new IllegalTaskEventError(
      `task is ${task.status.state}, a terminal state; it takes no more artifacts`,
    );
  }
  // Appended in place (the current task's arrays belong to it; see TaskChange.grew), so a
  // chunk costs the same whatever the artifact's size. The newest artifact is the usual target.
  const artifacts = task.artifacts ?? [];
  const last = artifacts.length - 1;
  const index =
    last >= 0 && artifacts[last]!.artifactId === artifact.artifactId
      ? last
      : artifacts.findIndex((a) => a.artifactId === artifact.artifactId);
  let grew: TaskSize;
  let rollback: () => void;
  if (options.append) {
    if (index < 0) {
      throw new IllegalTaskEventError(`append to artifact ${artifact.artifactId}, which was never sent`);
    }
    const existing = artifacts[index]!;
    grew = partsSize(artifact.parts);
    const parts = existing.parts;
    const length = parts.length;
    for (const part of artifact.parts) parts.push(part);
    if (artifact.metadata || artifact.name !== undefined || artifact.description !== undefined) {
      const merged: Artifact = { ...existing, parts };
      if (artifact.metadata) merged.metadata = { ...existing.metadata, ...artifact.metadata };
      if (artifact.name !== undefined) merged.name = artifact.name;
      if (artifact.description !== undefined) merged.description = artifact.description;
      artifacts[index] = merged;
    }
    rollback = () => {
      parts.length = length;
      artifacts[index] = existing;
    };
  } else {
    if (index >= 0) {
      throw new IllegalTaskEventError(
        `artifact ${artifact.artifactId} was already sent; use append to extend it (artifactId is unique within a task)`,
      );
    }
    grew = artifactSize(artifact);
    const length = artifacts.length;
    artifacts.push(ownArtifact(artifact));
    rollback = () => void (artifacts.length = length);
  }
  const update: StreamResponse = {
    artifactUpdate: { taskId: task.id, contextId: task.contextId ?? '', artifact },
  };
  if (options.append) update.artifactUpdate.append = true;
  if (options.lastChunk) update.artifactUpdate.lastChunk = true;
  if (options.metadata) update.artifactUpdate.metadata = options.metadata;
  return { task: { ...task, artifacts }, response: update, grew, rollback };
}

/**
 * The task as returned to a client: history cut to the last `historyLength` messages
 * (0 omits it, undefined keeps all), `artifacts` omitted when not wanted, and empty lists
 * omitted (ProtoJSON drops empty repeated fields). The arrays are copied (the stored task's
 * grow in place, and the view may be encoded later); the messages and parts are shared:
 * never mutate them.
 */
export function viewTask(task: Task, historyLength?: number, includeArtifacts = true): Task {
  const out: Task = { id: task.id, contextId: task.contextId, status: task.status };
  if (includeArtifacts && task.artifacts && task.artifacts.length > 0) {
    out.artifacts = task.artifacts.map(ownArtifact);
  }
  const history = task.history;
  if (history && history.length > 0 && historyLength !== 0) {
    out.history =
      historyLength === undefined || historyLength >= history.length
        ? history.slice()
        : history.slice(-historyLength);
  }
  if (task.metadata) out.metadata = task.metadata;
  return out;
}
