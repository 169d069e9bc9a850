/**
 * An EventBus decorator that watches the TaskManager's publications (each persisted task
 * event): task state changes are logged at `debug` and counted (`a2a.task.transitions`,
 * `a2a.tasks.active`). The events themselves pass through unchanged.
 */
import type { Logger } from 'pino';
import type { EventBus, TaskEvent, TaskTopic } from '../../core/event-bus/event-bus.js';
import { isTerminalState, type TaskState } from '../../model/enums.js';
import type { ServerInstruments } from './metrics.js';

/** Most tasks whose state is remembered (to notice changes); beyond it new tasks go unwatched. */
const MAX_WATCHED_TASKS = 100_000;

/** Options of {@link observeEventBus}. */
export interface ObserveEventBusOptions {
  logger?: Logger | undefined;
  instruments: ServerInstruments;
}

/** `bus` with task state changes logged and counted as they are published. */
export function observeEventBus(bus: EventBus, options: ObserveEventBusOptions): EventBus {
  const { logger, instruments } = options;
  const states = new Map<string, TaskState>();
  const watch = (topic: TaskTopic, event: TaskEvent): void => {
    const key = `${topic.tenant}\u0000${topic.taskId}`;
    const previous = states.get(key);
    if (previous === event.state) return;
    const terminal = isTerminalState(event.state);
    if (previous !== undefined) instruments.activeTasks.add(-1, { 'a2a.task.state': previous });
    if (terminal) states.delete(key);
    else if (previous !== undefined || states.size < MAX_WATCHED_TASKS) {
      states.set(key, event.state);
      instruments.activeTasks.add(1, { 'a2a.task.state': event.state });
    }
    instruments.taskTransitions.add(1, { 'a2a.task.state': event.state });
    if (logger?.isLevelEnabled('debug')) {
      logger.debug(
        {
          taskId: topic.taskId,
          ...(topic.tenant ? { tenant: topic.tenant } : {}),
          state: event.state,
          ...(previous ? { from: previous } : {}),
          version: event.version,
        },
        'task state',
      );
    }
  };
  const observed: EventBus = {
    publish(topic, event) {
      if (!event.executionEnded && event.endNotRecorded === undefined) watch(topic, event);
      return bus.publish(topic, event);
    },
    subscribe: (topic, listener) => bus.subscribe(topic, listener),
    // A bus shared by replicas stays one to the handler (it listens for remote cancels).
    ...(bus.spansProcesses ? { spansProcesses: true } : {}),
  };
  if (bus.close) observed.close = bus.close.bind(bus);
  return observed;
}
