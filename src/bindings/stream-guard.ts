/**
 * The one path every binding's stream events take: unknown StreamResponse members are skipped
 * (CLI-STREAM-4), each event is decoded alike ({@link decodeStreamResponse}), and every task
 * event must name the same task (the one subscribed to, or the one the first event introduced).
 */
import type { StreamResponse } from '../model/schema.js';
import { decodeStreamResponse } from './http/decode.js';
import { A2AInvalidResponseError } from '../errors/client-errors.js';

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

/**
 * Decodes and guards a binding's raw stream events (parsed JSON or decoded protobuf), the same
 * way on every binding. `what` names the operation in error messages.
 */
export async function* decodeStream(
  raw: AsyncIterable<unknown>,
  what: string,
  expectedTaskId?: string,
): AsyncGenerator<StreamResponse, void, undefined> {
  yield* guardTask(decodeAll(raw, what), expectedTaskId);
}

async function* decodeAll(raw: AsyncIterable<unknown>, what: string): AsyncGenerator<StreamResponse> {
  for await (const value of raw) {
    if (hasKnownMember(value)) yield decodeStreamResponse(value, `${what} stream event`);
  }
}
