/**
 * What the v0.3 servers (JSON-RPC and REST) run: the RequestHandler's own methods, plus the few
 * v0.3 conventions that are not a shape change: a push-config `get` without a config id, `list`
 * answering every config at once, and `final` on the last status event of a stream.
 */
import {
  ExtendedAgentCardNotConfiguredError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '../../errors/a2a-error.js';
import { isTerminalState, TaskState } from '../../model/enums.js';
import type { AgentCard, StreamResponse, TaskPushNotificationConfig } from '../../model/schema.js';
import type { ServerCallContext } from '../../core/context.js';
import type { RequestHandler } from '../../core/handler/request-handler.js';

/** A v1.0 event and whether v0.3 should mark it `final`. */
export interface FinalMarkedEvent {
  readonly event: StreamResponse;
  readonly final: boolean;
}

/** At most this many configs are answered by one v0.3 `list` (pages of 100). */
export const MAX_LISTED_PUSH_CONFIGS = 1000;

/**
 * Marks `final: true` on the status update after which the stream closes (SRV-COMPAT-3 REC, D3):
 * terminal states and INPUT_REQUIRED at once; an AUTH_REQUIRED update is held back until the
 * next event (then `final: false`) or the end of the stream (then `final: true`), because the
 * stream may stay open while the agent waits for an out-of-band credential. A stream that ends on
 * a Task snapshot in such a state (v1.0 sends no status update then) gets one status update
 * with that status and `final: true`, since only status updates can say `final` in v0.3.
 * `return()` reaches
 * the underlying iterator at once, so a client going away never leaves a subscription behind.
 */
export class FinalMarker implements AsyncIterableIterator<FinalMarkedEvent> {
  private readonly inner: AsyncIterator<StreamResponse>;
  /** An AUTH_REQUIRED update waiting to learn whether it is the last one. */
  private held: StreamResponse | undefined;
  /** An event read while releasing `held`, answered by the next call. */
  private queued: StreamResponse | undefined;
  private done = false;
  /** The last event answered, to close a stream that ended on a Task snapshot. */
  private last: StreamResponse | undefined;

  constructor(events: AsyncIterable<StreamResponse>) {
    this.inner = events[Symbol.asyncIterator]();
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async next(): Promise<IteratorResult<FinalMarkedEvent>> {
    for (;;) {
      let event = this.queued;
      this.queued = undefined;
      if (event === undefined) {
        if (this.done) return { done: true, value: undefined };
        const result = await this.inner.next();
        const held = this.held;
        this.held = undefined;
        if (result.done) {
          this.done = true;
          if (held) return { done: false, value: { event: held, final: true } };
          const closing = closingUpdate(this.last);
          if (closing) return { done: false, value: { event: closing, final: true } };
          return { done: true, value: undefined };
        }
        event = result.value;
        if (held) {
          this.queued = event;
          return { done: false, value: { event: held, final: false } };
        }
      }
      const state = event.statusUpdate?.status.state;
      if (state === TaskState.AUTH_REQUIRED) {
        this.held = event;
        continue;
      }
      const final = state !== undefined && closesStream(state);
      this.last = event;
      return { done: false, value: { event, final } };
    }
  }

  async return(): Promise<IteratorResult<FinalMarkedEvent>> {
    this.done = true;
    this.held = undefined;
    this.queued = undefined;
    await this.inner.return?.();
    return { done: true, value: undefined };
  }
}

function closesStream(state: TaskState): boolean {
  return isTerminalState(state) || state === TaskState.INPUT_REQUIRED;
}

/** The status update that ends a stream whose last event was a terminal or interrupted Task. */
function closingUpdate(last: StreamResponse | undefined): StreamResponse | undefined {
  const task = last?.task;
  if (!task || !(closesStream(task.status.state) || task.status.state === TaskState.AUTH_REQUIRED))
    return undefined;
  return {
    statusUpdate: { taskId: task.id, contextId: task.contextId ?? '', status: task.status },
  };
}

/** The handler calls behind the v0.3 operations that need more than one call or a default. */
export class V03Operations {
  constructor(private readonly handler: RequestHandler) {}

  /**
   * A task's push config; without a config id, its first config (v0.3 allowed omitting it).
   */
  async getPushConfig(
    taskId: string,
    configId: string | undefined,
    ctx: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    if (configId) return this.handler.getTaskPushNotificationConfig({ taskId, id: configId }, ctx);
    const page = await this.handler.listTaskPushNotificationConfigs({ taskId, pageSize: 1 }, ctx);
    const first = page.configs?.[0];
    if (!first) throw new TaskNotFoundError(`task ${taskId} has no push notification config`);
    return first;
  }

  /** Every config of a task (v0.3 `list` has no paging), bounded by {@link MAX_LISTED_PUSH_CONFIGS}. */
  async listPushConfigs(taskId: string, ctx: ServerCallContext): Promise<TaskPushNotificationConfig[]> {
    const out: TaskPushNotificationConfig[] = [];
    let pageToken: string | undefined;
    while (out.length < MAX_LISTED_PUSH_CONFIGS) {
      const page = await this.handler.listTaskPushNotificationConfigs(
        { taskId, pageSize: 100, ...(pageToken ? { pageToken } : {}) },
        ctx,
      );
      out.push(...(page.configs ?? []));
      if (!page.nextPageToken) break;
      pageToken = page.nextPageToken;
    }
    return out.slice(0, MAX_LISTED_PUSH_CONFIGS);
  }
}

/**
 * The extended card; v0.3 had one error for "no extended card" (-32007), where v1.0 answers
 * UnsupportedOperation when the card does not offer one.
 */
export async function extendedCard(handler: RequestHandler, ctx: ServerCallContext): Promise<AgentCard> {
  try {
    return await handler.getExtendedAgentCard({}, ctx);
  } catch (error) {
    if (error instanceof UnsupportedOperationError)
      throw new ExtendedAgentCardNotConfiguredError(error.message);
    throw error;
  }
}
