/**
 * Hosting: {@link createA2AServer} wires the JSON-RPC and REST bindings, the well-known card
 * and (optionally) gRPC around one RequestHandler, on a standalone node:http server, as a
 * Connect/Express middleware ({@link A2AServer.nodeHandler}) or as a fetch-style handler
 * ({@link A2AServer.fetch}). This file holds the lifecycle (build, listen, close); routing,
 * options, the card source and the runtime adapters have their own files.
 */
import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { DEFAULT_BODY_LIMIT } from '../bindings/http/http-body.js';
import { A2AConfigError } from '../errors/config-errors.js';
import type { AgentCard } from '../model/schema.js';
import type { ServerCallContext } from '../core/context.js';
import type { RequestHandler } from '../core/handler/request-handler.js';
import { interceptHandler } from '../core/handler/interceptor.js';
import { openStores, type OpenedStores } from '../core/stores/open.js';
import { validateAgentCard } from './card/build.js';
import { CardSource, completeExtendedCard, formatHost } from './card-source.js';
import { createNodeHandler, type NodeHandler } from './adapters/node.js';
import { serveFetch } from './adapters/fetch.js';
import { normalizeBasePath } from './adapters/base-path.js';
import { InFlight } from './in-flight.js';
import type { A2AServerOptions } from './options.js';
import { wireSecurity } from './security.js';
import { tenantGuard } from './auth/tenant.js';
import type { FetchConnectionInfo } from './auth/request.js';
import { principalLimits } from './limits/interceptors.js';
import { httpConnectionLimits, httpServerTimeouts } from './limits/http-timeouts.js';
import { ConnectionLimiter } from '../bindings/connection-limits.js';
import { httpsServerOptions, type TlsConfig } from './auth/tls.js';
import type { AgentExecutor } from '../core/executor.js';
import { A2ARouter } from './routing.js';
import { PUSH_JWKS_PATH } from '../core/push/notification-signing.js';
import { PushHosting } from './push/hosting.js';
import { checkRoutes, createDefaultHandler, signerOf, storeSpecOf, tlsMaterial } from './assembly.js';

export { DEFAULT_STORE } from './assembly.js';
export type { A2AServer, ListenInfo } from './a2a-server.js';
import type { A2AServer, ListenInfo } from './a2a-server.js';

export type {
  A2AServerOptions,
  AnonymousAccess,
  ExtendedCardConfig,
  PrincipalLimitOptions,
  ServerLimits,
  ServerSecurityOptions,
  ServerTlsOptions,
} from './options.js';
export type { NodeHandler } from './adapters/node.js';
export type { FetchConnectionInfo } from './auth/request.js';
export type { ServerRoute } from './routing.js';
export type { HttpReply, HttpRequest } from '../bindings/http/http-body.js';
import { createObservability, errorField } from './observability/index.js';

interface GrpcHost {
  listen(port: number, host?: string): Promise<number>;
  close(): Promise<void>;
}

class A2AHttpServer implements A2AServer {
  readonly handler: RequestHandler;
  /** The node handler the server's own listener uses (the `nodeHandler` getter checks mounting). */
  private readonly ownNodeHandler: NodeHandler;
  /** The handler the bindings call: `handler` inside the interceptors. */
  private readonly served: RequestHandler;
  private readonly cards: CardSource;
  private readonly router: A2ARouter;
  private readonly inFlight = new InFlight();
  private readonly keepAliveMs: number;
  private readonly onError: (error: unknown) => void;
  /** Push delivery, the JWKS of signed notifications and the config checks; undefined without push. */
  private readonly push: PushHosting | undefined;
  private server: Server | undefined;
  private grpc: GrpcHost | undefined;
  private closing: Promise<void> | undefined;
  /** The stores opened from a `store` text option (closed with the server). */
  private readonly stores: OpenedStores | undefined;
  private readonly tls: TlsConfig | undefined;
  private readonly authenticate: A2AServerOptions['authenticate'];
  /** Answers the held long-polling GetTask calls (the DefaultRequestHandler's), at close. */
  private readonly releaseLongPolls: (() => void) | undefined;

