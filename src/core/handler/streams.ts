/** The open event streams of SendStreamingMessage and SubscribeToTask: opening, attaching to a task, ending at close. */
import type { ServerCallContext } from '../context.js';
import { TaskEventStream, type StreamQueueLimits } from '../event-bus/task-stream.js';
import { generationOn } from '../generation.js';
import type { LoggedTaskEvent, TaskScope } from '../stores/task-store.js';
import { viewTask } from '../task-view.js';
import type { HandlerDependencies } from './dependencies.js';
import { notFound, shuttingDown } from './refusals.js';

export class OpenStreams {
  readonly #streams = new Set<TaskEventStream>();

  constructor(
    private readonly deps: HandlerDependencies,
    private readonly limits: StreamQueueLimits,
  ) {}

  /** A new stream, ended when the client goes away or the server closes. */
  open(ctx: ServerCallContext, historyLength: number | undefined): TaskEventStream {
    if (this.deps.closed) throw shuttingDown();
    const stream = new TaskEventStream(
      (task) => viewTask(task, historyLength),
      this.limits,
      generationOn(this.deps.generation, ctx),
    );
    this.#streams.add(stream);
    stream.onEnd(() => this.#streams.delete(stream));
    const signal = ctx.signal;
    if (signal) {
      const onAbort = (): void => stream.end();
      if (signal.aborted) stream.end();
      else {
        signal.addEventListener('abort', onAbort, { once: true });
        stream.onEnd(() => signal.removeEventListener('abort', onAbort));
      }
    }
    return stream;
  }

  /**
   * Subscribes `stream` to a task, then starts it with the current snapshot; or, resuming
   * after generation `resumeAfter` (GEN-5), with the logged events after it when the log
   * still holds every one of them (else with the snapshot, which tells the client it missed
   * events that are gone).
   */
  async attach(
    stream: TaskEventStream,
    scope: TaskScope,
    taskId: string,
    closeIfSettled: boolean,
    resumeAfter?: number,
  ): Promise<void> {
    const unsubscribe = this.deps.bus.subscribe(
      { tenant: scope.tenant, taskId, owner: scope.owner },
      stream.handle,
    );
    stream.onEnd(unsubscribe);
    const record = await this.deps.manager.get(scope, taskId);
    if (!record) {
      stream.return();
      throw notFound(taskId);
    }
    if (resumeAfter !== undefined && resumeAfter <= record.version) {
      const events = await this.#logged(scope, taskId, resumeAfter, record.version);
      if (events) {
        stream.resume(events, resumeAfter, record.task.status.state);
        return;
      }
    }
    stream.start(record.task, record.version, closeIfSettled);
  }

  /**
   * The logged events of generations `after + 1` to `upTo` (at least), or undefined when the
   * log lacks any of them (bounded away, purged, or a store without a log).
   */
  async #logged(
    scope: TaskScope,
    taskId: string,
    after: number,
    upTo: number,
  ): Promise<LoggedTaskEvent[] | undefined> {
    const store = this.deps.store;
    const keep = this.deps.generation?.eventLogPerTask ?? 0;
    if (after === upTo) return [];
    if (!store.readEvents || upTo - after > keep) return undefined;
    const events = await store.readEvents(scope, taskId, after, upTo - after);
    // Gap-free from after + 1 to upTo: every version has its entry.
    if (events.length !== upTo - after || events[0]!.generation !== after + 1) return undefined;
    return events;
  }

  /** Ends every open stream (the server is closing). */
  endAll(): void {
    for (const stream of [...this.#streams]) stream.end();
  }
}
