/** The {@link AuthRequest} of a grpc-js server call: metadata as headers, the TLS client certificate. */
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
  /** The peer address (`ipv4:127.0.0.1:50123`): one per HTTP/2 connection. */
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
    ...(call.getPeer ? { connectionId: `grpc:${call.getPeer()}` } : {}),
  });
}
