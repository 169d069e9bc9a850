/**
 * Timeouts against slow clients (slowloris): how long a client may take to send its headers
 * and its whole request, and how long an idle keep-alive connection stays open. Pass
 * {@link httpServerTimeouts} to `http.createServer` / `https.createServer`. Response streams
 * (SSE) are not cut: these limits only bound what the client sends and idle sockets.
 */
import type { ServerOptions } from 'node:http';

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

function positive(value: number, name: string): number {
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a positive number`);
  return Math.floor(value);
}
