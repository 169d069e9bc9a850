/**
 * One webhook POST (SRV-PUSH-6): to the address the guard checked (the connection's `lookup`
 * answers with it, so TLS still verifies the URL's host name), no redirect followed, the answer
 * read up to a small cap, with a connect timeout and an overall timeout.
 *
 * Sent with undici (the HTTP client behind node's fetch) rather than node:http: measured on a
 * loopback receiver, 26-41 µs of CPU per POST against 67-84 µs, and push makes several POSTs
 * per task.
 */
import { EventEmitter } from 'node:events';
import type { LookupFunction } from 'node:net';
import { rootCertificates } from 'node:tls';
import type { Pool } from 'undici';
import type { CheckedAddress } from './address-guard.js';

/** Timeouts and caps of webhook requests. */
export interface WebhookLimits {
  /** Time to open the connection (TCP, and TLS on https). @default 5000 */
  connectTimeoutMs?: number;
  /** Time for the whole request, from start to the end of the answer. @default 15000 */
  timeoutMs?: number;
  /** Bytes of the answer read (and dropped); past them the connection is closed. @default 4096 */
  maxResponseBytes?: number;
}

/** TLS settings of webhook connections (https: URLs). */
export interface WebhookTls {
  /**
   * CA certificates (PEM) trusted for webhook servers in addition to Node's default roots: a
   * receiver with a certificate from a private CA. The host name is still verified.
   */
  ca?: string | Buffer | readonly (string | Buffer)[];
}

/** What came back. */
export interface WebhookResult {
  readonly status: number;
}

/** A failed POST (no answer, or a timeout); `code` is the network code when there is one. */
export class WebhookRequestError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'WebhookRequestError';
  }
}

/**
 * undici, loaded at the first POST: every process that imports the server (the CLI's commands
 * too) would otherwise pay its load time (about 100 ms) whether it pushes or not.
 */
let undici: Promise<typeof Pool> | undefined;
function poolClass(): Promise<typeof Pool> {
  return (undici ??= import('undici').then((m) => m.Pool));
}

/** Most connection pools kept (one per webhook origin and checked address); the oldest closes first. */
const MAX_POOLS = 256;

/** A POST on its way: what aborts it, and why it was ended early. */
interface RunningPost {
  readonly abort: EventEmitter;
  why: 'timeout' | 'stop' | undefined;
  /** The caller's stop signal. */
  readonly stop: AbortSignal | undefined;
}

/** Ends a running POST early (its request aborts; it then rejects saying why). */
function end(running: RunningPost, why: 'timeout' | 'stop'): void {
  if (running.why) return;
  running.why = why;
  running.abort.emit('abort');
}

/** Sends webhook POSTs over pooled keep-alive connections. */
export class WebhookClient {
  readonly #pools = new Map<string, Pool>();
  readonly #running = new Set<RunningPost>();
  readonly #watched = new WeakSet<AbortSignal>();
  readonly #maxSockets: number;
  readonly #ca: string[] | undefined;
  readonly #connectTimeoutMs: number;
  readonly #timeoutMs: number;
  readonly #maxResponseBytes: number;

  constructor(limits: WebhookLimits & { maxSockets?: number; tls?: WebhookTls } = {}) {
    this.#connectTimeoutMs = limits.connectTimeoutMs ?? 5000;
    this.#timeoutMs = limits.timeoutMs ?? 15_000;
    this.#maxResponseBytes = limits.maxResponseBytes ?? 4096;
    this.#maxSockets = limits.maxSockets ?? 16;
    const extra = limits.tls?.ca;
    // A `ca` replaces Node's roots: keep them, so public receivers still verify.
    this.#ca =
      extra === undefined
        ? undefined
        : [...rootCertificates, ...(Array.isArray(extra) ? extra : [extra])].map((c: string | Uint8Array) =>
            // Bytes that crossed to the sender thread arrive as a plain Uint8Array.
            typeof c === 'string' ? c : Buffer.from(c).toString('utf8'),
          );
  }