  constructor(private readonly options: A2AServerOptions) {
    const streaming = options.streaming ?? true;
    const extendedCard = options.extendedCard;
    if (options.security && options.authenticate) {
      throw new Error('createA2AServer: give either security or authenticate, not both');
    }
    // The card's security section comes from the authenticators (refused at start when it disagrees).
    const security = options.security
      ? wireSecurity(options.security, options.card, { logger: options.logger || undefined })
      : undefined;
    this.authenticate = security?.authenticate ?? options.authenticate;
    this.tls = options.tls ? tlsMaterial(options.tls) : undefined;
    this.cards = new CardSource(
      security?.card ?? options.card,
      {
        jsonrpc: true,
        rest: true,
        streaming,
        pushNotifications: options.pushNotifications ?? false,
        // PUSH HOOK (issue 12): the card names the JWKS of signed notifications (G15).
        ...(options.pushNotifications && options.push?.signingKey !== false
          ? { pushJwksPath: PUSH_JWKS_PATH }
          : {}),
        extendedAgentCard: extendedCard !== undefined,
        compatV03: options.compatV03 !== false,
        // A2A 1.1 draft (issue 31): the card declares the generation extension.
        ...(options.generation
          ? {
              generation: {
                advertiseDraftVersion:
                  typeof options.generation === 'object' && options.generation.advertiseDraftVersion === true,
              },
            }
          : {}),
      },
      options.publicUrl,
      options.grpc,
      options.sign ? signerOf(options.sign.keys) : undefined,
    );
    const card = (): AgentCard => this.cards.card();
    const extended =
      extendedCard === undefined
        ? undefined
        : async (ctx: ServerCallContext): Promise<AgentCard> => {
            const config = typeof extendedCard === 'function' ? await extendedCard(ctx) : extendedCard;
            return completeExtendedCard(config, card());
          };
    if (extendedCard !== undefined && typeof extendedCard !== 'function') {
      validateAgentCard(completeExtendedCard(extendedCard, card()));
    }
    if (!options.handler) {
      const spec = storeSpecOf(options);
      if (spec !== undefined) this.stores = openStores(spec);
    }
    const limits = principalLimits(options.limits ?? {}, () => this.handler);
    const executor: AgentExecutor =
      typeof options.agent === 'function' ? { execute: options.agent } : options.agent;
    // Logging, tracing and metrics interceptors around the handler (issue 15).
    const obs = createObservability({
      logger: options.logger,
      ...(options.redactValues ? { secrets: options.redactValues } : {}),
    });
    const logger = obs.logger;
    const onError =
      options.onError ??
      (logger
        ? (error: unknown) => logger.error({ err: errorField(error, obs.secrets) }, 'unexpected error')
        : (error: unknown) => console.error('a2a-kit: unexpected error', error));
    // Push first: the handler takes its config store (the server's store when it has one).
    this.push = options.pushNotifications
      ? new PushHosting(
          {
            // The store's own outbox (durable on SQLite and PostgreSQL), unless the caller
            // keeps configs elsewhere: an outbox reads the configs of its own store.
            ...(this.stores && !options.push?.configStore
              ? { configStore: this.stores.pushConfigStore, outbox: this.stores.pushOutbox }
              : {}),
            ...(options.push ?? {}),
          },
          onError,
          obs.push, // one line per delivery attempt (issue 27)
          Boolean(options.generation), // A2A 1.1 draft: opted-in configs get generations (GEN-6)
        )
      : undefined;
    const handler = options.handler
      ? options.handler(card)
      : createDefaultHandler(
          card,
          options,
          limits.wrapExecutor(executor),
          extended,
          this.stores,
          this.push,
          obs,
          onError,
        );
    // A2A 1.1 draft (issue 31): the handler's own method, before any wrapper hides it.
    const release = (handler as { releaseLongPolls?: () => void }).releaseLongPolls;
    this.releaseLongPolls = release ? release.bind(handler) : undefined;
    this.handler = obs.handler(this.push ? this.push.attach(handler) : handler);
    this.served = interceptHandler(this.handler, [
      // A credential bound to tenants acts only in those (SRV-TRUST-3); only an authenticating
      // server has such principals, so an open one keeps its interceptor-free hot path.
      ...(this.authenticate ? [tenantGuard] : []),
      ...(security ? [security.interceptor] : []),
      ...limits.interceptors,
      ...(options.interceptors ?? []),
    ]);
    this.onError = onError;
    const push = this.push;
    const routes = { ...checkRoutes(options.routes) };
    if (push) routes[PUSH_JWKS_PATH] = (req) => push.jwksReply(req.method);
    this.router = new A2ARouter(this.served, this.cards, {
      extraRoutes: routes,
      bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
      onError: this.onError,
      ...(this.authenticate ? { authenticate: this.authenticate } : {}),
      compatV03: options.compatV03 !== false,
    });
    this.keepAliveMs = options.keepAliveMs ?? 20_000;
    this.ownNodeHandler = createNodeHandler(this.router, this.inFlight, this.keepAliveMs, this.onError);
  }

