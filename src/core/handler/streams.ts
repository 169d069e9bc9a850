/** The open event streams of SendStreamingMessage and SubscribeToTask: opening, attaching to a task, ending at close. */
import type { ServerCallContext } from '../context.js';
import { TaskEventStream, type StreamQueueLimits } from '../event-bus/task-stream.js';
import type { TaskScope } from '../stores/task-store.js';
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
    const stream = new TaskEventStream((task) => viewTask(task, historyLength), this.limits);
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

  /** Subscribes `stream` to a task, then starts it with the current snapshot. */
  async attach(
    stream: TaskEventStream,
    scope: TaskScope,
    taskId: string,
    closeIfSettled: boolean,
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
    stream.start(record.task, record.version, closeIfSettled);
  }

  /** Ends every open stream (the server is closing). */
  endAll(): void {
    for (const stream of [...this.#streams]) stream.end();
  }
}
