/**
 * The gRPC binding, server side: `lf.a2a.v1.A2AService` on grpc-js. Each RPC decodes and
 * validates its request, reads the service parameters from metadata (spec 10.2), calls exactly
 * one {@link RequestHandler} method and encodes the answer. No operation logic lives here.
 */
import {
  Metadata,
  Server,
  ServerCredentials,
  type ServerUnaryCall,
  type ServerWritableStream,
  type sendUnaryData,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { ParseError } from '../../errors/a2a-error.js';
import type { StreamResponse } from '../../model/schema.js';
import { parseRequest } from '../../errors/validation.js';
import type { Principal, ServerCallContext } from '../../core/context.js';
import type { RequestHandler } from '../../core/handler/request-handler.js';
import { invokeStreaming, invokeUnary } from '../http/http-body.js';
import {
  EXTENSIONS_HEADER,
  LEGACY_EXTENSIONS_HEADER,
  VERSION_HEADER,
  checkRequiredExtensions,
  lastEventIdInit,
  offersDraft,
  parseExtensions,
  resolveVersion,
} from '../http/service-params.js';

/**
 * GEN-5: gRPC has no SSE ids; a resuming SubscribeToTask or SendStreamingMessage names the last
 * event it saw (`<taskId>:<generation>`) in this request metadata key, as HTTP's Last-Event-ID.
 */
export const LAST_EVENT_ID_METADATA = 'last-event-id';
import { securityHeadersFor } from '../http/security-headers.js';
import { principalOf } from '../auth-request.js';
import { authRequestFromGrpc } from './auth-request.js';
import {
  GRPC_METHODS,
  decodeRequest,
  serverServiceDefinition,
  type DecodedRequest,
  type GrpcMethod,
} from './service.js';
import { encodeFast } from './encode.js';
import { toGrpcStatus } from './status.js';
import { attachTraceCarrier } from '../../core/trace-carrier.js'; // observability (issue 15)
import {
  DEFAULT_FIRST_CALL_TIMEOUT_MS,
  DEFAULT_GRPC_MAX_CONNECTIONS,
  DEFAULT_GRPC_MAX_CONNECTIONS_PER_ADDRESS,
  FirstCallWatch,
  GrpcListener,
} from './listener.js';
import { DEFAULT_MAX_MESSAGE_BYTES, type GrpcBindingOptions } from './server-options.js';

export { DEFAULT_MAX_MESSAGE_BYTES, type GrpcBindingOptions } from './server-options.js';

/**
 * The AbortSignal of a unary call, created only if an operation reads it (a blocking
 * SendMessage does); an AbortController per call, aborted with a DOMException when grpc-js
 * reports the call's end, would be most of the binding's own cost.
 */
class LazyAbort {
  #controller: AbortController | undefined;
  #aborted = false;

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort();
    }
    return this.#controller.signal;
  }

  readonly abort = (): void => {
    if (this.#controller) this.#controller.abort();
    else this.#aborted = true;
  };
}

/** `ctx` with the call's W3C trace headers recorded (observability, issue 15). */
function traced(metadata: Metadata, ctx: ServerCallContext): ServerCallContext {
  attachTraceCarrier(ctx, first(metadata, 'traceparent'), first(metadata, 'tracestate'));
  return ctx;
}

function first(metadata: Metadata, key: string): string | undefined {
  const values = metadata.get(key);
  if (values.length === 0) return undefined;
  if (values.length === 1 && typeof values[0] === 'string') return values[0];
  return values.map(String).join(',');
}

function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as Partial<PromiseLike<T>>).then === 'function';
}

/** The status of a failed call, with `www-authenticate` / `retry-after` trailing metadata when they apply. */
function grpcStatus(err: unknown): ReturnType<typeof toGrpcStatus> {
  const status = toGrpcStatus(err);
  for (const [key, value] of Object.entries(securityHeadersFor(err))) status.metadata?.set(key, value);
  return status;
}

/**
 * Serves `lf.a2a.v1.A2AService` for a {@link RequestHandler}: on its own grpc-js server
 * ({@link GrpcBinding.listen}), or mounted on yours ({@link GrpcBinding.addTo}).
 *
 * @example
 * // Its own server and port (`a2a` from createA2AServer, or any RequestHandler):
 * const grpc = new GrpcBinding(a2a.handler);
 * const port = await grpc.listen(0);
 * // ... later
 * await grpc.close();
 *
 * @example
 * // Your grpc-js server, next to your other services, with your port and credentials:
 * import { Server, ServerCredentials } from '@grpc/grpc-js';
 * const server = new Server();
 * new GrpcBinding(a2a.handler).addTo(server);
 * server.bindAsync('0.0.0.0:50051', ServerCredentials.createInsecure(), () => undefined);
 * // You shut it down (server.tryShutdown); the binding's own close() has nothing to do.
 */
export class GrpcBinding {
  /** The underlying grpc-js server (for adding more services). */
  readonly server: Server;
  private readonly handler: RequestHandler;
  private readonly options: GrpcBindingOptions;
  private readonly firstCalls = new FirstCallWatch();
  private listeners: GrpcListener[] = [];

