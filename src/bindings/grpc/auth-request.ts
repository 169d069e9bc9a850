/** The {@link AuthRequest} of a grpc-js server call: metadata as headers, the TLS client certificate. */
import { randomUUID } from 'node:crypto';
import type { PeerCertificate as NodePeerCertificate } from 'node:tls';
import { createAuthRequest, peerCertificateFromNode, type AuthRequest } from '../auth-request.js';

/** The parts of a grpc-js server call (unary or streaming) that authentication reads. */
export interface GrpcCallView {
  /** The call's metadata; a grpc-js `Metadata` fits (typed here so gRPC stays an optional peer). */
  readonly metadata: {
    /** Every metadata entry by name, values in arrival order. */
    toJSON(): Record<string, (string | Buffer)[]>;
  };
  /** The called method's path (`/lf.a2a.v1.A2AService/SendMessage`). */
  getPath(): string;
  /** The TLS facts of the connection, when it is secure. */
  getAuthContext?(): { transportSecurityType?: string; sslPeerCertificate?: NodePeerCertificate };
  /** The peer address (`ipv4:127.0.0.1:50123`): its IP is the caller's remote address. */
  getPeer?(): string;
}

/**
 * The request view of a gRPC call. Binary (`-bin`) metadata is skipped. A client certificate
 * counts as verified: grpc-js only completes the handshake for a chain that verifies when the
 * server credentials were made with `checkClientCertificate: true`.
 */
export function authRequestFromGrpc(call: GrpcCallView, authority = 'grpc'): AuthRequest {
  const cert = call.getAuthContext?.().sslPeerCertificate;
  const peer = cert ? peerCertificateFromNode(cert, true) : undefined;
  const remote = peerAddress(call.getPeer?.());
  let url: URL;
  try {
    url = new URL(call.getPath(), `http://${authority}`);
  } catch {
    url = new URL('http://grpc/');
  }
  return createAuthRequest({
    method: 'POST',
    url,
    headers: call.metadata.toJSON(),
    ...(peer ? { peerCertificate: peer } : {}),
    connectionId: connectionIdOf(call),
    ...(remote !== undefined ? { remoteAddress: remote } : {}),
  });
}

// One random id per HTTP/2 session, forgotten with the session. Not the peer's ip:port: a
// later connection from the same source port (NAT, a proxy) is another caller (finding 5).
const sessionIds = new WeakMap<object, string>();

/**
 * The id of the HTTP/2 connection a grpc-js call came on. grpc-js exposes no connection
 * object, so its call chain is walked to the HTTP/2 stream's session (grpc-js 1.14 layout:
 * `call.call[.nextCall...].stream.session`); when that layout is not found, each call is its
 * own connection (safe: anonymous callers then see nothing of each other).
 */
function connectionIdOf(call: GrpcCallView): string {
  const session = http2SessionOf(call);
  if (session === undefined) return `grpc:call:${randomUUID()}`;
  let id = sessionIds.get(session);
  if (id === undefined) {
    id = `grpc:${randomUUID()}`;
    sessionIds.set(session, id);
  }
  return id;
}

function http2SessionOf(call: object): object | undefined {
  let node: unknown = call;
  for (let hop = 0; hop < 8 && typeof node === 'object' && node !== null; hop++) {
    const link = node as { stream?: { session?: unknown }; call?: unknown; nextCall?: unknown };
    const session = link.stream?.session;
    if (typeof session === 'object' && session !== null) return session;
    node = link.call ?? link.nextCall;
  }
  return undefined;
}

/** The IP of a grpc-js peer string (`ipv4:1.2.3.4:5`, `ipv6:[::1]:5`); undefined for others. */
export function peerAddress(peer: string | undefined): string | undefined {
  if (peer === undefined) return undefined;
  const bare = peer.replace(/^ipv[46]:/, '');
  if (bare.startsWith('[')) {
    const end = bare.indexOf(']');
    return end > 1 ? bare.slice(1, end) : undefined;
  }
  const colon = bare.lastIndexOf(':');
  const host = colon > 0 ? bare.slice(0, colon) : bare;
  return host === '' ? undefined : host;
}
