/** Event-bus events for the bus tests: a WORKING status update that names its version. */
import { TaskState } from '../../src/model/enums.js';
import type { TaskEvent } from '../../src/core/event-bus/event-bus.js';

/**
 * Version `version` of task `taskId`: a WORKING status update carrying the version in its
 * metadata, and `pad` too when given (to make it large).
 */
export function workingEvent(taskId: string, version: number, pad?: string): TaskEvent {
  return {
    taskId,
    version,
    state: TaskState.WORKING,
    response: {
      statusUpdate: {
        taskId,
        contextId: 'c',
        status: { state: TaskState.WORKING },
        metadata: pad ? { version, pad } : { version },
      },
    },
  };
}