  constructor(handler: RequestHandler, options: GrpcBindingOptions = {}) {
    this.handler = handler;
    this.options = options;
    const max = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.server = new Server({
      'grpc.max_receive_message_length': max,
      'grpc.max_send_message_length': max,
      'grpc.keepalive_time_ms': options.keepalive?.timeMs ?? 60_000,
      'grpc.keepalive_timeout_ms': options.keepalive?.timeoutMs ?? 20_000,
      // Idle connections are bounded in time (issue 27): grpc-js keeps them forever by default.
      'grpc.max_connection_idle_ms': options.idleTimeoutMs ?? 120_000,
      // Channelz bookkeeping (per-call counters and traces) costs several percent of a unary
      // call and nothing here reads it; `channelOptions` can turn it back on.
      'grpc.enable_channelz': 0,
      ...options.channelOptions,
      interceptors: [this.firstCalls.interceptor],
    });
    this.addTo(this.server);
  }

  /**
   * Adds the A2A service to `server`, a grpc-js Server you own (bind, credentials, shutdown
   * and message-size limits are then yours; `maxMessageBytes` applies to this binding's own
   * server only). May be called for several servers.
   */
  addTo(server: Server): void {
    const impl: UntypedServiceImplementation = {};
    for (const m of Object.values(GRPC_METHODS)) {
      impl[m.method] = m.streaming
        ? (call: ServerWritableStream<DecodedRequest, Uint8Array>) => void this.serveStream(m, call)
        : (call: ServerUnaryCall<DecodedRequest, Uint8Array>, callback: sendUnaryData<Uint8Array>) =>
            void this.serveUnary(m, call, callback);
    }
    server.addService(serverServiceDefinition(), impl);
  }

  /**
   * Starts listening; resolves to the bound port (useful with port 0). Plaintext by default,
   * meant for loopback or behind a TLS-terminating proxy; pass `credentials` for TLS. Each
   * connection is bounded: `maxConnections`, `maxConnectionsPerAddress`, `firstCallTimeoutMs`
   * and `idleTimeoutMs`.
   */
  async listen(port: number, host = '127.0.0.1', credentials?: ServerCredentials): Promise<number> {
    const listener = await GrpcListener.open(
      this.server,
      credentials ?? ServerCredentials.createInsecure(),
      this.firstCalls,
      host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host,
      port,
      {
        firstCallTimeoutMs: this.options.firstCallTimeoutMs ?? DEFAULT_FIRST_CALL_TIMEOUT_MS,
        maxConnections: this.options.maxConnections ?? DEFAULT_GRPC_MAX_CONNECTIONS,
        maxConnectionsPerAddress:
          this.options.maxConnectionsPerAddress ?? DEFAULT_GRPC_MAX_CONNECTIONS_PER_ADDRESS,
      },
    );
    this.listeners.push(listener);
    return listener.port;
  }

  /** Connections open now on the listeners of {@link listen}. */
  get connections(): number {
    return this.listeners.reduce((sum, l) => sum + l.connections, 0);
  }

