/** The client's view of replies and stream events: tagged unions over the proto oneofs. */
import type {
  Message,
  SendMessageResponse,
  StreamResponse,
  Task,
  TaskArtifactUpdateEvent,
  TaskStatus,
  TaskStatusUpdateEvent,
} from '../model/schema.js';

/** The reply to SendMessage: a direct Message or a Task. */
export type SendResult = { kind: 'message'; message: Message } | { kind: 'task'; task: Task };

/** One stream event, tagged by its StreamResponse member. */
export type StreamEvent =
  | { kind: 'task'; task: Task }
  | { kind: 'message'; message: Message }
  | { kind: 'statusUpdate'; statusUpdate: TaskStatusUpdateEvent }
  | { kind: 'artifactUpdate'; artifactUpdate: TaskArtifactUpdateEvent };

/** Turns a SendMessageResponse into a tagged result. */
export function toSendResult(r: SendMessageResponse): SendResult {
  return r.message ? { kind: 'message', message: r.message } : { kind: 'task', task: r.task as Task };
}

/** Turns a StreamResponse into a tagged event. */
export function toStreamEvent(event: StreamResponse): StreamEvent {
  if (event.task) return { kind: 'task', task: event.task };
  if (event.message) return { kind: 'message', message: event.message };
  if (event.statusUpdate) return { kind: 'statusUpdate', statusUpdate: event.statusUpdate };
  return { kind: 'artifactUpdate', artifactUpdate: event.artifactUpdate as TaskArtifactUpdateEvent };
}

/** Turns a tagged event back into its StreamResponse (the inverse of {@link toStreamEvent}). */
export function toStreamResponse(event: StreamEvent): StreamResponse {
  switch (event.kind) {
    case 'task':
      return { task: event.task };
    case 'message':
      return { message: event.message };
    case 'statusUpdate':
      return { statusUpdate: event.statusUpdate };
    default:
      return { artifactUpdate: event.artifactUpdate };
  }
}

/** The status an event carries, if any. */
export function statusOf(event: StreamEvent): TaskStatus | undefined {
  if (event.kind === 'task') return event.task.status;
  if (event.kind === 'statusUpdate') return event.statusUpdate.status;
  return undefined;
}

/** Identifies one status, so a follow yields each state change once. */
export function statusKey(s: TaskStatus): string {
  return `${s.state}|${s.timestamp ?? ''}|${s.message?.messageId ?? ''}`;
}
