/**
 * Who may drive the inspector: requests whose `Host` is this loopback address (a DNS-rebinding
 * page names its own host there) and, for the page and the API, that carry the run's token
 * (another local page cannot read it). The push receiver needs only the Host check: agents
 * post there, and each receiver has its own secret.
 */
import type { IncomingMessage } from 'node:http';
import { randomBytes, timingSafeEqual } from 'node:crypto';

/** Header the page sends the token in. */
export const TOKEN_HEADER = 'x-inspector-token';

/** A fresh random token for one run. */
export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

/** The Host values accepted on `port`. */
export function allowedHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Why `req` is refused, or undefined when it may pass. */
export function refusal(
  req: IncomingMessage,
  url: URL,
  hosts: Set<string>,
  token: string,
  needsToken: boolean,
): string | undefined {
  const host = (req.headers.host ?? '').toLowerCase();
  if (!hosts.has(host)) return `the Host header ${JSON.stringify(host)} is not this inspector's address`;
  if (!needsToken) return undefined;
  const given = url.pathname === '/' ? url.searchParams.get('token') : req.headers[TOKEN_HEADER];
  if (typeof given !== 'string' || !same(given, token)) return 'missing or wrong inspector token';
  const origin = req.headers.origin;
  if (origin !== undefined && !hosts.has(origin.replace(/^https?:\/\//, '').toLowerCase()))
    return `requests from ${origin} are not accepted`;
  return undefined;
}
