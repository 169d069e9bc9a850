/**
 * One open stream of a task's events (SendStreamingMessage or SubscribeToTask), fed by the
 * EventBus. It begins with a Task snapshot, skips events the snapshot already contains,
 * keeps bus order, and ends after a terminal state or INPUT_REQUIRED (D3), or at
 * AUTH_REQUIRED once the agent's execution has returned. The consumer stopping early only
 * unsubscribes; it never affects the task.
 */
import { UnavailableError } from '../../errors/a2a-error.js';
import { isTerminalState, TaskState } from '../../model/enums.js';
import type { Message, Part, StreamResponse, Task } from '../../model/schema.js';
import type { TaskEvent } from './event-bus.js';
import { stampEvent, stampTask } from '../generation.js';
import type { LoggedTaskEvent } from '../stores/task-store.js';

/** Default bound of one stream's unread events. */
export const DEFAULT_STREAM_QUEUE_EVENTS = 10_000;
/** Default bound of one stream's unread events' size (approximate bytes): 16 MiB. */
export const DEFAULT_STREAM_QUEUE_BYTES = 16 * 1024 * 1024;

/** How many unread events a stream holds before its subscriber is dropped. */
export interface StreamQueueLimits {
  readonly maxEvents: number;
  readonly maxBytes: number;
}

/**
 * Async iterator over StreamResponses with a bounded in-memory queue. A consumer that falls
 * behind by more than the limits is ended with an error at once (its queue dropped): the
 * producer (the agent) is never slowed, and the client can resubscribe and reconcile with
 * GetTask.
 */
export class TaskEventStream implements AsyncIterableIterator<StreamResponse> {
  #queue: StreamResponse[] = [];
  #head = 0;
  /** Approximate bytes of the unread events in `#queue` (reset when it empties). */
  #queuedBytes = 0;
  readonly #limits: StreamQueueLimits;
  #waiter: { resolve: (r: IteratorResult<StreamResponse>) => void; reject: (e: unknown) => void } | undefined;
  #ended = false;
  #error: unknown;
  #hasError = false;
  #started = false;
  #pending: TaskEvent[] = [];
  #lastVersion = 0;
  #lastState: TaskState | undefined;
  readonly #cleanups: (() => void)[] = [];
  readonly #view: (task: Task) => Task;
  /** A2A 1.1 draft (GEN-2): every event carries the task's generation. */
  readonly #generation: boolean;

  /**
   * `view` shapes Task snapshots (historyLength). `generation`: stamp each event with the
   * task's generation (a call that opted in to the A2A 1.1 draft).
   */
  constructor(
    view: (task: Task) => Task,
    limits: StreamQueueLimits = {
      maxEvents: DEFAULT_STREAM_QUEUE_EVENTS,
      maxBytes: DEFAULT_STREAM_QUEUE_BYTES,
    },
    generation = false,
  ) {
    this.#view = view;
    this.#limits = limits;
    this.#generation = generation;
  }

  /** The task snapshot as streamed. */
  #snapshot(task: Task, version: number): StreamResponse {
    const view = this.#view(task);
    return { task: this.#generation ? stampTask(view, version) : view };
  }

