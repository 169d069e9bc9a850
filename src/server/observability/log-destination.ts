/**
 * Where the default logger's JSON lines go: a file descriptor (fd 2), written in pieces.
 *
 * Lines are gathered in an array and joined once per write(2). pino's own destination
 * (sonic-boom) appends each line to its pending string and measures that string's byte length
 * on every line, which flattens the whole pending buffer per line: in a busy server that was
 * about half of what a request's log line cost.
 */
import type * as Fs from 'node:fs';
import { requireNode } from '../../core/node-modules.js';

/** Options of {@link BufferedLogDestination}. */
export interface BufferedLogDestinationOptions {
  /** The descriptor written to. @default 2 (stderr) */
  fd?: number;
  /** Characters gathered before a write. @default 16384 */
  pieceChars?: number;
  /** Longest a line waits in the buffer (ms). @default 100 */
  flushMs?: number;
  /**
   * Characters kept while the descriptor accepts nothing (a full pipe nobody reads): past this,
   * new lines are dropped and counted, so a stuck reader never grows the server's memory.
   * @default 1048576
   */
  maxBufferedChars?: number;
}

/** An error from write(2) that says to try again later (a non-blocking pipe that is full). */
function isTryAgain(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === 'EAGAIN' || code === 'EWOULDBLOCK';
}

/**
 * A pino destination (anything with `write(line)`) that writes synchronously, in pieces of
 * {@link BufferedLogDestinationOptions.pieceChars}, at least every `flushMs` while lines wait,
 * and whatever remains when the process exits. Nothing is left to the thread pool.
 */
export class BufferedLogDestination {
  readonly #fs: typeof Fs;
  readonly #fd: number;
  readonly #pieceChars: number;
  readonly #maxBufferedChars: number;
  #lines: string[] = [];
  #chars = 0;
  /** Bytes of a piece that write(2) took only in part (or not at all: EAGAIN). */
  #rest: Buffer | undefined;
  #dropped = 0;
  #closed = false;
  readonly #timer: ReturnType<typeof setInterval>;
  readonly #atExit = (): void => this.flushSync();

  constructor(options: BufferedLogDestinationOptions = {}) {
    this.#fs = requireNode<typeof Fs>('node:fs');
    this.#fd = options.fd ?? 2;
    this.#pieceChars = options.pieceChars ?? 16 * 1024;
    this.#maxBufferedChars = options.maxBufferedChars ?? 1024 * 1024;
    this.#timer = setInterval(() => {
      if (this.#chars > 0 || this.#rest) this.flushSync();
    }, options.flushMs ?? 100);
    this.#timer.unref?.();
    process.once('exit', this.#atExit);
  }

  /** Lines dropped because the descriptor accepted nothing while the buffer was full. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Queues `line` (pino passes one JSON line with its newline); writes once a piece is full. */
  write(line: string): boolean {
    if (this.#closed) return false;
    if (this.#chars + line.length > this.#maxBufferedChars) {
      this.#dropped++;
      return false;
    }
    this.#lines.push(line);
    this.#chars += line.length;
    if (this.#chars >= this.#pieceChars && this.#rest === undefined) this.flushSync();
    return true;
  }

  /** pino's `logger.flush(cb)`: writes what waits, then calls back. */
  flush(callback?: (error?: Error) => void): void {
    this.flushSync();
    callback?.();
  }

  /**
   * Writes everything that waits, now. A descriptor that is full keeps the rest for the next
   * try; one that is gone (EPIPE, EBADF) drops it: there is nowhere to report a log's failure.
   */
  flushSync(): void {
    if (this.#rest === undefined && this.#chars === 0) return;
    let pending = this.#rest;
    if (this.#chars > 0) {
      const joined = Buffer.from(this.#lines.join(''));
      pending = pending ? Buffer.concat([pending, joined]) : joined;
      this.#lines = [];
      this.#chars = 0;
    }
    // Bounded: each pass writes some bytes or stops; a piece is at most the buffer's limit.
    while (pending !== undefined && pending.length > 0) {
      try {
        const written = this.#fs.writeSync(this.#fd, pending);
        pending = written >= pending.length ? undefined : pending.subarray(written);
        if (written === 0) break;
      } catch (error) {
        if (!isTryAgain(error)) pending = undefined;
        break;
      }
    }
    this.#rest = pending !== undefined && pending.length > 0 ? pending : undefined;
  }

  /** Writes what waits and stops the timer; later lines are refused. */
  end(): void {
    if (this.#closed) return;
    this.flushSync();
    this.#closed = true;
    clearInterval(this.#timer);
    process.off('exit', this.#atExit);
  }
}
