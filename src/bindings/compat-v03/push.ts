/**
 * Push payloads in the version a config was registered with (SRV-COMPAT-8). The handler records
 * `ServerCallContext.protocolVersion` with each config it stores (`0.3` for every config created
 * through this layer: the set methods of all three v0.3 bindings and the inline config of
 * `message/send` / `message/stream`). The outbox keeps one v1.0 `StreamResponse` per change;
 * the delivery worker asks {@link pushPayloadFor} for the body at send time, so one outbox row
 * feeds v1.0 and v0.3 configs alike.
 */
import { TaskState } from '../../model/enums.js';
import type { StreamResponse, Task } from '../../model/schema.js';
import { isV03Version } from './card.js';
import { streamEventToV03, taskToV03 } from './content.js';

/** One notification body and its media type. */
export interface PushPayload {
  contentType: string;
  body: string;
}

/** The media type of v1.0 notifications (spec §4.3.3). */
export const V10_PUSH_CONTENT_TYPE = 'application/a2a+json';
/** The media type v0.3 servers sent notifications with. */
export const V03_PUSH_CONTENT_TYPE = 'application/json';

/** True when a config registered at `version` is notified in v0.3 form (and wants the task). */
export function isV03PushVersion(version: string | undefined): boolean {
  return isV03Version(version);
}

/** States after which a v0.3 stream would have said `final: true` (terminal, interrupted: D3). */
const FINAL_STATES: ReadonlySet<string> = new Set([
  TaskState.COMPLETED,
  TaskState.FAILED,
  TaskState.CANCELED,
  TaskState.REJECTED,
  TaskState.INPUT_REQUIRED,
  TaskState.AUTH_REQUIRED,
]);

/**
 * The body to POST for `payload` (the outbox's StreamResponse JSON text) to a config registered
 * at `version` (absent: 1.0). A v1.0 config gets `payload` byte for byte. A v0.3 config gets what
 * v0.3 servers sent: the whole task as it now is (`task`, `kind: "task"`, v0.3 states and parts),
 * whatever the event; when the task cannot be read (purged), the event itself in its v0.3 form
 * (`kind: "status-update"` with `final`, `"artifact-update"`, `"task"`, `"message"`).
 */
export function pushPayloadFor(version: string | undefined, payload: string, task?: Task): PushPayload {
  if (!isV03PushVersion(version)) return { contentType: V10_PUSH_CONTENT_TYPE, body: payload };
  if (task) return { contentType: V03_PUSH_CONTENT_TYPE, body: JSON.stringify(taskToV03(task)) };
  const event = JSON.parse(payload) as StreamResponse;
  const state = event.statusUpdate?.status.state;
  const final = state !== undefined && FINAL_STATES.has(state);
  return { contentType: V03_PUSH_CONTENT_TYPE, body: JSON.stringify(streamEventToV03(event, final)) };
}