  /** The pool of `url`'s origin whose connections go to `address` only. */
  #pool(PoolClass: typeof Pool, url: URL, address: CheckedAddress): Pool {
    const key = `${url.origin} ${address.address}`;
    const known = this.#pools.get(key);
    if (known) {
      // Most recently used last: the first entry is the one to close when there are too many.
      if (this.#pools.size > 1) {
        this.#pools.delete(key);
        this.#pools.set(key, known);
      }
      return known;
    }
    if (this.#pools.size >= MAX_POOLS) {
      const [oldestKey, oldest] = this.#pools.entries().next().value as [string, Pool];
      this.#pools.delete(oldestKey);
      void oldest.close().catch(() => undefined);
    }
    const pinned: LookupFunction = (_host, options, callback) => {
      // node asks with `all: true` when autoSelectFamily is on.
      if ((options as { all?: boolean }).all) {
        (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
          { address: address.address, family: address.family },
        ]);
      } else callback(null, address.address, address.family);
    };
    const pool = new PoolClass(url.origin, {
      connections: this.#maxSockets,
      connect: { lookup: pinned, timeout: this.#connectTimeoutMs, ...(this.#ca ? { ca: this.#ca } : {}) },
      headersTimeout: this.#timeoutMs,
      bodyTimeout: this.#timeoutMs,
    });
    this.#pools.set(key, pool);
    return pool;
  }

  /**
   * POSTs `body` to `url`, connecting to `address` only. Resolves with any HTTP answer
   * (2xx or not); rejects with {@link WebhookRequestError} when no answer came in time.
   * `signal` stops it (and every other POST given the same signal).
   */
  async post(
    url: URL,
    address: CheckedAddress,
    headers: Record<string, string>,
    body: string,
    signal?: AbortSignal,
  ): Promise<WebhookResult> {
    if (signal?.aborted) throw new WebhookRequestError('stopped', 'ABORTED');
    const PoolClass = await poolClass();
    // undici takes an EventEmitter as a request's signal: an AbortController, and a listener on
    // the caller's signal, per POST were a tenth of a POST's CPU (measured).
    const running: RunningPost = { abort: new EventEmitter(), why: undefined, stop: signal };
    if (signal) this.#watch(signal);
    this.#running.add(running);
    const overall = setTimeout(() => end(running, 'timeout'), this.#timeoutMs);
    try {
      const res = await this.#pool(PoolClass, url, address).request({
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers,
        body,
        signal: running.abort,
      });
      // The status is what counts: the answer is read up to the cap and dropped (past the cap
      // the connection is closed). A POST ended meanwhile ends the read early.
      await res.body.dump({ limit: this.#maxResponseBytes });
      // Ended meanwhile (timeout or stop): the catch below reports why.
      if (running.why) throw new WebhookRequestError('ended early');
      return { status: res.statusCode };
    } catch (error) {
      throw this.#failure(error, running.why);
    } finally {
      clearTimeout(overall);
      this.#running.delete(running);
    }
  }

  /** Listens once on each stop signal the POSTs are given (a few in a sender's life). */
  #watch(signal: AbortSignal): void {
    if (this.#watched.has(signal)) return;
    this.#watched.add(signal);
    signal.addEventListener(
      'abort',
      () => {
        for (const running of this.#running) if (running.stop === signal) end(running, 'stop');
      },
      { once: true },
    );
  }

  #failure(error: unknown, why: RunningPost['why']): WebhookRequestError {
    if (why) {
      return why === 'timeout'
        ? new WebhookRequestError(`no complete answer within ${this.#timeoutMs} ms`, 'ETIMEDOUT')
        : new WebhookRequestError('stopped', 'ABORTED');
    }
    const err = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
    switch (err.code) {
      case 'UND_ERR_CONNECT_TIMEOUT':
        return new WebhookRequestError(
          `could not connect within ${this.#connectTimeoutMs} ms`,
          'ECONNTIMEOUT',
        );
      case 'UND_ERR_HEADERS_TIMEOUT':
      case 'UND_ERR_BODY_TIMEOUT':
        return new WebhookRequestError(`no complete answer within ${this.#timeoutMs} ms`, 'ETIMEDOUT');
      default: {
        // undici wraps socket failures; the network's own code and words are in the cause.
        const code = err.cause?.code ?? err.code;
        const message = err.cause?.message ?? err.message ?? String(error);
        return new WebhookRequestError(message, code);
      }
    }
  }

  /** Closes pooled connections. */
  close(): void {
    for (const pool of this.#pools.values()) void pool.destroy().catch(() => undefined);
    this.#pools.clear();
  }
}
