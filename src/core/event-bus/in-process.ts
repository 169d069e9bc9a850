/** An {@link EventBus} within one process: synchronous fan-out to listeners. */
import { TransientIndex } from '../transient-map.js';
import type { EventBus, TaskEvent, TaskEventListener, TaskTopic } from './event-bus.js';

/** The listeners of one topic: one function (the common case) or several. */
type Listeners = TaskEventListener | Set<TaskEventListener>;

/** Delivers events to listeners in this process, in publish order, synchronously. */
export class InProcessEventBus implements EventBus {
  /** Listeners by tenant, then task id (no joined key strings on the hot path). */
  readonly #topics = new TransientIndex<Listeners>();

  publish(topic: TaskTopic, event: TaskEvent): void {
    const listeners = this.#topics.get(topic.tenant, topic.taskId);
    if (listeners === undefined) return;
    if (typeof listeners === 'function') {
      deliver(listeners, event);
      return;
    }
    for (const listener of listeners) deliver(listener, event);
  }

  subscribe(topic: TaskTopic, listener: TaskEventListener): () => void {
    const { tenant, taskId } = topic;
    const current = this.#topics.get(tenant, taskId);
    if (current === undefined) this.#topics.set(tenant, taskId, listener);
    else if (typeof current === 'function') this.#topics.set(tenant, taskId, new Set([current, listener]));
    else current.add(listener);
    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      this.#unsubscribe(tenant, taskId, listener);
    };
  }

  #unsubscribe(tenant: string, taskId: string, listener: TaskEventListener): void {
    const current = this.#topics.get(tenant, taskId);
    if (current === undefined) return;
    if (typeof current === 'function') {
      if (current !== listener) return;
    } else {
      current.delete(listener);
      if (current.size > 0) return;
    }
    this.#topics.delete(tenant, taskId);
  }

  /** Number of topics with listeners; for tests and diagnostics. */
  get topicCount(): number {
    return this.#topics.size;
  }
}

function deliver(listener: TaskEventListener, event: TaskEvent): void {
  try {
    listener(event);
  } catch {
    // A faulty listener must not keep the event from the others.
  }
}
