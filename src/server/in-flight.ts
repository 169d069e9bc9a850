/**
 * The exchanges in flight on one server: counted, and their SSE streams tracked, so that
 * closing can end the streams and wait (boundedly) for the last responses.
 */
import type { SseSource } from '../bindings/http/http-body.js';

/** The in-flight count and open streams of a server; the adapters report to it. */
export class InFlight {
  /** Open SSE streams; bounded by the open connections. */
  readonly streams = new Set<SseSource>();
  /** Set once the server is closing: new streams are stopped at once, replies say `connection: close`. */
  closing = false;
  #count = 0;
  #idle: (() => void) | undefined;

  /** One more exchange is being answered. */
  begin(): void {
    this.#count++;
  }

  /** An exchange is answered (its body written, or its stream handed over). */
  end(): void {
    if (--this.#count === 0) this.#idle?.();
  }

  /** Tracks `stream` until it ends; stops it at once when closing. */
  addStream(stream: SseSource): void {
    if (this.closing) stream.stop();
    this.streams.add(stream);
  }

  deleteStream(stream: SseSource): void {
    this.streams.delete(stream);
  }

  /** Stops every open stream (their tasks go on). */
  stopStreams(): void {
    for (const stream of this.streams) stream.stop();
  }

  /** Resolves when nothing is in flight, or after `ms` at the latest. */
  waitIdle(ms: number): Promise<void> {
    if (this.#count === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref?.(); // workerd: timers without unref
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.#idle = () => {
        this.#idle = undefined;
        done();
      };
    });
  }
}
