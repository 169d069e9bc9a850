/**
 * The TaskManager's staged changes (the agent's events on a store that stages, see
 * {@link TaskStore.stage}): each task's events are published in order, each only once its
 * write is durable, and none after a write that failed.
 */
import type { EventBus, TaskEvent } from './event-bus/event-bus.js';
import type { StreamResponse } from '../model/schema.js';
import type { PushChangeWriter } from './push/outbox.js';
import type { SaveChange, StoredTask, TaskStore } from './stores/task-store.js';

/** The write of a staged change (see {@link stagedWriteOf}), on the record it made. */
const STAGED_WRITE = Symbol('staged write');

/** A record made by a staged change. */
interface StagedRecord extends StoredTask {
  [STAGED_WRITE]?: Promise<void>;
}

/**
 * For a record returned by a staged change (`staged: true`, on a store that stages: SQLite):
 * settles once the change is durable and its event published, or rejects when it was not
 * written (then neither it nor any later staged change of the task is published). Undefined
 * for a record saved before it was returned.
 */
export function stagedWriteOf(record: StoredTask): Promise<void> | undefined {
  return (record as StagedRecord)[STAGED_WRITE];
}

/** The staged changes of one task whose events are not all published yet. */
export interface StagedTask {
  /** The task's latest record in this process (staged, or saved after the staged ones). */
  record: StoredTask;
  /** Settles after the latest staged change was published; rejects once one was not written. */
  tail: Promise<void>;
  /** Staged changes not yet settled. */
  pending: number;
  /** Why a staged change was not written (the chain is broken). */
  failed?: unknown;
}

/**
 * Most staged changes of one task waiting for the disk: a change past it returns only once
 * written, so an agent faster than the disk is slowed to its pace (and memory stays bounded).
 */
const MAX_STAGED_CHANGES = 64;

const RESOLVED: Promise<void> = Promise.resolve();

function noop(): void {}

/** The tasks of one TaskManager with staged changes not yet published. */
export class StagedChanges {
  /** By `tenant NUL taskId`; a task's entry is gone once its last staged change settled. */
  readonly #tasks = new Map<string, StagedTask>();

  constructor(private readonly bus: EventBus) {}

  /** The staged changes of a task, when some are not published yet. */
  of(tenant: string, taskId: string): StagedTask | undefined {
    return this.#tasks.size === 0 ? undefined : this.#tasks.get(key(tenant, taskId));
  }

  /**
   * Chains a staged change after the task's earlier ones: `event` (if any) is published once
   * `written` resolved and every earlier event of the task was; not at all once a write
   * failed. Resolves when the caller may go on: at once, or once written when too many wait.
   */
  add(
    tenant: string,
    record: StoredTask,
    written: Promise<void>,
    event: TaskEvent | undefined,
  ): Promise<void> {
    const taskId = record.task.id;
    const k = key(tenant, taskId);
    const entry = this.#tasks.get(k) ?? { record, tail: RESOLVED, pending: 0 };
    if (entry.pending === 0) this.#tasks.set(k, entry);
    entry.record = record;
    entry.pending++;
    // A bus that fails to deliver loses the live event only (the change is durable): the chain goes on.
    const publish = event
      ? (): Promise<void> | undefined => this.bus.publish({ tenant, taskId }, event)?.catch(noop)
      : undefined;
    // Behind a failed change `written` is never awaited through the chain: observed here, so
    // its own rejection (a version conflict, the chain being broken) is never unhandled. Seen
    // in the fault suite as an exit 1 after a failed write (issue 26).
    written.catch(noop);
    const link = entry.tail.then(() => written).then(publish);
    entry.tail = link;
    const settled = (): void => {
      if (--entry.pending === 0 && this.#tasks.get(k) === entry) this.#tasks.delete(k);
    };
    link.then(settled, (error: unknown) => {
      entry.failed ??= error;
      settled();
    });
    (record as StagedRecord)[STAGED_WRITE] = link;
    return entry.pending > MAX_STAGED_CHANGES ? written.catch(noop) : RESOLVED;
  }

  /**
   * A change of the task was saved (not staged) after `pending`'s changes: it is their
   * successor here (or, when their chain broke, the task's truth). Resolves once the staged
   * events before it are published, so its own event follows theirs.
   */
  savedAfter(tenant: string, pending: StagedTask, record: StoredTask): Promise<void> {
    if (pending.failed === undefined) pending.record = record;
    else {
      const k = key(tenant, record.task.id);
      if (this.#tasks.get(k) === pending) this.#tasks.delete(k);
    }
    return pending.tail.catch(noop);
  }

  /** Resolves once the task's staged events so far are published (or their chain broke). */
  published(tenant: string, taskId: string): Promise<void> {
    return this.of(tenant, taskId)?.tail.catch(noop) ?? RESOLVED;
  }
}

/** A write-behind save of a change and its event (see `TaskStore.stage`). */
export type StageWrite = (
  record: StoredTask,
  expectedVersion: number,
  event: StreamResponse | undefined,
  change?: SaveChange,
) => Promise<void>;

/** The stage of `store`, when it has one. */
export function stagerOf(store: TaskStore): StageWrite | undefined {
  if (!store.stage) return undefined;
  return (record, expectedVersion, _event, change) => store.stage!(record, expectedVersion, change);
}

/** The stage of a push outbox writing `store`'s changes, when it has one. */
export function pushStagerOf(push: PushChangeWriter, store: TaskStore): StageWrite | undefined {
  if (!push.stageChange) return undefined;
  return (record, expectedVersion, event, change) =>
    push.stageChange!(store, record, expectedVersion, event, change);
}

function key(tenant: string, taskId: string): string {
  return `${tenant}\u0000${taskId}`;
}