  /** Mounting: throws A2AConfigError when cards are signed and no URL is configured (SRV-TRUST-6). */
  get nodeHandler(): NodeHandler {
    this.checkMountable();
    return this.ownNodeHandler;
  }

  card(): AgentCard {
    return this.cards.card();
  }

  readonly fetch = (request: Request, info?: FetchConnectionInfo): Promise<Response> => {
    try {
      this.checkMountable();
    } catch (error) {
      return Promise.reject(error);
    }
    return serveFetch(this.router, this.inFlight, this.keepAliveMs, request, info);
  };

  fetchBelow(
    basePath: string,
    request: Request,
    options: { origin?: string; info?: FetchConnectionInfo } = {},
  ): Promise<Response> {
    try {
      this.checkMountable();
    } catch (error) {
      return Promise.reject(error);
    }
    return serveFetch(
      this.router,
      this.inFlight,
      this.keepAliveMs,
      request,
      options.info,
      normalizeBasePath(basePath),
      options.origin,
    );
  }

  serves(path: string): boolean {
    return this.router.serves(path);
  }

  nodeHandlerBelow(basePath: string): NodeHandler {
    const base = normalizeBasePath(basePath);
    if (base === '') return this.nodeHandler;
    this.checkMountable();
    return createNodeHandler(this.router, this.inFlight, this.keepAliveMs, this.onError, base);
  }

  /**
   * A mounted server learns its URL from each request's Host (or URL): signing that card would
   * hand any caller a validly signed card naming the caller's endpoints. So `sign` without
   * `publicUrl` is refused as soon as the server is mounted, before it serves anything.
   */
  private checkMountable(): void {
    if (this.cards.signsWithoutBase()) {
      throw new A2AConfigError(
        'A2A_CONFIG_INVALID_OPTION',
        'sign needs publicUrl when the server is mounted (nodeHandler, fetch): a signed card is built only from configured URLs',
      );
    }
  }

