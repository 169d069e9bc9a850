/**
 * The gRPC binding's own listener (issue 27): a node:net server that bounds each connection
 * before handing it to grpc-js (`createConnectionInjector`). grpc-js on its own keeps a
 * connection that never speaks HTTP/2 until its idle timeout and has no connection cap; here
 * a connection past a cap is closed on accept, and one that has not started a call within
 * `firstCallTimeoutMs` (TLS handshake and HTTP/2 preface included) is closed then. Sessions
 * idle after their calls are grpc-js's to close (`grpc.max_connection_idle_ms`).
 */
import { createServer, type Server as NetServer, type Socket } from 'node:net';
import type {
  ConnectionInjector,
  Server,
  ServerCredentials,
  ServerInterceptingCall,
  ServerInterceptor,
} from '@grpc/grpc-js';
import { ConnectionLimiter } from '../connection-limits.js';

/** Default time a new connection has to start its first call: as the HTTP listener's headersTimeoutMs. */
export const DEFAULT_FIRST_CALL_TIMEOUT_MS = 10_000;
/** Default cap on open connections of one gRPC listener (HTTP/2 multiplexes calls on each). */
export const DEFAULT_GRPC_MAX_CONNECTIONS = 1_000;
/** Default cap on open connections from one remote address to one gRPC listener. */
export const DEFAULT_GRPC_MAX_CONNECTIONS_PER_ADDRESS = 100;

/** The bounds of one gRPC listener's connections. */
export interface GrpcConnectionBounds {
  firstCallTimeoutMs: number;
  maxConnections: number;
  maxConnectionsPerAddress: number;
}

/**
 * The connections that have not started a call yet. grpc-js gives no connection object to its
 * handlers, so a call is matched to its connection by the connection's four-tuple, which grpc-js
 * reports for every call (`getConnectionInfo`) and which no two open connections share.
 */
export class FirstCallWatch {
  // One entry per connection still waiting for its first call: bounded by the connection caps.
  readonly #waiting = new Map<string, () => void>();

  /** The grpc-js server interceptor that marks a connection's first call; passes the call on untouched. */
  readonly interceptor: ServerInterceptor = (_method, call) => {
    if (this.#waiting.size > 0) {
      const info = call.getConnectionInfo();
      this.#waiting.get(tupleKey(info.localPort, info.remoteAddress, info.remotePort))?.();
    }
    // The call itself, not a wrapper: nothing is intercepted, so nothing is allocated per call.
    return call as ServerInterceptingCall;
  };

  /** Destroys `socket` unless a call comes on it within `timeoutMs`. */
  watch(socket: Socket, timeoutMs: number): void {
    const key = tupleKey(socket.localPort, socket.remoteAddress, socket.remotePort);
    const timer = setTimeout(() => {
      done();
      socket.destroy();
    }, timeoutMs);
    timer.unref();
    const done = (): void => {
      clearTimeout(timer);
      if (this.#waiting.get(key) === done) this.#waiting.delete(key);
      socket.removeListener('close', done);
    };
    this.#waiting.set(key, done);
    socket.once('close', done);
  }
}

function tupleKey(localPort?: number, remoteAddress?: string, remotePort?: number): string {
  return `${localPort ?? ''}|${remoteAddress ?? ''}|${remotePort ?? ''}`;
}

/** One bound address: its net server, the grpc-js injector its connections go to, their caps. */
export class GrpcListener {
  private constructor(
    private readonly net: NetServer,
    private readonly injector: ConnectionInjector,
    private readonly limiter: ConnectionLimiter,
    /** The bound port. */
    readonly port: number,
  ) {}

  /** Listens on `host:port` and serves what connects with `server`, within `bounds`. */
  static async open(
    server: Server,
    credentials: ServerCredentials,
    watch: FirstCallWatch,
    host: string,
    port: number,
    bounds: GrpcConnectionBounds,
  ): Promise<GrpcListener> {
    const limiter = new ConnectionLimiter(bounds);
    if (!(Number.isFinite(bounds.firstCallTimeoutMs) && bounds.firstCallTimeoutMs > 0)) {
      throw new RangeError('firstCallTimeoutMs must be a positive number');
    }
    const injector = server.createConnectionInjector(credentials);
    const net = createServer({ noDelay: true }, (socket) => {
      // A connection reset before it is handled has no error listener yet: keep it from
      // becoming an uncaught 'error' (grpc-js adds its own once it has the connection).
      socket.on('error', () => undefined);
      if (!limiter.admit(socket)) return;
      watch.watch(socket, bounds.firstCallTimeoutMs);
      injector.injectConnection(socket);
    });
    await new Promise<void>((resolve, reject) => {
      net.once('error', reject);
      net.listen(port, host, () => {
        net.removeListener('error', reject);
        resolve();
      });
    });
    const address = net.address();
    const bound = typeof address === 'object' && address ? address.port : port;
    return new GrpcListener(net, injector, limiter, bound);
  }

  /** Connections open now. */
  get connections(): number {
    return this.limiter.size;
  }

  /** Stops accepting connections; those open stay until grpc-js closes them (or {@link destroy}). */
  stopAccepting(): void {
    this.net.close();
  }

  /** Closes every connection at once (the end of the shutdown grace). */
  destroy(): void {
    this.injector.destroy();
    this.limiter.destroyAll();
  }
}
