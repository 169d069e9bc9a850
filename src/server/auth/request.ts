/**
 * The {@link AuthRequest} view of node:http and fetch requests, built by the hosting adapters.
 * The view itself (and the gRPC one) is a binding contract in `src/bindings/auth-request.ts`,
 * re-exported here for authenticator authors.
 */
import type { IncomingMessage } from 'node:http';
import { randomUUID } from 'node:crypto';
import { TLSSocket } from 'node:tls';
import {
  createAuthRequest,
  peerCertificateFromNode,
  type AuthRequest,
  type PeerCertificate,
} from '../../bindings/auth-request.js';

export {
  HeaderMap,
  createAuthRequest,
  parseCookies,
  peerCertificateFromNode,
  type AuthRequest,
  type AuthRequestInit,
  type Authenticate,
  type HeaderInit,
  type PeerCertificate,
} from '../../bindings/auth-request.js';

/** The request view of a node:http / node:https request, client certificate included. */
export function authRequestFromNode(req: IncomingMessage): AuthRequest {
  const socket = req.socket;
  const tls = socket instanceof TLSSocket;
  const host = req.headers.host ?? 'localhost';
  let url: URL;
  try {
    url = new URL(req.url ?? '/', `${tls ? 'https' : 'http'}://${host}`);
  } catch {
    url = new URL('http://localhost/');
  }
  const peer = tls ? peerCertificateOf(socket) : undefined;
  return createAuthRequest({
    method: req.method ?? 'GET',
    url,
    headers: req.headersDistinct as Record<string, string[] | undefined>,
    ...(peer ? { peerCertificate: peer } : {}),
    connectionId: connectionIdOf(socket),
    ...(socket.remoteAddress ? { remoteAddress: socket.remoteAddress } : {}),
  });
}

// One random id per socket, forgotten with the socket (keep-alive requests share it).
const connectionIds = new WeakMap<object, string>();

function connectionIdOf(socket: object): string {
  let id = connectionIds.get(socket);
  if (id === undefined) {
    id = `http:${randomUUID()}`;
    connectionIds.set(socket, id);
  }
  return id;
}

/** What a fetch host may know of the connection beside the `Request` (Bun, Deno, Hono's getConnInfo). */
export interface FetchConnectionInfo {
  /** The peer's IP address: anonymous callers are limited per address (else all share one key). */
  remoteAddress?: string;
}

/** The request view of a fetch `Request` (no TLS details: a fetch runtime does not expose them). */
export function authRequestFromFetch(request: Request, info?: FetchConnectionInfo): AuthRequest {
  return createAuthRequest({
    method: request.method,
    url: request.url,
    headers: request.headers,
    ...(info?.remoteAddress ? { remoteAddress: info.remoteAddress } : {}),
  });
}

/** The client certificate of a TLS socket, or `undefined` when the client sent none. */
export function peerCertificateOf(socket: TLSSocket): PeerCertificate | undefined {
  const error = socket.authorizationError as unknown;
  return peerCertificateFromNode(
    socket.getPeerCertificate(),
    socket.authorized,
    error ? (error instanceof Error ? error.message : String(error)) : undefined,
  );
}
