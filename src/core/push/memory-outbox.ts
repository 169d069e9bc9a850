/**
 * A {@link PushOutbox} in process memory, beside the memory stores. It is not durable: like the
 * memory task store, everything it holds is lost when the process ends, so "at least once"
 * holds only while the process lives. Use a SQL store's outbox to survive restarts.
 */
import type { StreamResponse, TaskPushNotificationConfig } from '../../model/schema.js';
import { newId } from '../../model/ids.js';
import { MemoryPushConfigStore } from '../stores/memory/push-config-store.js';
import type { PushConfigStore } from '../stores/push-config-store.js';
import type { SaveChange, StoredTask, TaskStore } from '../stores/task-store.js';
import type {
  PushAttempt,
  PushDelivery,
  PushDeliveryQuery,
  PushDeliveryState,
  PushOutbox,
  PushSettlement,
} from './outbox.js';

/** Options of {@link MemoryPushOutbox}. */
export interface MemoryPushOutboxOptions {
  /**
   * Most deliveries pending at once. A notification enqueued beyond it is recorded dead
   * ("the outbox is full") at once, so the task change still succeeds and order is kept.
   * @default 100000
   */
  maxPending?: number;
  /** Most delivered or dead deliveries kept for the operator view (oldest forgotten first). @default 10000 */
  maxFinished?: number;
  /** Most attempts recorded per delivery. @default 50 */
  maxAttemptsRecorded?: number;
}

/** Most configs of one task that get a notification (the config list is read page by page). */
const MAX_CONFIGS_PER_TASK = 1000;

interface Entry {
  id: string;
  tenant: string;
  owner: string;
  taskId: string;
  configId: string;
  seq: number;
  payload: string;
  generation: number;
  state: PushDeliveryState;
  attempts: number;
  createdAtMs: number;
  nextAttemptAtMs: number;
  lastError?: string;
  leaseOwner?: string;
  leaseUntilMs: number;
}

/** The memory outbox; it reads a task's configs from `configs` when a change is saved. */
export class MemoryPushOutbox implements PushOutbox {
  /** Only this process writes here: the worker waits for onEnqueued instead of polling. */
  readonly processLocal = true;
  readonly #configs: PushConfigStore;
  readonly #maxPending: number;
  readonly #maxFinished: number;
  readonly #maxAttemptsRecorded: number;
  readonly #byId = new Map<string, Entry>();
  /** Pending deliveries per config (`tenant NUL task NUL config`), in `seq` order. */
  readonly #queues = new Map<string, Entry[]>();
  /** Delivered or dead ids, oldest settled first. */
  readonly #finished = new Set<string>();
  readonly #attempts = new Map<string, PushAttempt[]>();
  readonly #listeners: (() => void)[] = [];
  #pending = 0;
  #seq = 0;

  constructor(configs: PushConfigStore, options: MemoryPushOutboxOptions = {}) {
    this.#configs = configs;
    this.#maxPending = options.maxPending ?? 100_000;
    this.#maxFinished = options.maxFinished ?? 10_000;
    this.#maxAttemptsRecorded = options.maxAttemptsRecorded ?? 50;
  }

  saveChange(
    store: TaskStore,
    record: StoredTask,
    expectedVersion: number,
    event: StreamResponse | undefined,
    change?: SaveChange,
  ): Promise<void> {
    // No event, or a task without configs in the memory config store (known at once): the
    // save alone, with no list of configs and no await between.
    const configs = this.#configs;
    if (
      !event ||
      (configs instanceof MemoryPushConfigStore &&
        !configs.hasConfigs({ tenant: record.tenant, owner: record.owner }, record.task.id))
    ) {
      return store.save(record, expectedVersion, change);
    }
    return this.#saveAndEnqueue(store, record, expectedVersion, event, change);
  }