  async listen(port = 41241, host?: string): Promise<ListenInfo> {
    if (this.server) throw new Error('The server is already listening');
    if (this.closing) throw new Error('The server is closed');
    if (this.stores) await this.stores.ready;
    const timeouts = httpServerTimeouts(this.options.timeouts);
    // node:http on use: the fetch handler is the whole server on Bun, Deno and workerd.
    const server = this.tls
      ? (await import('node:https')).createServer(
          { ...httpsServerOptions(this.tls), ...timeouts },
          this.ownNodeHandler,
        )
      : (await import('node:http')).createServer(timeouts, this.ownNodeHandler);
    this.server = server;
    // Before node:http (or TLS) sets the connection up: a refused one costs no parser.
    const connections = new ConnectionLimiter(httpConnectionLimits(this.options.timeouts));
    server.prependListener('connection', (socket: Socket) => void connections.admit(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.removeListener('error', reject);
        resolve();
      });
    });
    const address = server.address() as AddressInfo;
    const url = `${this.tls ? 'https' : 'http'}://${formatHost(host ?? '')}:${address.port}`;
    let grpcPort: number | undefined;
    let grpcTarget: string | undefined;
    if (this.options.grpc) {
      const authenticate = this.authenticate;
      const { GrpcBinding } = await import('../bindings/grpc/server.js');
      const grpc = new GrpcBinding(this.served, {
        maxMessageBytes: this.options.bodyLimit ?? DEFAULT_BODY_LIMIT,
        ...(authenticate ? { authenticate } : {}),
        ...grpcConnectionOptions(this.options.grpc),
      });
      this.grpc = grpc;
      if (this.options.compatV03 !== false) {
        // v0.3 compatibility: `a2a.v1.A2AService` on the same gRPC server.
        const { V03GrpcService } = await import('../bindings/compat-v03/grpc-server.js');
        new V03GrpcService(this.served, {
          onError: this.onError,
          ...(authenticate ? { authenticate } : {}),
        }).addTo(grpc.server);
      }
      const grpcHost = this.options.grpc.host ?? host ?? '0.0.0.0';
      const credentials = this.tls
        ? (await import('../bindings/grpc/credentials.js')).grpcServerCredentials(this.tls)
        : undefined;
      grpcPort = await grpc.listen(this.options.grpc.port, grpcHost, credentials);
      grpcTarget = `${formatHost(this.options.grpc.host ?? host ?? '')}:${grpcPort}`;
    }
    this.cards.listening(url, grpcTarget);
    await this.cards.ready();
    return grpcPort === undefined ? { url, port: address.port } : { url, port: address.port, grpcPort };
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.inFlight.closing = true;
    const server = this.server;
    const closed = server ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
    this.inFlight.stopStreams();
    // A2A 1.1 draft (issue 31): held long-polling GetTask calls answer now, not after the grace.
    this.releaseLongPolls?.();
    server?.closeIdleConnections();
    const grace = this.options.closeGraceMs ?? 5_000;
    await this.inFlight.waitIdle(grace);
    const handler = this.handler as RequestHandler & { close?: () => Promise<void> };
    await handler.close?.();
    await this.inFlight.waitIdle(grace);
    await this.grpc?.close();
    server?.closeAllConnections();
    await closed;
    await this.stores?.close();
  }
}

/** The connection bounds among the `grpc` options, only those set (the binding has the defaults). */
function grpcConnectionOptions(grpc: NonNullable<A2AServerOptions['grpc']>): Partial<GrpcConnectionOptions> {
  const picked: Partial<GrpcConnectionOptions> = {};
  for (const key of GRPC_CONNECTION_KEYS) if (grpc[key] !== undefined) picked[key] = grpc[key];
  return picked;
}

const GRPC_CONNECTION_KEYS = [
  'idleTimeoutMs',
  'firstCallTimeoutMs',
  'maxConnections',
  'maxConnectionsPerAddress',
] as const;
type GrpcConnectionOptions = Required<
  Pick<NonNullable<A2AServerOptions['grpc']>, (typeof GRPC_CONNECTION_KEYS)[number]>
>;

/**
 * Creates an A2A server: JSON-RPC at `/a2a/jsonrpc`, HTTP+JSON at `/a2a/rest`, the public card
 * at `/.well-known/agent-card.json`, and gRPC when `grpc` is set. Throws at once when the card
 * is invalid or would misstate what is enabled.
 *
 * @example
 * const server = createA2AServer({ agent, card: { name: 'echo', description: 'Echoes', version: '1.0.0',
 *   skills: [{ id: 'echo', name: 'Echo', description: 'Echoes text', tags: ['demo'] }] } });
 * const { url } = await server.listen(41241);
 */
export function createA2AServer(options: A2AServerOptions): A2AServer {
  return new A2AHttpServer(options);
}
