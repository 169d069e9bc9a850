/**
 * One webhook POST (SRV-PUSH-6): to the address the guard checked (the connection's `lookup`
 * answers with it, so TLS still verifies the URL's host name), no redirect followed, the answer
 * read up to a small cap, with a connect timeout and an overall timeout.
 *
 * Sent with undici (the HTTP client behind node's fetch) rather than node:http: measured on a
 * loopback receiver, 26-41 µs of CPU per POST against 67-84 µs, and push makes several POSTs
 * per task.
 */
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
  /** Bytes of the answer read; the rest is discarded with the connection. @default 4096 */
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
  /** The first bytes of the answer (at most `maxResponseBytes`), for the operator. */
  readonly excerpt: string;
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

/** Why a request's own controller aborted it. */
const TIMED_OUT = Symbol('timed out');

/** Sends webhook POSTs over pooled keep-alive connections. */
export class WebhookClient {
  readonly #pools = new Map<string, Pool>();
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
      this.#pools.delete(key);
      this.#pools.set(key, known);
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
    const controller = new AbortController();
    const onStop = (): void => controller.abort();
    signal?.addEventListener('abort', onStop, { once: true });
    const overall = setTimeout(() => controller.abort(TIMED_OUT), this.#timeoutMs);
    try {
      const res = await this.#pool(PoolClass, url, address).request({
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers,
        body,
        signal: controller.signal,
      });
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        if (size < this.#maxResponseBytes) chunks.push(chunk.subarray(0, this.#maxResponseBytes - size));
        size += chunk.length;
        // Enough read: the status is what counts; leaving the loop drops the rest of the answer.
        if (size > this.#maxResponseBytes) break;
      }
      return { status: res.statusCode, excerpt: Buffer.concat(chunks).toString('utf8') };
    } catch (error) {
      throw this.#failure(error, controller.signal);
    } finally {
      clearTimeout(overall);
      signal?.removeEventListener('abort', onStop);
    }
  }

  #failure(error: unknown, own: AbortSignal): WebhookRequestError {
    if (own.aborted) {
      return own.reason === TIMED_OUT
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
