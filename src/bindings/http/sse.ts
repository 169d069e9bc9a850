/**
 * Server-Sent Events writing, shared by the JSON-RPC and REST bindings (G13): one compact
 * `data:` line per event and a blank line, a `:` keep-alive comment every ~20 s, backpressure
 * respected. A client going away stops the iteration (never the task).
 */
import type { ServerResponse } from 'node:http';
import type { StreamResponse } from '../../model/schema.js';
import type { SseSource } from './http-body.js';

/** Response headers of every SSE reply. */
export const SSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
});

/** Default interval between keep-alive comments. */
export const DEFAULT_KEEP_ALIVE_MS = 20_000;

/** The comment line written while no event flows, so proxies keep the connection open. */
export const KEEP_ALIVE_FRAME = ': keep-alive\n\n';

/**
 * One SSE event carrying `json` (which must be a single line: compact JSON is), with an `id:`
 * line when `id` is given (GEN-5: only events of a call that opted in to the draft have one).
 */
export function sseFrame(json: string, id?: string): string {
  return id === undefined ? 'data: ' + json + '\n\n' : 'id: ' + id + '\ndata: ' + json + '\n\n';
}

/**
 * The SSE id of a stream event, `<taskId>:<generation>` (GEN-5), when it carries a generation
 * (only the events of a call that opted in to the A2A 1.1 draft do).
 */
export function sseEventId(event: StreamResponse): string | undefined {
  if (event.statusUpdate?.generation !== undefined) {
    return `${event.statusUpdate.taskId}:${event.statusUpdate.generation}`;
  }
  if (event.artifactUpdate?.generation !== undefined) {
    return `${event.artifactUpdate.taskId}:${event.artifactUpdate.generation}`;
  }
  if (event.task?.generation !== undefined) return `${event.task.id}:${event.task.generation}`;
  return undefined;
}

const STOPPED = Symbol('stopped');

/**
 * Adapts an event iterable to an {@link SseSource}: each event is encoded to one frame; an error
 * thrown by the iterable becomes one last error frame (G5), then the stream ends.
 * `stop()` resolves a pending `next()` at once and calls the iterator's `return()`.
 */
export class IterableSseSource<T> implements SseSource {
  private readonly iterator: AsyncIterator<T>;
  private stopped = false;
  private wake: ((value: typeof STOPPED) => void) | undefined;

  /** `id`: the SSE id of an event, if it has one. */
  constructor(
    events: AsyncIterable<T>,
    private readonly encode: (event: T) => string,
    private readonly encodeError: (error: unknown) => string,
    private readonly id?: (event: T) => string | undefined,
  ) {
    this.iterator = events[Symbol.asyncIterator]();
  }

  async next(): Promise<string | undefined> {
    if (this.stopped) return undefined;
    let result: IteratorResult<T> | typeof STOPPED;
    try {
      const pending = this.iterator.next();
      const stop = new Promise<typeof STOPPED>((resolve) => (this.wake = resolve));
      result = await Promise.race([pending, stop]);
      this.wake = undefined;
      if (result === STOPPED) {
        pending.catch(() => undefined);
        return undefined;
      }
    } catch (error) {
      this.stopped = true;
      return sseFrame(this.encodeError(error));
    }
    if (result.done) {
      this.stopped = true;
      return undefined;
    }
    try {
      return sseFrame(this.encode(result.value), this.id?.(result.value));
    } catch (error) {
      this.stop();
      return sseFrame(this.encodeError(error));
    }
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.wake?.(STOPPED);
    this.wake = undefined;
    try {
      this.iterator.return?.()?.catch(() => undefined);
    } catch {
      // A throwing return() changes nothing for us.
    }
  }
}

/** Options for writing an SSE reply. */
export interface SseWriteOptions {
  /** Interval between keep-alive comments. @default 20000 */
  keepAliveMs?: number;
}

/**
 * Writes `source` to a node response whose head is already set (status 200, {@link SSE_HEADERS}).
 * Waits for `drain` when the socket is full; stops the source when the client disconnects.
 * Resolves when the response is over.
 */
export async function writeSse(
  res: ServerResponse,
  source: SseSource,
  options: SseWriteOptions = {},
): Promise<void> {
  res.flushHeaders();
  let closed = false;
  let resume: (() => void) | undefined;
  const onClose = (): void => {
    closed = true;
    source.stop();
    resume?.();
  };
  res.on('close', onClose);
  const timer = setInterval(() => {
    if (!closed && !res.writableNeedDrain) res.write(KEEP_ALIVE_FRAME);
  }, options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS);
  timer.unref?.(); // workerd: timers without unref
  try {
    for (;;) {
      const frame = await source.next();
      if (frame === undefined || closed) break;
      if (!res.write(frame)) {
        await new Promise<void>((resolve) => {
          resume = resolve;
          res.once('drain', resolve);
        });
        resume = undefined;
        if (closed) break;
      }
    }
  } finally {
    clearInterval(timer);
    res.removeListener('close', onClose);
    if (!closed) res.end();
    source.stop();
  }
}

/** The same stream as a WHATWG ReadableStream, for the fetch-style adapter. */
export function sseToWebStream(source: SseSource, options: SseWriteOptions = {}): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let timer: ReturnType<typeof setInterval> | undefined;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      timer = setInterval(() => {
        try {
          controller.enqueue(encoder.encode(KEEP_ALIVE_FRAME));
        } catch {
          clearInterval(timer);
        }
      }, options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS);
      timer.unref?.();
    },
    async pull(controller) {
      const frame = await source.next();
      if (frame === undefined) {
        clearInterval(timer);
        controller.close();
      } else {
        controller.enqueue(encoder.encode(frame));
      }
    },
    cancel() {
      clearInterval(timer);
      source.stop();
    },
  });
}
