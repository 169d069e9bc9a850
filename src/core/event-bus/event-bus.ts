/**
 * How task events reach every open stream and waiting request, possibly on another
 * replica. The TaskManager publishes each event after it is persisted, in per-task order.
 */
import type { TaskState } from '../../model/enums.js';
import type { StreamResponse } from '../../model/schema.js';

/** Names one task's event channel. */
export interface TaskTopic {
  readonly tenant: string;
  readonly taskId: string;
  /**
   * The principal owning the task, when the subscriber knows it. A bus that can miss events
   * (a distributed one whose connection dropped) re-reads the task by it to catch up.
   */
  readonly owner?: string;
}

/** One published change of a task (plain JSON, so a distributed bus can carry it). */
export interface TaskEvent {
  readonly taskId: string;
  /** The task's version after this event (stream consumers skip versions they already showed). */
  readonly version: number;
  /** The task's state after this event. */
  readonly state: TaskState;
  /**
   * The event as streamed: `task` when the task was created, else `statusUpdate` or
   * `artifactUpdate`. Absent on an `executionEnded` marker.
   */
  readonly response?: StreamResponse;
  /**
   * Marker: the agent's execute() returned and left the task in `state` (an interrupted
   * state). Streams waiting at AUTH_REQUIRED for an out-of-band credential close on it.
   */
  readonly executionEnded?: boolean;
  /**
   * Marker: the execution ended but its end could not be written (the reason); the task
   * stays as stored until recovery ends it. Streams end with UnavailableError on it.
   */
  readonly endNotRecorded?: string;
}

/** Receives the events of one topic, synchronously and in order. Must not throw. */
export type TaskEventListener = (event: TaskEvent) => void;

/** Publish/subscribe of task events. */
export interface EventBus {
  /** Delivers `event` to every current subscriber of `topic`, in publish order. */
  publish(topic: TaskTopic, event: TaskEvent): void | Promise<void>;
  /** Starts delivering `topic`'s events to `listener`; returns the function that stops it. */
  subscribe(topic: TaskTopic, listener: TaskEventListener): () => void;
  /** Releases resources. */
  close?(): Promise<void>;
  /**
   * True when events published by other processes (replicas) arrive here too; the handler
   * then also listens for cancellations of the tasks it runs. Absent: this process only.
   */
  readonly spansProcesses?: boolean;
}
