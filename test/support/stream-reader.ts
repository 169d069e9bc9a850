/**
 * Reading a task's event stream the way a client does: every event kept, folded into the
 * task the client believes in (a `task` event replaces it, an artifact update appends or
 * replaces, a status update sets the state), with a wait for a condition on what was read.
 */
import type { TaskState } from '../../src/model/enums.js';
import type { Artifact, StreamResponse } from '../../src/model/schema.js';

/** What a client knows of a task from its stream. */
export interface FoldedTask {
  state: TaskState | undefined;
  /** Artifacts by id, in first-seen order. */
  artifacts: Artifact[];
}

/** Applies one stream event to `view`. */
export function foldEvent(view: FoldedTask, event: StreamResponse): void {
  if (event.task) {
    view.state = event.task.status.state;
    view.artifacts = (event.task.artifacts ?? []).map((a) => ({ ...a, parts: [...a.parts] }));
  } else if (event.statusUpdate) {
    view.state = event.statusUpdate.status.state;
  } else if (event.artifactUpdate) {
    const update = event.artifactUpdate;
    const existing = view.artifacts.find((a) => a.artifactId === update.artifact.artifactId);
    if (existing && update.append) existing.parts.push(...update.artifact.parts);
    else if (existing) Object.assign(existing, { ...update.artifact, parts: [...update.artifact.parts] });
    else view.artifacts.push({ ...update.artifact, parts: [...update.artifact.parts] });
  }
}

/** Artifacts as `id=text of all parts`, for comparing a folded view with GetTask. */
export function artifactTexts(artifacts: readonly Artifact[] | undefined): string[] {
  return (artifacts ?? []).map((a) => `${a.artifactId}=${a.parts.map((p) => p.text ?? '').join('')}`);
}

/** Reads `stream` in the background into `events` and `view`. */
export class StreamReader {
  readonly events: StreamResponse[] = [];
  readonly view: FoldedTask = { state: undefined, artifacts: [] };
  /** Settles when the stream ends (rejects with its error). */
  readonly done: Promise<void>;
  #waiters: { check: () => boolean; resolve: () => void }[] = [];

  constructor(stream: AsyncIterable<StreamResponse>, max = 10_000) {
    this.done = (async () => {
      for await (const event of stream) {
        this.events.push(event);
        foldEvent(this.view, event);
        this.#wake();
        if (this.events.length >= max) break;
      }
    })().finally(() => {
      for (const waiter of this.#waiters.splice(0)) waiter.resolve();
    });
    this.done.catch(() => {});
  }

  /** Resolves once `check()` holds for what was read (or the stream ended). */
  until(check: () => boolean): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ check, resolve }));
  }

  #wake(): void {
    this.#waiters = this.#waiters.filter((waiter) => {
      if (!waiter.check()) return true;
      waiter.resolve();
      return false;
    });
  }
}