  /** Registers something to undo when the stream ends (unsubscribe, listener removal). */
  onEnd(cleanup: () => void): void {
    if (this.#ended) cleanup();
    else this.#cleanups.push(cleanup);
  }

  /** True once no more events will be queued. */
  get ended(): boolean {
    return this.#ended;
  }

  /** Bus listener: queues `event` (or holds it until the snapshot is known). */
  readonly handle = (event: TaskEvent): void => {
    if (this.#ended) return;
    if (!this.#started) this.#pending.push(event);
    else this.#apply(event);
  };

  /**
   * Emits the Task snapshot first, then the held events newer than it. A terminal snapshot
   * ends the stream. An INPUT_REQUIRED snapshot ends it only when `isEvent` (the snapshot is
   * the event that created the task in that state, as in SendStreamingMessage); the initial
   * snapshot of a subscription never closes it.
   */
  start(task: Task, version: number, isEvent: boolean): void {
    if (this.#ended) return;
    this.#started = true;
    this.#lastVersion = version;
    this.#lastState = task.status.state;
    this.#push(this.#snapshot(task, version));
    if (isTerminalState(task.status.state) || (isEvent && task.status.state === TaskState.INPUT_REQUIRED)) {
      this.end();
      return;
    }
    this.#applyHeld();
  }

  /**
   * Starts a resumed stream (GEN-5) without a snapshot: `events` are the logged events after
   * the client's last one (`after`), in order and gap-free; then the held and live ones follow.
   * `state`: the task's state as read with the log (used when there is nothing to replay).
   * Ends like a live stream: after a terminal state, or INPUT_REQUIRED reached by a replayed event.
   */
  resume(events: readonly LoggedTaskEvent[], after: number, state: TaskState): void {
    if (this.#ended) return;
    this.#started = true;
    this.#lastVersion = after;
    this.#lastState = state;
    let replayed = false;
    for (const event of events) {
      if (event.generation <= this.#lastVersion) continue;
      this.#lastVersion = event.generation;
      this.#lastState = event.state;
      replayed = true;
      if (event.response) this.#push(this.#stamped(event.response, event.generation));
    }
    if (isTerminalState(this.#lastState) || (replayed && this.#lastState === TaskState.INPUT_REQUIRED)) {
      this.end();
      return;
    }
    this.#applyHeld();
  }

  #applyHeld(): void {
    const held = this.#pending;
    this.#pending = [];
    for (const event of held) {
      if (this.#ended) break;
      this.#apply(event);
    }
  }

  /** An event as streamed: snapshots shaped by the view; the generation when asked for. */
  #stamped(response: StreamResponse, version: number): StreamResponse {
    if (response.task) return this.#snapshot(response.task, version);
    return this.#generation ? stampEvent(response, version) : response;
  }

  /** Emits exactly one Message and ends (a direct reply). */
  startWithMessage(message: Message): void {
    if (this.#ended) return;
    this.#started = true;
    this.#pending = [];
    this.#push({ message });
    this.end();
  }

  #apply(event: TaskEvent): void {
    if (event.endNotRecorded !== undefined) {
      this.fail(endNotRecordedError(event.taskId, event.endNotRecorded));
      return;
    }
    if (event.executionEnded) {
      if (event.version >= this.#lastVersion && this.#lastState === TaskState.AUTH_REQUIRED) this.end();
      return;
    }
    if (event.version <= this.#lastVersion) return;
    this.#lastVersion = event.version;
    this.#lastState = event.state;
    if (event.response) this.#push(this.#stamped(event.response, event.version));
    if (isTerminalState(event.state) || event.state === TaskState.INPUT_REQUIRED) this.end();
  }

  #push(item: StreamResponse): void {
    const waiter = this.#waiter;
    if (waiter) {
      this.#waiter = undefined;
      waiter.resolve({ value: item, done: false });
      return;
    }
    this.#queue.push(item);
    this.#queuedBytes += eventBytes(item);
    const unread = this.#queue.length - this.#head;
    if (unread > this.#limits.maxEvents || this.#queuedBytes > this.#limits.maxBytes) this.#overflow(unread);
  }

  /** The consumer fell too far behind: drop what it did not read and end with an error. */
  #overflow(unread: number): void {
    const bytes = this.#queuedBytes;
    this.#queue = [];
    this.#head = 0;
    this.#queuedBytes = 0;
    this.fail(
      new UnavailableError(
        `this stream fell behind: ${unread} events (about ${bytes} bytes) waited unread, more than the server buffers per stream (${this.#limits.maxEvents} events, ${this.#limits.maxBytes} bytes); the task goes on: resubscribe (SubscribeToTask) and reconcile with GetTask`,
      ),
    );
  }

  /** No more events: the consumer still receives what is queued, then the end. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#pending = [];
    for (const cleanup of this.#cleanups.splice(0)) {
      try {
        cleanup();
      } catch {
        // cleanup must not break ending
      }
    }
    const waiter = this.#waiter;
    if (waiter && this.#head >= this.#queue.length) {
      this.#waiter = undefined;
      if (this.#hasError) waiter.reject(this.#error);
      else waiter.resolve({ value: undefined, done: true });
    }
  }

  /** Ends the stream with an error, delivered after the queued events. */
  fail(error: unknown): void {
    if (this.#ended) return;
    this.#hasError = true;
    this.#error = error;
    this.end();
  }

  next(): Promise<IteratorResult<StreamResponse>> {
    if (this.#head < this.#queue.length) {
      const value = this.#queue[this.#head]!;
      this.#queue[this.#head++] = undefined as unknown as StreamResponse;
      if (this.#head === this.#queue.length) {
        this.#queue = [];
        this.#head = 0;
        this.#queuedBytes = 0;
      } else if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
        this.#queue = this.#queue.slice(this.#head);
        this.#head = 0;
      }
      return Promise.resolve({ value, done: false });
    }
    if (this.#ended) {
      if (this.#hasError) {
        this.#hasError = false;
        return Promise.reject(this.#error);
      }
      return Promise.resolve({ value: undefined, done: true });
    }
    return new Promise((resolve, reject) => {
      this.#waiter = { resolve, reject };
    });
  }

  /** The consumer stopped: drop what is queued and unsubscribe. The task is not affected. */
  return(): Promise<IteratorResult<StreamResponse>> {
    this.#queue = [];
    this.#head = 0;
    this.#queuedBytes = 0;
    this.#hasError = false;
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}

/**
 * Approximate encoded size of an event: its parts' payloads plus a fixed overhead. Cheap
 * (no encoding); data parts are measured as JSON, once, when they are queued unread.
 */
function eventBytes(event: StreamResponse): number {
  let bytes = 256;
  if (event.artifactUpdate) bytes += partsBytes(event.artifactUpdate.artifact.parts);
  else if (event.statusUpdate) bytes += partsBytes(event.statusUpdate.status.message?.parts);
  else if (event.message) bytes += partsBytes(event.message.parts);
  else if (event.task) {
    for (const artifact of event.task.artifacts ?? []) bytes += partsBytes(artifact.parts);
    for (const message of event.task.history ?? []) bytes += partsBytes(message.parts);
  }
  return bytes;
}

function partsBytes(parts: readonly Part[] | undefined): number {
  let bytes = 0;
  for (const part of parts ?? []) {
    bytes += 32;
    if (part.text !== undefined) bytes += part.text.length;
    else if (part.raw !== undefined) bytes += part.raw.length;
    else if (part.url !== undefined) bytes += part.url.length;
    else if (part.data !== undefined) bytes += jsonLength(part.data);
  }
  return bytes;
}

function jsonLength(value: unknown): number {
  try {
    return JSON.stringify(value)?.length ?? 0;
  } catch {
    return 0;
  }
}

/** The error a stream (or a waiting SendMessage) ends with when its task's end could not be written. */
export function endNotRecordedError(taskId: string, reason: string): UnavailableError {
  return new UnavailableError(
    `the agent's execution of task ${taskId} ended, but the server could not record how (${reason}); the task is failed once the store accepts writes again: read it with GetTask`,
  );
}
