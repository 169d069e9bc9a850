/**
 * Checks a stream's events belong together: every task event names the same task (the one
 * subscribed to, or the one the first event introduced). Unknown StreamResponse members
 * are skipped (CLI-STREAM-4).
 */
import type { StreamResponse } from '../model/schema.js';
import { A2AInvalidResponseError } from './errors.js';

const MEMBERS = ['task', 'message', 'statusUpdate', 'artifactUpdate'] as const;

/** True when the raw event has one of the four known members (else it is skipped). */
export function hasKnownMember(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    MEMBERS.some((m) => (value as Record<string, unknown>)[m] !== undefined)
  );
}

/** The task id an event is about, if any. */
export function eventTaskId(event: StreamResponse): string | undefined {
  if (event.task) return event.task.id;
  if (event.statusUpdate) return event.statusUpdate.taskId;
  if (event.artifactUpdate) return event.artifactUpdate.taskId;
  return event.message?.taskId || undefined;
}

/** Wraps `events`, throwing `wrong-task` on an event for another task than `expectedTaskId` / the first seen. */
export async function* guardTask(
  events: AsyncIterable<StreamResponse>,
  expectedTaskId?: string,
): AsyncGenerator<StreamResponse, void, undefined> {
  let taskId = expectedTaskId;
  for await (const event of events) {
    const id = eventTaskId(event);
    if (id !== undefined && !event.message) {
      if (taskId === undefined) taskId = id;
      else if (id !== taskId) {
        throw new A2AInvalidResponseError(
          'wrong-task',
          `the stream sent an event for task ${JSON.stringify(id)} while following task ${JSON.stringify(taskId)}`,
        );
      }
    }
    yield event;
  }
}
