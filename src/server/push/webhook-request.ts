/**
 * One webhook POST (SRV-PUSH-6): to the address the guard checked (the `lookup` of node:http
 * answers with it, so TLS still verifies the URL's host name), no redirect followed, the answer
 * read up to a small cap, with a connect timeout and an overall timeout.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { rootCertificates } from 'node:tls';
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

/** Sends webhook POSTs over pooled keep-alive connections. */
export class WebhookClient {
  readonly #http: HttpAgent;
  readonly #https: HttpsAgent;
  readonly #connectTimeoutMs: number;
  readonly #timeoutMs: number;
  readonly #maxResponseBytes: number;

  constructor(limits: WebhookLimits & { maxSockets?: number; tls?: WebhookTls } = {}) {
    this.#connectTimeoutMs = limits.connectTimeoutMs ?? 5000;
    this.#timeoutMs = limits.timeoutMs ?? 15_000;
    this.#maxResponseBytes = limits.maxResponseBytes ?? 4096;
    const maxSockets = limits.maxSockets ?? 16;
    this.#http = new HttpAgent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });
    const extra = limits.tls?.ca;
    // A `ca` replaces Node's roots: keep them, so public receivers still verify.
    const ca =
      extra === undefined ? undefined : [...rootCertificates, ...(Array.isArray(extra) ? extra : [extra])];
    this.#https = new HttpsAgent({
      keepAlive: true,
      maxSockets,
      maxFreeSockets: maxSockets,
      ...(ca ? { ca } : {}),
    });
  }

  /**
   * POSTs `body` to `url`, connecting to `address` only. Resolves with any HTTP answer
   * (2xx or not); rejects with {@link WebhookRequestError} when no answer came in time.
   */
  post(
    url: URL,
    address: CheckedAddress,
    headers: Record<string, string>,
    body: string,
    signal?: AbortSignal,
  ): Promise<WebhookResult> {
    const secure = url.protocol === 'https:';
    const pinned: LookupFunction = (_host, options, callback) => {
      // node asks with `all: true` when autoSelectFamily is on.
      if ((options as { all?: boolean }).all) {
        (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
          { address: address.address, family: address.family },
        ]);
      } else callback(null, address.address, address.family);
    };
    const send = secure ? httpsRequest : httpRequest;
    return new Promise<WebhookResult>((resolve, reject) => {
      let settled = false;
      const onAbort = (): void => fail(new WebhookRequestError('stopped', 'ABORTED'));
      /** Ends the request's timer and listener (the stop signal is shared by every request). */
      const finish = (): void => {
        settled = true;
        clearTimeout(overall);
        signal?.removeEventListener('abort', onAbort);
      };
      const fail = (error: WebhookRequestError): void => {
        if (settled) return;
        finish();
        req.destroy();
        reject(error);
      };
      const req = send(url, {
        method: 'POST',
        agent: secure ? this.#https : this.#http,
        lookup: pinned,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      });
      const overall = setTimeout(
        () => fail(new WebhookRequestError(`no complete answer within ${this.#timeoutMs} ms`, 'ETIMEDOUT')),
        this.#timeoutMs,
      );
      if (signal) {
        if (signal.aborted) queueMicrotask(onAbort);
        else signal.addEventListener('abort', onAbort, { once: true });
      }
      req.on('socket', (socket) => {
        if (!socket.connecting) return; // a pooled connection
        const connect = setTimeout(
          () =>
            fail(
              new WebhookRequestError(
                `could not connect within ${this.#connectTimeoutMs} ms`,
                'ECONNTIMEOUT',
              ),
            ),
          this.#connectTimeoutMs,
        );
        socket.once(secure ? 'secureConnect' : 'connect', () => clearTimeout(connect));
        socket.once('close', () => clearTimeout(connect));
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        fail(new WebhookRequestError(error.message, error.code));
      });
      req.on('response', (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = (): void => {
          if (settled) return;
          finish();
          resolve({ status: res.statusCode ?? 0, excerpt: Buffer.concat(chunks).toString('utf8') });
        };
        res.on('data', (chunk: Buffer) => {
          if (size < this.#maxResponseBytes) chunks.push(chunk.subarray(0, this.#maxResponseBytes - size));
          size += chunk.length;
          if (size > this.#maxResponseBytes) {
            // Enough read: the status is what counts; drop the connection instead of reading on.
            done();
            res.destroy();
          }
        });
        res.on('end', done);
        res.on('error', () => done());
        res.on('close', done);
      });
      req.end(body);
    });
  }

  /** Closes pooled connections. */
  close(): void {
    this.#http.destroy();
    this.#https.destroy();
  }
}
