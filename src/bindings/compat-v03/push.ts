/**
 * Push payloads in the version a config was registered with (SRV-COMPAT-7 REC, issue 14 item 4).
 *
 * HOOK for the push-delivery issue (delivery does not exist yet): a config created through the
 * v0.3 layer arrives with `ServerCallContext.protocolVersion === '0.3'`; the delivery code must
 * record that version with the config when it is stored (`PushConfigStore.put`) and build each
 * notification with {@link pushPayloadFor} for the recorded version. v0.3 receivers expect the
 * full Task (with `kind: "task"`) as `application/json`, the token in `X-A2A-Notification-Token`;
 * v1.0 receivers a `StreamResponse` as `application/a2a+json`.
 */
import type { StreamResponse, Task } from '../../model/schema.js';
import { isV03Version } from './card.js';
import { taskToV03 } from './content.js';

/** One notification body and its media type. */
export interface PushPayload {
  contentType: string;
  body: string;
}

/** The header v0.3 (and, by N11, v1.0) receivers read the config's token from. */
export const PUSH_TOKEN_HEADER = 'X-A2A-Notification-Token';

/**
 * The body to POST for `event` to a config registered at `version`. A v0.3 receiver always gets
 * the task as it now is (`task`), whatever the event was; a v1.0 receiver gets the event.
 */
export function pushPayloadFor(version: string, event: StreamResponse, task: Task): PushPayload {
  if (isV03Version(version))
    return { contentType: 'application/json', body: JSON.stringify(taskToV03(task)) };
  return { contentType: 'application/a2a+json', body: JSON.stringify(event) };
}