  /** Stops accepting calls, lets running ones finish for the grace period, then cancels them. */
  close(): Promise<void> {
    const listeners = this.listeners;
    if (listeners.length === 0) return Promise.resolve();
    this.listeners = [];
    for (const l of listeners) l.stopAccepting();
    const grace = this.options.shutdownGraceMs ?? 2000;
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.server.forceShutdown();
        resolve();
      }, grace);
      timer.unref();
      this.server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
      // Connections grpc-js never got a session for (a TLS handshake under way) are ours to end.
    }).then(() => {
      for (const l of listeners) l.destroy();
    });
  }

  /**
   * The caller from metadata, then the request decoded and validated, then the call context
   * (its `tenant` from the request, spec 10.2): a refused caller costs no decoding.
   */
  private prepare(
    m: GrpcMethod,
    call: ServerUnaryCall<DecodedRequest, Uint8Array> | ServerWritableStream<DecodedRequest, Uint8Array>,
    protocolVersion: string,
    signal: AbortSignal | LazyAbort,
  ): { request: unknown; ctx: ServerCallContext } | Promise<{ request: unknown; ctx: ServerCallContext }> {
    const principal = principalOf(this.options.authenticate, () => authRequestFromGrpc(call));
    const build = (p: Principal): { request: unknown; ctx: ServerCallContext } => {
      const request = this.request(m, call.request);
      return { request, ctx: this.contextFor(p, call, protocolVersion, request, signal) };
    };
    // Without a hook the principal is at hand: no promise on the hot path.
    if (!isPromiseLike(principal)) return build(principal);
    return Promise.resolve(principal).then(build);
  }

  private contextFor(
    principal: Principal,
    call: { readonly metadata: Metadata },
    protocolVersion: string,
    request: unknown,
    signal: AbortSignal | LazyAbort,
  ): ServerCallContext {
    const metadata = call.metadata;
    const ext = metadata.get(EXTENSIONS_HEADER);
    const legacy = metadata.get(LEGACY_EXTENSIONS_HEADER);
    const requestedExtensions =
      ext.length + legacy.length === 0 ? [] : parseExtensions([...ext, ...legacy].map(String));
    const activatedExtensions = new Set<string>();
    checkRequiredExtensions(this.handler.agentCard(), requestedExtensions, activatedExtensions);
    const tenant = (request as { tenant?: unknown }).tenant;
    const tenantId = typeof tenant === 'string' ? tenant : '';
    if (signal instanceof LazyAbort) {
      // An own enumerable getter: created on first read, still copied by `{ ...ctx }`.
      return traced(metadata, {
        binding: 'GRPC',
        tenant: tenantId,
        principal,
        requestedExtensions,
        activatedExtensions,
        protocolVersion,
        ...lastEventIdInit(first(metadata, LAST_EVENT_ID_METADATA)),
        get signal(): AbortSignal {
          return signal.signal;
        },
      });
    }
    return traced(metadata, {
      binding: 'GRPC',
      tenant: tenantId,
      principal,
      requestedExtensions,
      activatedExtensions,
      protocolVersion,
      ...lastEventIdInit(first(metadata, LAST_EVENT_ID_METADATA)),
      signal,
    });
  }

  /** The decoded, schema-valid request (validated as in the HTTP bindings), or the INVALID_ARGUMENT error for it. */
  private request(m: GrpcMethod, bytes: DecodedRequest): unknown {
    const decoded = decodeRequest(m.input, bytes);
    if (!decoded.ok) {
      throw new ParseError(`Request is not a valid ${m.input.typeName} message: ${decoded.reason}`);
    }
    return parseRequest(m.method, decoded.value);
  }

  private responseMetadata(ctx: ServerCallContext): Metadata | undefined {
    if (ctx.activatedExtensions.size === 0) return undefined;
    const md = new Metadata();
    md.set(EXTENSIONS_HEADER, [...ctx.activatedExtensions].join(','));
    return md;
  }

  private async serveUnary(
    m: GrpcMethod,
    call: ServerUnaryCall<DecodedRequest, Uint8Array>,
    callback: sendUnaryData<Uint8Array>,
  ): Promise<void> {
    const abort = new LazyAbort();
    // `on`, not `once`: it is removed on every path below, and once() allocates a wrapper.
    call.on('cancelled', abort.abort);
    try {
      // The lf.a2a.v1 package is unmistakably v1.0, so a missing version is served as 1.0 (N9).
      const version = resolveVersion(
        first(call.metadata, VERSION_HEADER),
        true,
        offersDraft(this.handler.agentCard()),
      );
      const { request, ctx } = await this.prepare(m, call, version, abort);
      const result = await invokeUnary(this.handler, m.method, request, ctx);
      const bytes = encodeFast(m.output, result);
      const md = this.responseMetadata(ctx);
      if (md) call.sendMetadata(md);
      call.removeListener('cancelled', abort.abort);
      callback(null, bytes);
    } catch (err) {
      call.removeListener('cancelled', abort.abort);
      callback(grpcStatus(err));
    }
  }

  private async serveStream(
    m: GrpcMethod,
    call: ServerWritableStream<DecodedRequest, Uint8Array>,
  ): Promise<void> {
    const abort = new AbortController();
    let iterator: AsyncIterator<StreamResponse> | undefined;
    let stopped = false;
    let wake: (() => void) | undefined;
    const stop = (): void => {
      if (stopped) return;
      stopped = true;
      abort.abort();
      wake?.();
      // The client went away: stop reading events, never cancel the task (spec 3.1.2 / DESIGN).
      void iterator?.return?.()?.catch(() => undefined);
    };
    call.once('cancelled', stop);
    try {
      // The lf.a2a.v1 package is unmistakably v1.0, so a missing version is served as 1.0 (N9).
      const version = resolveVersion(
        first(call.metadata, VERSION_HEADER),
        true,
        offersDraft(this.handler.agentCard()),
      );
      const { request, ctx } = await this.prepare(m, call, version, abort.signal);
      const iterable = await invokeStreaming(this.handler, m.method, request, ctx);
      iterator = iterable[Symbol.asyncIterator]();
      if (stopped) {
        await iterator.return?.();
        return;
      }
      // Headers go out now, not with the first event: the client knows the stream is open
      // while the agent is still thinking. They echo the extensions activated so far.
      call.sendMetadata(this.responseMetadata(ctx) ?? new Metadata());
      while (!stopped) {
        const next = await iterator.next();
        if (next.done || stopped) break;
        const bytes = encodeFast(m.output, next.value);
        if (!call.write(bytes) && !stopped) {
          // Backpressure: wait until grpc-js drained its buffer (or the client left).
          await new Promise<void>((resolve) => {
            wake = resolve;
            call.once('drain', resolve);
          });
          call.removeListener('drain', wake as () => void);
          wake = undefined;
        }
      }
      if (!stopped) call.end();
    } catch (err) {
      if (stopped) return;
      stopped = true;
      void iterator?.return?.()?.catch(() => undefined);
      call.emit('error', grpcStatus(err));
    }
  }
}
