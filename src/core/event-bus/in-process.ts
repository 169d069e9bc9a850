/** An {@link EventBus} within one process: synchronous fan-out to listeners. */
import type { EventBus, TaskEvent, TaskEventListener, TaskTopic } from './event-bus.js';

/** The listeners of one topic: one function (the common case) or several. */
type Listeners = TaskEventListener | Set<TaskEventListener>;

/** Delivers events to listeners in this process, in publish order, synchronously. */
export class InProcessEventBus implements EventBus {
  /** Listeners by tenant, then task id (no joined key strings on the hot path). */
  readonly #topics = new Map<string, Map<string, Listeners>>();

  publish(topic: TaskTopic, event: TaskEvent): void {
    const listeners = this.#topics.get(topic.tenant)?.get(topic.taskId);
    if (listeners === undefined) return;
    if (typeof listeners === 'function') {
      deliver(listeners, event);
      return;
    }
    for (const listener of listeners) deliver(listener, event);
  }

  subscribe(topic: TaskTopic, listener: TaskEventListener): () => void {
    const { tenant, taskId } = topic;
    let byTask = this.#topics.get(tenant);
    if (!byTask) {
      byTask = new Map();
      this.#topics.set(tenant, byTask);
    }
    const current = byTask.get(taskId);
    if (current === undefined) byTask.set(taskId, listener);
    else if (typeof current === 'function') byTask.set(taskId, new Set([current, listener]));
    else current.add(listener);
    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      this.#unsubscribe(tenant, taskId, listener);
    };
  }

  #unsubscribe(tenant: string, taskId: string, listener: TaskEventListener): void {
    const byTask = this.#topics.get(tenant);
    const current = byTask?.get(taskId);
    if (!byTask || current === undefined) return;
    if (typeof current === 'function') {
      if (current !== listener) return;
      byTask.delete(taskId);
    } else {
      current.delete(listener);
      if (current.size > 0) return;
      byTask.delete(taskId);
    }
    if (byTask.size === 0) this.#topics.delete(tenant);
  }

  /** Number of topics with listeners; for tests and diagnostics. */
  get topicCount(): number {
    let n = 0;
    for (const byTask of this.#topics.values()) n += byTask.size;
    return n;
  }
}

function deliver(listener: TaskEventListener, event: TaskEvent): void {
  try {
    listener(event);
  } catch {
    // A faulty listener must not keep the event from the others.
  }
}
