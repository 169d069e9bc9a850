/**
 * Limits of the HTTP listener against slow, idle or too many clients: how long a client may
 * take to send its headers and its whole request (slowloris), how long an idle keep-alive
 * connection stays open, and how many connections may be open at once (in all and per remote
 * address). Pass {@link httpServerTimeouts} to `http.createServer` / `https.createServer`, and
 * {@link httpConnectionLimits} to a `ConnectionLimiter`. Response streams (SSE) are not cut:
 * these limits only bound what the client sends, idle sockets and their number.
 */
import type { ServerOptions } from 'node:http';
import type { ConnectionLimitOptions } from '../../bindings/connection-limits.js';

/** Default cap on open connections of the HTTP listener. */
export const DEFAULT_HTTP_MAX_CONNECTIONS = 10_000;
/**
 * Default cap on open connections from one remote address. HTTP/1.1 needs a connection per
 * concurrent request and per open stream, so it leaves room for a busy client or a proxy.
 */
export const DEFAULT_HTTP_MAX_CONNECTIONS_PER_ADDRESS = 1_000;

/** Limits for slow or idle clients, in ms. */
export interface HttpTimeoutOptions {
  /** Time to receive the complete request headers. @default 10000 */
  headersTimeoutMs?: number;
  /** Time to receive the complete request (headers and body). @default 30000 */
  requestTimeoutMs?: number;
  /** Time an idle keep-alive connection is kept between requests. @default 5000 */
  keepAliveTimeoutMs?: number;
  /** How often the server looks for expired requests. @default min(1000, headersTimeoutMs / 2) */
  checkIntervalMs?: number;
  /** Largest header block in bytes. @default 16384 */
  maxHeaderBytes?: number;
  /** Most connections open at once; more are closed as they are accepted. @default 10000 */
  maxConnections?: number;
  /**
   * Most connections open at once from one remote address (`Infinity` for no cap). Behind a
   * proxy that does not keep client addresses, every connection comes from the proxy: raise it.
   * @default 1000
   */
  maxConnectionsPerAddress?: number;
}

/** The node:http server options for these limits (also valid for node:https). */
export function httpServerTimeouts(
  options: HttpTimeoutOptions = {},
): Pick<
  ServerOptions,
  'headersTimeout' | 'requestTimeout' | 'keepAliveTimeout' | 'connectionsCheckingInterval' | 'maxHeaderSize'
> {
  const headersTimeout = positive(options.headersTimeoutMs ?? 10_000, 'headersTimeoutMs');
  const requestTimeout = positive(options.requestTimeoutMs ?? 30_000, 'requestTimeoutMs');
  if (requestTimeout < headersTimeout) throw new RangeError('requestTimeoutMs must be >= headersTimeoutMs');
  return {
    headersTimeout,
    requestTimeout,
    keepAliveTimeout: positive(options.keepAliveTimeoutMs ?? 5_000, 'keepAliveTimeoutMs'),
    connectionsCheckingInterval: positive(
      options.checkIntervalMs ?? Math.max(10, Math.min(1000, Math.floor(headersTimeout / 2))),
      'checkIntervalMs',
    ),
    maxHeaderSize: positive(options.maxHeaderBytes ?? 16_384, 'maxHeaderBytes'),
  };
}

/** The connection caps of {@link HttpTimeoutOptions}, defaults filled in. */
export function httpConnectionLimits(options: HttpTimeoutOptions = {}): ConnectionLimitOptions {
  return {
    maxConnections: options.maxConnections ?? DEFAULT_HTTP_MAX_CONNECTIONS,
    maxConnectionsPerAddress: options.maxConnectionsPerAddress ?? DEFAULT_HTTP_MAX_CONNECTIONS_PER_ADDRESS,
  };
}

function positive(value: number, name: string): number {
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a positive number`);
  return Math.floor(value);
}
