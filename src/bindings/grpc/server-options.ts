/** The options of the gRPC binding's server (`GrpcBinding`) and the default message size. */
import type { ChannelOptions } from '@grpc/grpc-js';
import type { Authenticate } from '../auth-request.js';

/** Default largest message accepted or sent: 4 MiB (the gRPC default). */
export const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/** Options of `GrpcBinding`. */
export interface GrpcBindingOptions {
  /**
   * Largest request or response message in bytes; larger requests get RESOURCE_EXHAUSTED.
   * @default 4 MiB
   */
  maxMessageBytes?: number;
  /** HTTP/2 keepalive pings from the server to idle clients. */
  keepalive?: {
    /** Ping interval. @default 60000 */
    timeMs?: number;
    /** Close the connection when a ping is not answered within this time. @default 20000 */
    timeoutMs?: number;
  };
  /**
   * Resolves the caller from the call's metadata (`authorization`, ...) and TLS certificate, the
   * same hook as createA2AServer's `authenticate`. Throw `UnauthenticatedError` /
   * `PermissionDeniedError` to refuse the call (UNAUTHENTICATED / PERMISSION_DENIED, with the
   * error's `challenges` as `www-authenticate` trailing metadata).
   * @default every call is anonymous
   */
  authenticate?: Authenticate;
  /**
   * How long `GrpcBinding.close` lets running calls finish before cancelling them.
   * @default 2000
   */
  shutdownGraceMs?: number;
  /**
   * Close an HTTP/2 connection that has had no call for this long, so that idle connections
   * (opened and left, by a client or an attacker) cannot pile up; a grpc-js client reconnects
   * on its next call by itself.
   * @default 120000
   */
  idleTimeoutMs?: number;
  /**
   * Close a new connection that has not started a call within this time (TLS handshake and
   * HTTP/2 preface included): connections that never speak HTTP/2, or connect and wait, hold
   * no socket past it. Applies to `GrpcBinding.listen`, not to servers of `GrpcBinding.addTo`.
   * @default 10000
   */
  firstCallTimeoutMs?: number;
  /**
   * Most connections open at once on one listener; more are closed as they are accepted.
   * Applies to `GrpcBinding.listen`.
   * @default 1000
   */
  maxConnections?: number;
  /**
   * Most connections open at once from one remote address on one listener (`Infinity` for no
   * cap). Behind a proxy that opens a connection per call, every connection comes from the
   * proxy's address: raise it there. Applies to `GrpcBinding.listen`.
   * @default 100
   */
  maxConnectionsPerAddress?: number;
  /** Extra grpc-js channel options, applied last. */
  channelOptions?: ChannelOptions;
}