  async #saveAndEnqueue(
    store: TaskStore,
    record: StoredTask,
    expectedVersion: number,
    event: StreamResponse,
    change?: SaveChange,
  ): Promise<void> {
    // Read before the save, enqueue right after it without an await between: the memory
    // store's save and this enqueue are one step for every other reader of this process.
    const configs = await this.#configsOf(record);
    await store.save(record, expectedVersion, change);
    if (configs.length === 0) return;
    const payload = JSON.stringify(event);
    const now = Date.now();
    for (const config of configs) this.#add(record, config.id!, payload, now);
    for (const listener of this.#listeners) listener();
  }

  claim(workerId: string, limit: number, leaseMs: number): Promise<PushDelivery[]> {
    const now = Date.now();
    const claimed: PushDelivery[] = [];
    for (const queue of this.#queues.values()) {
      if (claimed.length >= limit) break;
      const head = queue[0]!;
      if (head.nextAttemptAtMs > now || (head.leaseOwner !== undefined && head.leaseUntilMs > now)) continue;
      head.leaseOwner = workerId;
      head.leaseUntilMs = now + leaseMs;
      claimed.push(view(head));
    }
    return Promise.resolve(claimed);
  }

  settle(id: string, workerId: string, attempt: PushAttempt, settlement: PushSettlement): Promise<boolean> {
    const entry = this.#byId.get(id);
    if (!entry || entry.state !== 'pending' || entry.leaseOwner !== workerId) return Promise.resolve(false);
    this.#record(id, attempt);
    entry.attempts++;
    entry.leaseOwner = undefined;
    entry.leaseUntilMs = 0;
    if (settlement.outcome === 'retry') {
      entry.nextAttemptAtMs = settlement.nextAttemptAtMs;
      entry.lastError = settlement.error;
      return Promise.resolve(true);
    }
    if (settlement.outcome === 'dead') entry.lastError = settlement.error;
    else delete entry.lastError;
    this.#finish(entry, settlement.outcome === 'dead' ? 'dead' : 'delivered');
    return Promise.resolve(true);
  }

  renew(id: string, workerId: string, leaseMs: number): Promise<boolean> {
    const entry = this.#byId.get(id);
    if (!entry || entry.state !== 'pending' || entry.leaseOwner !== workerId) return Promise.resolve(false);
    entry.leaseUntilMs = Date.now() + leaseMs;
    return Promise.resolve(true);
  }

  get(id: string): Promise<PushDelivery | undefined> {
    const entry = this.#byId.get(id);
    return Promise.resolve(entry ? view(entry) : undefined);
  }

  list(query: PushDeliveryQuery): Promise<PushDelivery[]> {
    const limit = Math.min(Math.max(1, Math.floor(query.limit)), 1000);
    const found: PushDelivery[] = [];
    // Map order is enqueue order: walk it backwards for newest first.
    const entries = [...this.#byId.values()];
    for (let i = entries.length - 1; i >= 0 && found.length < limit; i--) {
      const entry = entries[i]!;
      if (query.tenant !== undefined && entry.tenant !== query.tenant) continue;
      if (query.taskId !== undefined && entry.taskId !== query.taskId) continue;
      if (query.state !== undefined && entry.state !== query.state) continue;
      found.push(view(entry));
    }
    return Promise.resolve(found);
  }

  attempts(id: string): Promise<PushAttempt[]> {
    return Promise.resolve((this.#attempts.get(id) ?? []).slice());
  }

  replay(id: string): Promise<boolean> {
    const entry = this.#byId.get(id);
    if (!entry || entry.state !== 'dead') return Promise.resolve(false);
    this.#finished.delete(id);
    entry.state = 'pending';
    entry.attempts = 0;
    entry.nextAttemptAtMs = Date.now();
    delete entry.lastError;
    this.#pending++;
    const key = queueKey(entry);
    const queue = this.#queues.get(key);
    if (!queue) this.#queues.set(key, [entry]);
    else {
      let at = queue.length;
      while (at > 0 && queue[at - 1]!.seq > entry.seq) at--;
      // Never before the current head: it may be in flight, and a config sends one at a time.
      queue.splice(Math.max(at, 1), 0, entry);
    }
    for (const listener of this.#listeners) listener();
    return Promise.resolve(true);
  }

  onEnqueued(listener: () => void): void {
    this.#listeners.push(listener);
  }

  nextDueAtMs(): number | undefined {
    let next: number | undefined;
    for (const queue of this.#queues.values()) {
      const head = queue[0]!;
      const at =
        head.leaseOwner !== undefined
          ? Math.max(head.nextAttemptAtMs, head.leaseUntilMs)
          : head.nextAttemptAtMs;
      if (next === undefined || at < next) next = at;
    }
    return next;
  }

  /** Deliveries pending now (for tests and metrics). */
  get pendingCount(): number {
    return this.#pending;
  }

  async #configsOf(record: StoredTask): Promise<TaskPushNotificationConfig[]> {
    const scope = { tenant: record.tenant, owner: record.owner };
    const configs: TaskPushNotificationConfig[] = [];
    let after: string | undefined;
    while (configs.length < MAX_CONFIGS_PER_TASK) {
      const page = await this.#configs.list(scope, record.task.id, 100, after);
      configs.push(...page.configs);
      if (page.nextAfterId === undefined) break;
      after = page.nextAfterId;
    }
    return configs;
  }

  #add(record: StoredTask, configId: string, payload: string, now: number): void {
    const entry: Entry = {
      id: newId(),
      tenant: record.tenant,
      owner: record.owner,
      taskId: record.task.id,
      configId,
      seq: ++this.#seq,
      payload,
      generation: record.version,
      state: 'pending',
      attempts: 0,
      createdAtMs: now,
      nextAttemptAtMs: now,
      leaseUntilMs: 0,
    };
    this.#byId.set(entry.id, entry);
    if (this.#pending >= this.#maxPending) {
      entry.state = 'dead';
      entry.lastError = `the outbox is full (${this.#maxPending} deliveries pending)`;
      this.#remember(entry.id);
      return;
    }
    this.#pending++;
    const key = queueKey(entry);
    const queue = this.#queues.get(key);
    if (queue) queue.push(entry);
    else this.#queues.set(key, [entry]);
  }

  #finish(entry: Entry, state: 'delivered' | 'dead'): void {
    entry.state = state;
    this.#pending--;
    const key = queueKey(entry);
    const queue = this.#queues.get(key);
    if (queue) {
      const at = queue.indexOf(entry);
      if (at >= 0) queue.splice(at, 1);
      if (queue.length === 0) this.#queues.delete(key);
    }
    this.#remember(entry.id);
  }

  #remember(id: string): void {
    this.#finished.add(id);
    while (this.#finished.size > this.#maxFinished) {
      const oldest = this.#finished.values().next().value as string;
      this.#finished.delete(oldest);
      this.#byId.delete(oldest);
      this.#attempts.delete(oldest);
    }
  }

  #record(id: string, attempt: PushAttempt): void {
    let list = this.#attempts.get(id);
    if (!list) this.#attempts.set(id, (list = []));
    list.push(attempt);
    if (list.length > this.#maxAttemptsRecorded) list.shift();
  }
}

function queueKey(entry: Entry): string {
  return `${entry.tenant}\u0000${entry.taskId}\u0000${entry.configId}`;
}

function view(entry: Entry): PushDelivery {
  const out: PushDelivery = {
    id: entry.id,
    tenant: entry.tenant,
    owner: entry.owner,
    taskId: entry.taskId,
    configId: entry.configId,
    seq: entry.seq,
    payload: entry.payload,
    generation: entry.generation,
    state: entry.state,
    attempts: entry.attempts,
    createdAtMs: entry.createdAtMs,
    nextAttemptAtMs: entry.nextAttemptAtMs,
    ...(entry.lastError !== undefined ? { lastError: entry.lastError } : {}),
  };
  return out;
}
