/**
 * One webhook POST (SRV-PUSH-6): to the address the guard checked (the connection goes to that
 * address; TLS still verifies the URL's host name), no redirect followed, the answer read up to
 * a small cap, with a connect timeout and an overall timeout.
 *
 * HTTP/1.1 is spoken here directly over pooled keep-alive sockets (one request at a time on
 * each, no pipelining): a POST costs one write and the reads of its answer, about a fifth of
 * the CPU of node:http's ClientRequest machinery (measured: 21 against 111 µs per request),
 * which matters when every task change is a POST.
 */
import { connect as netConnect, isIP, type Socket } from 'node:net';
import {
  checkServerIdentity,
  connect as tlsConnect,
  createSecureContext,
  rootCertificates,
  type SecureContext,
} from 'node:tls';
import type { CheckedAddress } from './address-guard.js';
import type { ResponseFormatError } from './http1-response.js';
import { Http1ResponseReader, type ResponseEnd } from './http1-response.js';

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

/** How long a pooled connection may stay idle before it is closed. */
const IDLE_MS = 30_000;
/** Header names and values we are willing to write (no CR, LF or other controls). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;

/** Sends webhook POSTs over pooled keep-alive connections. */
export class WebhookClient {
  readonly #connectTimeoutMs: number;
  readonly #timeoutMs: number;
  readonly #maxResponseBytes: number;
  readonly #maxIdlePerOrigin: number;
  readonly #secureContext: SecureContext | undefined;
  /** Idle connections by origin and checked address. */
  readonly #idle = new Map<string, Socket[]>();
  /** The listeners that drop an idle connection from the pool, removed when it is taken. */
  readonly #forgetters = new WeakMap<Socket, () => void>();
  /** Connections carrying a request now (destroyed by close()). */
  readonly #busy = new Set<Socket>();
  #closed = false;

