/**
 * The only writer of tasks. Every change goes through {@link TaskManager.update}: it runs
 * in per-task order, checks the state machine, stamps `status.timestamp`, saves to the
 * TaskStore first and publishes on the EventBus after, so a subscriber that reads the
 * task after an event sees at least that event's state.
 */
import { InvalidAgentResponseError } from '../errors/a2a-error.js';
import { isInterruptedState, isTerminalState, TaskState, TASK_STATE_NAMES } from '../model/enums.js';
import type { Artifact, Message, StreamResponse, Task, TaskStatus } from '../model/schema.js';
import { canTransition, explainTransition } from '../model/state-machine.js';
import type { EventBus, TaskEvent } from './event-bus/event-bus.js';
import {
  TaskVersionConflictError,
  type StoredTask,
  type TaskScope,
  type TaskStore,
} from './stores/task-store.js';

/** How many times a change is retried when another writer (replica) changed the task meanwhile. */
const MAX_CONFLICT_RETRIES = 8;

/** A change computed from the current task: the new task document and the event to stream. */
export interface TaskChange {
  readonly task: Task;
  /** The streamed form of the change; omit for changes that are not streamed. */
  readonly response?: StreamResponse;
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

  constructor(
    readonly store: TaskStore,
    readonly bus: EventBus,
  ) {}

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
      const status: TaskStatus = { state: init.state, timestamp: isoTime(now) };
      if (init.statusMessage) status.message = init.statusMessage;
      const history = init.statusMessage ? [...init.history, init.statusMessage] : init.history;
      const task: Task = {
        id: init.id,
        contextId: init.contextId,
        status,
        history,
        artifacts: init.artifacts ?? [],
      };
      if (init.metadata) task.metadata = init.metadata;
      const record: StoredTask = {
        tenant: scope.tenant,
        owner: scope.owner,
        task,
        version: 1,
        statusTimeMs: now,
      };
      await this.store.save(record, 0);
      const pending = this.bus.publish(
        { tenant: scope.tenant, taskId: task.id },
        { taskId: task.id, version: 1, state: init.state, response: { task } },
      );
      if (pending) await pending;
      return record;
    });
  }

  /**
   * Applies `change` to the current task, in per-task order. `change` may throw to refuse
   * (nothing is written). `statusChanged` tells whether to stamp a new status timestamp.
   */
  update(scope: TaskScope, taskId: string, change: (current: StoredTask) => TaskChange): Promise<StoredTask> {
    return this.#serialize(scope.tenant, taskId, async () => {
      for (let attempt = 0; ; attempt++) {
        const current = await this.store.get(scope, taskId);
        if (!current) throw new IllegalTaskEventError(`task ${taskId} does not exist`);
        const { task, response } = change(current);
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
          await this.store.save(record, current.version);
        } catch (error) {
          if (error instanceof TaskVersionConflictError && attempt < MAX_CONFLICT_RETRIES) continue;
          throw error;
        }
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
  ): Promise<StoredTask> {
    return this.update(scope, taskId, (current) => statusChange(current.task, state, message, metadata));
  }

  /** Adds an artifact, or appends a chunk to one. */
  addArtifact(
    scope: TaskScope,
    taskId: string,
    artifact: Artifact,
    options: { append?: boolean; lastChunk?: boolean; metadata?: Record<string, unknown> } = {},
  ): Promise<StoredTask> {
    return this.update(scope, taskId, (current) => artifactChange(current.task, artifact, options));
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
      const history = [...(task.history ?? []), message];
      if (!isInterruptedState(task.status.state)) return { task: { ...task, history } };
      const status: TaskStatus = { state: TaskState.WORKING, timestamp: '' };
      const next: Task = { ...task, history, status };
      return {
        task: next,
        response: { statusUpdate: { taskId, contextId: task.contextId ?? '', status } },
      };
    });
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

function isKnownState(state: unknown): state is TaskState {
  return typeof state === 'string' && (TASK_STATE_NAMES as readonly string[]).includes(state);
}

let isoMs = NaN;
let isoText = '';

/** `new Date(ms).toISOString()`, remembering the last one (many changes share a millisecond). */
function isoTime(ms: number): string {
  if (ms !== isoMs) {
    isoText = new Date(ms).toISOString();
    isoMs = ms;
  }
  return isoText;
}

/** Stamps the new status with a timestamp that never goes back in time for this task. */
function statusTime(task: Task, current: StoredTask): number {
  const ms = Math.max(Date.now(), current.statusTimeMs);
  task.status.timestamp = isoTime(ms);
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
  if (message) next.history = [...(task.history ?? []), message];
  const event: StreamResponse = {
    statusUpdate: { taskId: task.id, contextId: task.contextId ?? '', status },
  };
  if (metadata) event.statusUpdate.metadata = metadata;
  return { task: next, response: event };
}

/** The change that adds or extends an artifact; throws on a duplicate id or a missing append target. */
export function artifactChange(
  task: Task,
  artifact: Artifact,
  options: { append?: boolean; lastChunk?: boolean; metadata?: Record<string, unknown> },
): TaskChange {
  if (isTerminalState(task.status.state)) {
    throw new IllegalTaskEventError(
      `task is ${task.status.state}, a terminal state; it takes no more artifacts`,
    );
  }
  const artifacts = task.artifacts ?? [];
  const index = artifacts.findIndex((a) => a.artifactId === artifact.artifactId);
  let nextArtifacts: Artifact[];
  if (options.append) {
    if (index < 0) {
      throw new IllegalTaskEventError(`append to artifact ${artifact.artifactId}, which was never sent`);
    }
    const existing = artifacts[index]!;
    const merged: Artifact = { ...existing, parts: [...existing.parts, ...artifact.parts] };
    if (artifact.metadata) merged.metadata = { ...existing.metadata, ...artifact.metadata };
    if (artifact.name !== undefined) merged.name = artifact.name;
    if (artifact.description !== undefined) merged.description = artifact.description;
    nextArtifacts = artifacts.slice();
    nextArtifacts[index] = merged;
  } else {
    if (index >= 0) {
      throw new IllegalTaskEventError(
        `artifact ${artifact.artifactId} was already sent; use append to extend it (artifactId is unique within a task)`,
      );
    }
    nextArtifacts = [...artifacts, artifact];
  }
  const update: StreamResponse = {
    artifactUpdate: { taskId: task.id, contextId: task.contextId ?? '', artifact },
  };
  if (options.append) update.artifactUpdate.append = true;
  if (options.lastChunk) update.artifactUpdate.lastChunk = true;
  if (options.metadata) update.artifactUpdate.metadata = options.metadata;
  return { task: { ...task, artifacts: nextArtifacts }, response: update };
}

/**
 * The task as returned to a client: history cut to the last `historyLength` messages
 * (0 omits it, undefined keeps all), `artifacts` omitted when not wanted, and empty lists
 * omitted (ProtoJSON drops empty repeated fields). Shares the stored objects; never mutate.
 */
export function viewTask(task: Task, historyLength?: number, includeArtifacts = true): Task {
  const out: Task = { id: task.id, contextId: task.contextId, status: task.status };
  if (includeArtifacts && task.artifacts && task.artifacts.length > 0) out.artifacts = task.artifacts;
  const history = task.history;
  if (history && history.length > 0 && historyLength !== 0) {
    out.history =
      historyLength === undefined || historyLength >= history.length
        ? history
        : history.slice(-historyLength);
  }
  if (task.metadata) out.metadata = task.metadata;
  return out;
}
