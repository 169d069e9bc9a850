/** An {@link EventBus} within one process: synchronous fan-out to listeners. */
import {
  topicKey,
  type EventBus,
  type TaskEvent,
  type TaskEventListener,
  type TaskTopic,
} from './event-bus.js';

/** Delivers events to listeners in this process, in publish order, synchronously. */
export class InProcessEventBus implements EventBus {
  readonly #listeners = new Map<string, Set<TaskEventListener>>();

  publish(topic: TaskTopic, event: TaskEvent): void {
    const listeners = this.#listeners.get(topicKey(topic));
    if (!listeners) return;
    for (const listener of listeners) {
      try {
        listener(event);
      } catch {
        // A faulty listener must not keep the event from the others.
      }
    }
  }

  subscribe(topic: TaskTopic, listener: TaskEventListener): () => void {
    const key = topicKey(topic);
    let listeners = this.#listeners.get(key);
    if (!listeners) {
      listeners = new Set();
      this.#listeners.set(key, listeners);
    }
    listeners.add(listener);
    return () => {
      const current = this.#listeners.get(key);
      if (!current) return;
      current.delete(listener);
      if (current.size === 0) this.#listeners.delete(key);
    };
  }

  /** Number of topics with listeners; for tests and diagnostics. */
  get topicCount(): number {
    return this.#listeners.size;
  }
}