  constructor(limits: WebhookLimits & { maxSockets?: number; tls?: WebhookTls } = {}) {
    this.#connectTimeoutMs = limits.connectTimeoutMs ?? 5000;
    this.#timeoutMs = limits.timeoutMs ?? 15_000;
    this.#maxResponseBytes = limits.maxResponseBytes ?? 4096;
    this.#maxIdlePerOrigin = limits.maxSockets ?? 16;
    const extra = limits.tls?.ca;
    // A `ca` replaces Node's roots: keep them, so public receivers still verify.
    this.#secureContext =
      extra === undefined
        ? undefined
        : createSecureContext({ ca: [...rootCertificates, ...(Array.isArray(extra) ? extra : [extra])] });
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
    return new Promise<WebhookResult>((resolve, reject) => {
      let request: string;
      try {
        request = requestText(url, headers, body);
      } catch (error) {
        reject(error);
        return;
      }
      if (this.#closed) {
        reject(new WebhookRequestError('the webhook client is closed', 'ABORTED'));
        return;
      }
      if (signal?.aborted) {
        reject(new WebhookRequestError('stopped', 'ABORTED'));
        return;
      }
      const key = `${url.protocol}//${url.host}@${address.address}`;
      const reader = new Http1ResponseReader(this.#maxResponseBytes);
      let socket = this.#takeIdle(key);
      const fresh = socket === undefined;
      socket ??= this.#open(url, address);
      this.#busy.add(socket);
      let settled = false;
      let connectTimer: NodeJS.Timeout | undefined;
      const overall = setTimeout(
        () => fail(new WebhookRequestError(`no complete answer within ${this.#timeoutMs} ms`, 'ETIMEDOUT')),
        this.#timeoutMs,
      );
      const onAbort = (): void => fail(new WebhookRequestError('stopped', 'ABORTED'));
      const cleanup = (): void => {
        settled = true;
        clearTimeout(overall);
        clearTimeout(connectTimer);
        signal?.removeEventListener('abort', onAbort);
        socket.off('data', onData);
        socket.off('error', onError);
        socket.off('close', onClose);
        this.#busy.delete(socket);
      };
      const fail = (error: WebhookRequestError): void => {
        if (settled) return;
        cleanup();
        socket.destroy();
        reject(error);
      };
      const finish = (end: ResponseEnd): void => {
        if (settled) return;
        cleanup();
        if (end.reusable) this.#release(key, socket);
        else socket.destroy();
        resolve({ status: end.status, excerpt: end.excerpt.toString('utf8') });
      };
      const onData = (chunk: Buffer): void => {
        try {
          const end = reader.push(chunk);
          if (end) finish(end);
        } catch (error) {
          const format = error as ResponseFormatError;
          fail(new WebhookRequestError(format.message, format.code));
        }
      };
      const onError = (error: NodeJS.ErrnoException): void =>
        fail(new WebhookRequestError(error.message, error.code));
      const onClose = (): void => {
        const end = reader.closed();
        if (end) finish(end);
        else fail(new WebhookRequestError('socket hang up', 'ECONNRESET'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      socket.on('data', onData);
      socket.on('error', onError);
      socket.on('close', onClose);
      if (fresh) {
        connectTimer = setTimeout(
          () =>
            fail(
              new WebhookRequestError(
                `could not connect within ${this.#connectTimeoutMs} ms`,
                'ECONNTIMEOUT',
              ),
            ),
          this.#connectTimeoutMs,
        );
        socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () =>
          clearTimeout(connectTimer),
        );
      }
      socket.write(request);
    });
  }

  /** Closes pooled connections and those in use (their requests fail). */
  close(): void {
    this.#closed = true;
    for (const sockets of this.#idle.values()) for (const socket of sockets) socket.destroy();
    this.#idle.clear();
    for (const socket of this.#busy) socket.destroy();
  }

  /** A connection to the checked address; https: verifies the URL's host name. */
  #open(url: URL, address: CheckedAddress): Socket {
    const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
    const options = { host: address.address, port, family: address.family };
    if (url.protocol !== 'https:') {
      const socket = netConnect({ ...options, noDelay: true });
      // To a local port nobody listens on, TCP may connect a socket to itself (the same port
      // picked as its own): that is no receiver.
      socket.once('connect', () => {
        if (socket.localPort === socket.remotePort && socket.localAddress === socket.remoteAddress) {
          socket.destroy(
            Object.assign(new Error('connect ECONNREFUSED (connected to itself)'), { code: 'ECONNREFUSED' }),
          );
        }
      });
      return socket;
    }
    const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    return tlsConnect({
      ...options,
      // SNI and the certificate check use the URL's host, not the address connected to.
      ...(isIP(hostname) ? {} : { servername: hostname }),
      checkServerIdentity: (_host, cert) => checkServerIdentity(hostname, cert),
      ALPNProtocols: ['http/1.1'],
      ...(this.#secureContext ? { secureContext: this.#secureContext } : {}),
    });
  }

  #takeIdle(key: string): Socket | undefined {
    const sockets = this.#idle.get(key);
    while (sockets && sockets.length > 0) {
      const socket = sockets.pop()!;
      if (sockets.length === 0) this.#idle.delete(key);
      if (socket.destroyed || !socket.writable) continue;
      const forget = this.#forgetters.get(socket);
      if (forget) {
        socket.off('close', forget);
        socket.off('error', forget);
        socket.off('timeout', forget);
      }
      socket.setTimeout(0);
      socket.ref();
      return socket;
    }
    return undefined;
  }

  /** Puts a clean connection back in the pool (or closes it when the pool is full). */
  #release(key: string, socket: Socket): void {
    let sockets = this.#idle.get(key);
    if (this.#closed || (sockets?.length ?? 0) >= this.#maxIdlePerOrigin) {
      socket.destroy();
      return;
    }
    if (!sockets) this.#idle.set(key, (sockets = []));
    sockets.push(socket);
    const forget = (): void => {
      const list = this.#idle.get(key);
      const at = list?.indexOf(socket) ?? -1;
      if (at >= 0) list!.splice(at, 1);
      if (list?.length === 0) this.#idle.delete(key);
      socket.destroy();
    };
    // The receiver may close an idle connection at any time; an idle one ends after IDLE_MS.
    this.#forgetters.set(socket, forget);
    socket.on('close', forget);
    socket.on('error', forget);
    socket.on('timeout', forget);
    socket.setTimeout(IDLE_MS);
    socket.unref();
  }
}

/** The request's bytes: request line, headers, body; refuses header names or values that could split it. */
function requestText(url: URL, headers: Record<string, string>, body: string): string {
  let head = `POST ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\n`;
  for (const name of Object.keys(headers)) {
    const value = headers[name]!;
    if (!HEADER_NAME.test(name))
      throw new WebhookRequestError(`invalid header name ${JSON.stringify(name)}`, 'ERR_INVALID_HTTP_TOKEN');
    if (!HEADER_VALUE.test(value))
      throw new WebhookRequestError(`invalid value of header ${name}`, 'ERR_INVALID_CHAR');
    head += `${name}: ${value}\r\n`;
  }
  return `${head}content-length: ${Buffer.byteLength(body)}\r\nconnection: keep-alive\r\n\r\n${body}`;
}
