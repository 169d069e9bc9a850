/**
 * Hosting: {@link createA2AServer} wires the JSON-RPC and REST bindings, the well-known card
 * and (optionally) gRPC around one RequestHandler, on a standalone node:http server, as a
 * Connect/Express middleware ({@link A2AServer.nodeHandler}) or as a fetch-style handler
 * ({@link A2AServer.fetch}).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { JsonRpcBinding } from '../bindings/jsonrpc/server.js';
import { RestBinding } from '../bindings/rest/server.js';
import {
  DEFAULT_BODY_LIMIT,
  readNodeBody,
  readWebBody,
  type HttpReply,
  type HttpRequest,
  type SseSource,
} from '../bindings/http/http-body.js';
import { sseToWebStream, writeSse } from '../bindings/http/sse.js';
import { V03Router } from '../bindings/compat-v03/router.js'; // v0.3 compatibility (issue 14)
import type { AgentCard } from '../model/schema.js';
import {
  JSONRPC_PATH,
  REST_ROOT,
  WELL_KNOWN_CARD_PATH,
  buildAgentCard,
  checkCardConfig,
  validateAgentCard,
  type AgentCardConfig,
  type CardFacts,
} from './card/build.js';
import { CardResource } from './card/serve.js';
import type { ServerCallContext } from '../core/context.js';
import type { AgentExecutor } from '../core/executor.js';
import {
  DefaultRequestHandler,
  type DefaultRequestHandlerOptions,
  type RequestHandler,
} from '../core/handler/request-handler.js';
import { MemoryPushConfigStore, MemoryTaskStore } from '../core/stores/memory.js';
import type { TaskStore } from '../core/stores/task-store.js';
import { InProcessEventBus } from '../core/event-bus/in-process.js';
import { createObservability, errorField, type Logger, type Observability } from './observability/index.js'; // observability (issue 15)

/** An extended card: a complete card, or the fields an author writes (the rest is derived). */
export type ExtendedCardConfig = AgentCard | AgentCardConfig;

/** Options of {@link createA2AServer}. */
export interface A2AServerOptions {
  /**
   * The agent: an executor, or just its `execute` function.
   * @example agent: async (ctx, task) => task.complete(`you said ${ctx.text}`)
   */
  agent: AgentExecutor | AgentExecutor['execute'];
  /** The public card; `supportedInterfaces` and capability flags are derived from these options. */
  card: AgentCardConfig;
  /**
   * The extended card for authenticated callers (GetExtendedAgentCard). Setting it turns on
   * `capabilities.extendedAgentCard`. Interfaces and capabilities are copied from the public card.
   */
  extendedCard?:
    ExtendedCardConfig | ((ctx: ServerCallContext) => ExtendedCardConfig | Promise<ExtendedCardConfig>);
  /** Where tasks live. @default 'memory' */
  store?: 'memory' | TaskStore;
  /** Offer SendStreamingMessage and SubscribeToTask. @default true */
  streaming?: boolean;
  /** Offer push notifications. @default false */
  pushNotifications?: boolean;
  /** Also serve gRPC on this port (0 = any free port); listed on the card as `host:port`. */
  grpc?: { port: number; host?: string };
  /**
   * The URL clients reach this server at (`https://agents.example.com`), used in the card's
   * interfaces. @default the listen address, or the request's Host when mounted elsewhere
   */
  publicUrl?: string;
  /** Largest accepted request body in bytes (also the gRPC message limit). @default 1048576 */
  bodyLimit?: number;
  /** Interval between SSE keep-alive comments. @default 20000 */
  keepAliveMs?: number;
  /**
   * How long {@link A2AServer.close} waits for in-flight responses before aborting the agents.
   * @default 5000
   */
  closeGraceMs?: number;
  /** Receives failures that are not protocol errors. @default console.error */
  onError?: (error: unknown) => void;
  /**
   * How long a task may wait in `TASK_STATE_INPUT_REQUIRED` or `TASK_STATE_AUTH_REQUIRED` for
   * the client before it is failed; `0` or `Infinity` waits forever. See
   * `DefaultRequestHandlerOptions.interruptedTimeoutMs`.
   * @default 3600000 (one hour)
   */
  interruptedTimeoutMs?: number;
  /**
   * Resource bounds and the idempotency window, passed to the DefaultRequestHandler (see
   * {@link DefaultRequestHandlerOptions} for each one's meaning and default).
   */
  limits?: ServerLimits;
  /**
   * Advanced: build the RequestHandler yourself instead of the DefaultRequestHandler (`agent`,
   * `store` and `extendedCard` are then unused). Receives the public card.
   */
  handler?: (card: () => AgentCard) => RequestHandler;
  /**
   * Also serve A2A v0.3 clients (requests with `A2A-Version: 0.3`, or without a version and in
   * v0.3 form), and list the v0.3 interfaces and legacy v0.3 fields on the card. `false` answers
   * them with VersionNotSupportedError instead. @default true
   */
  compatV03?: boolean;
  /**
   * Structured logs (see README "Operating a2a-kit"): a pino logger, or `false` for none.
   * @default false (no logs: `a2a serve` passes one)
   */
  logger?: Logger | false;
  /** Exact values (API keys, tokens you configured) masked wherever they would appear in a log line. */
  redactValues?: readonly string[];
}

/** The DefaultRequestHandler options {@link A2AServerOptions.limits} may set. */
export type ServerLimits = Pick<DefaultRequestHandlerOptions, (typeof LIMIT_KEYS)[number]>;

const LIMIT_KEYS = [
  'maxTaskParts',
  'maxTaskBytes',
  'idempotencyTtlMs',
  'maxStreamQueueEvents',
  'maxStreamQueueBytes',
] as const;

/** Where {@link A2AServer.listen} listens. */
export interface ListenInfo {
  /** Base URL of the HTTP server (`http://127.0.0.1:41241`). */
  url: string;
  port: number;
  /** The gRPC port, when gRPC is on. */
  grpcPort?: number;
}

/** A node-style request listener that also works as Connect/Express middleware. */
export type NodeHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  next?: (error?: unknown) => void,
) => void;

/** A running (or ready to run) A2A server. */
export interface A2AServer {
  /** Starts the HTTP server (and gRPC). Port 0 picks a free port. @default port 41241 */
  listen(port?: number, host?: string): Promise<ListenInfo>;
  /** Stops accepting, ends streams, waits for in-flight responses, closes the handler. */
  close(): Promise<void>;
  /** The operations behind every binding. */
  readonly handler: RequestHandler;
  /** The public card as currently served. */
  card(): AgentCard;
  /** Serves the A2A paths; calls `next()` for others (when given) or answers 404. */
  readonly nodeHandler: NodeHandler;
  /** The same, fetch-style (Hono, Bun, Deno, workers): streaming bodies for SSE. */
  fetch(request: Request): Promise<Response>;
}

const NOT_FOUND_BODY = '{"error":{"code":404,"status":"NOT_FOUND","message":"Not found"}}';

interface GrpcHost {
  listen(port: number, host?: string): Promise<number>;
  close(): Promise<void>;
}

/** The DefaultRequestHandler for `options` (when no `handler` is given). */
function createDefaultHandler(
  card: () => AgentCard,
  options: A2AServerOptions,
  extendedCard: ((ctx: ServerCallContext) => Promise<AgentCard>) | undefined,
  obs: Observability,
): RequestHandler {
  if (typeof options.store === 'string' && options.store !== 'memory') {
    throw new Error(
      `store ${JSON.stringify(options.store)} is not supported here: use 'memory' or a TaskStore`,
    );
  }
  return new DefaultRequestHandler({
    // observability (issue 15): the agent, the store and the bus wrapped for traces, metrics, logs.
    ...obs.parts({
      executor: typeof options.agent === 'function' ? { execute: options.agent } : options.agent,
      taskStore:
        options.store === undefined || options.store === 'memory' ? new MemoryTaskStore() : options.store,
      eventBus: new InProcessEventBus(),
    }),
    card,
    ...(extendedCard ? { extendedCard } : {}),
    pushConfigStore: new MemoryPushConfigStore(),
    ...(options.interruptedTimeoutMs !== undefined
      ? { interruptedTimeoutMs: options.interruptedTimeoutMs }
      : {}),
    ...pickLimits(options.limits),
  });
}

function pickLimits(limits: ServerLimits | undefined): ServerLimits {
  const picked: Record<string, unknown> = {};
  for (const key of LIMIT_KEYS) if (limits?.[key] !== undefined) picked[key] = limits[key];
  return picked as ServerLimits;
}

function formatHost(host: string): string {
  if (host === '' || host === '0.0.0.0' || host === '::') return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}

/** Builds the card for a base URL, serves it, and remembers the last few bases. */
class CardSource {
  private readonly byBase = new Map<string, CardResource>();
  private fixedBase: string | undefined;
  private grpcTarget: string | undefined;
  private current: CardResource;
  /** The card's Last-Modified: when its content was last (re)built, stable until then. */
  private modifiedAt = new Date();

  constructor(
    private readonly config: AgentCardConfig,
    private readonly facts: Omit<CardFacts, 'baseUrl' | 'grpcTarget'>,
    publicUrl: string | undefined,
    grpc: { port: number; host?: string } | undefined,
  ) {
    checkCardConfig(config);
    if (publicUrl !== undefined) {
      let parsed: URL;
      try {
        parsed = new URL(publicUrl);
      } catch {
        throw new Error(`publicUrl ${JSON.stringify(publicUrl)} is not an absolute URL`);
      }
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
        throw new Error(`publicUrl must be http: or https:, not ${parsed.protocol}`);
      }
      this.fixedBase = publicUrl.replace(/\/+$/, '');
    }
    if (grpc) {
      const host = grpc.host ?? (this.fixedBase ? new URL(this.fixedBase).hostname : 'localhost');
      this.grpcTarget = `${formatHost(host)}:${grpc.port}`;
    }
    this.current = this.build(this.fixedBase ?? 'http://localhost');
  }

  private build(baseUrl: string): CardResource {
    const card = buildAgentCard(this.config, {
      ...this.facts,
      baseUrl,
      ...(this.grpcTarget ? { grpcTarget: this.grpcTarget } : {}),
    });
    validateAgentCard(card);
    return new CardResource(card, this.modifiedAt);
  }

  /** Called once listening: the listen URL becomes the base unless publicUrl was given. */
  listening(url: string, grpcTarget: string | undefined): void {
    if (grpcTarget) this.grpcTarget = grpcTarget;
    this.fixedBase ??= url;
    this.byBase.clear();
    this.modifiedAt = new Date();
    this.current = this.build(this.fixedBase);
  }

  /** The card as served (the handler reads capabilities from it). */
  card(): AgentCard {
    return this.current.card;
  }

  /** The resource to serve for a request whose own base URL is `requestBase` (no fixed base yet). */
  resourceFor(requestBase: () => string | undefined): CardResource {
    if (this.fixedBase !== undefined) return this.current;
    const base = requestBase();
    if (base === undefined) return this.current;
    let resource = this.byBase.get(base);
    if (!resource) {
      if (this.byBase.size >= 16) this.byBase.clear();
      resource = this.build(base);
      this.byBase.set(base, resource);
    }
    return resource;
  }
}

/** Node request adapter for the bindings. */
class NodeHttpRequest implements HttpRequest {
  private controller: AbortController | undefined;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    readonly method: string,
    readonly path: string,
    readonly query: string,
  ) {}

  header(name: string): string | undefined {
    const value = this.req.headers[name];
    return Array.isArray(value) ? value[0] : value;
  }

  headerValues(name: string): string[] {
    const value = this.req.headers[name];
    if (value === undefined) return [];
    return Array.isArray(value) ? value : [value];
  }

  readBody(limit: number): Promise<Buffer> {
    return readNodeBody(this.req, limit);
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      const controller = new AbortController();
      this.controller = controller;
      // Created lazily, so the client may be gone already.
      if (this.res.closed) {
        if (!this.res.writableFinished) controller.abort();
      } else {
        this.res.once('close', () => {
          if (!this.res.writableFinished) controller.abort();
        });
      }
    }
    return this.controller.signal;
  }
}

/** Fetch `Request` adapter for the bindings. */
class WebHttpRequest implements HttpRequest {
  constructor(
    private readonly request: Request,
    readonly method: string,
    readonly path: string,
    readonly query: string,
  ) {}

  header(name: string): string | undefined {
    return this.request.headers.get(name) ?? undefined;
  }

  headerValues(name: string): string[] {
    const value = this.request.headers.get(name);
    return value === null ? [] : [value];
  }

  readBody(limit: number): Promise<Buffer> {
    return readWebBody(this.request.body, this.request.headers.get('content-length'), limit);
  }

  get signal(): AbortSignal {
    return this.request.signal;
  }
}

class A2AHttpServer implements A2AServer {
  readonly handler: RequestHandler;
  readonly nodeHandler: NodeHandler;
  private readonly cards: CardSource;
  private readonly jsonrpc: JsonRpcBinding;
  private readonly rest: RestBinding;
  /** v0.3 compatibility (issue 14); undefined when `compatV03: false`. */
  private readonly v03: V03Router | undefined;
  private readonly keepAliveMs: number;
  private readonly streams = new Set<SseSource>();
  private server: Server | undefined;
  private grpc: GrpcHost | undefined;
  private inFlight = 0;
  private idle: (() => void) | undefined;
  private closing: Promise<void> | undefined;

  constructor(private readonly options: A2AServerOptions) {
    const streaming = options.streaming ?? true;
    const extendedCard = options.extendedCard;
    this.cards = new CardSource(
      options.card,
      {
        jsonrpc: true,
        rest: true,
        streaming,
        pushNotifications: options.pushNotifications ?? false,
        extendedAgentCard: extendedCard !== undefined,
        compatV03: options.compatV03 !== false,
      },
      options.publicUrl,
      options.grpc,
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
    // observability (issue 15): logging, tracing and metrics interceptors around the handler.
    const obs = createObservability({
      logger: options.logger,
      ...(options.redactValues ? { secrets: options.redactValues } : {}),
    });
    this.handler = obs.handler(
      options.handler ? options.handler(card) : createDefaultHandler(card, options, extended, obs),
    );
    const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
    const logger = obs.logger;
    const onError =
      options.onError ??
      (logger
        ? (error: unknown) => logger.error({ err: errorField(error, obs.secrets) }, 'unexpected error')
        : (error: unknown) => console.error('a2a-kit: unexpected error', error));
    this.jsonrpc = new JsonRpcBinding(this.handler, { bodyLimit, onError });
    this.rest = new RestBinding(this.handler, { bodyLimit, onError });
    this.v03 = options.compatV03 === false ? undefined : new V03Router(this.handler, { bodyLimit, onError });
    this.keepAliveMs = options.keepAliveMs ?? 20_000;
    this.nodeHandler = (req, res, next) => {
      this.serveNode(req, res, next).catch((error: unknown) => {
        onError(error);
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end();
      });
    };
  }

  card(): AgentCard {
    return this.cards.card();
  }

  /** Routes one request to a binding or the card. Undefined: not an A2A path. */
  private route(
    req: HttpRequest,
    baseUrl: () => string | undefined,
  ): Promise<HttpReply> | HttpReply | undefined {
    // Lenient on one trailing slash on every route (`/a2a/jsonrpc/`).
    const path = req.path.length > 1 && req.path.endsWith('/') ? req.path.slice(0, -1) : req.path;
    if (path === JSONRPC_PATH) {
      // v0.3 compatibility: v0.3 requests are answered by the compat binding, the rest by v1.0.
      if (this.v03) return this.v03.jsonRpc(req, (r) => this.jsonrpc.handle(r));
      return this.jsonrpc.handle(req);
    }
    if (path.startsWith(REST_ROOT) && path.charCodeAt(REST_ROOT.length) === 47 /* / */) {
      const sub = path.slice(REST_ROOT.length);
      // v0.3 compatibility: `/v1/...` without a version, or A2A-Version 0.3, is v0.3 REST.
      if (this.v03?.isRestV03(req, sub)) return this.v03.rest.handle(req, sub);
      return this.rest.handle(req, sub);
    }
    if (path === WELL_KNOWN_CARD_PATH) {
      return this.cards
        .resourceFor(baseUrl)
        .reply(req.method, req.header('if-none-match'), req.header('if-modified-since'));
    }
    return undefined;
  }

  private async serveNode(
    req: IncomingMessage,
    res: ServerResponse,
    next?: (error?: unknown) => void,
  ): Promise<void> {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const request = new NodeHttpRequest(req, res, req.method ?? 'GET', path, q < 0 ? '' : url.slice(q + 1));
    const pending = this.route(request, () => nodeBaseUrl(req));
    if (pending === undefined) {
      if (next) return next();
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(NOT_FOUND_BODY);
      return;
    }
    this.inFlight++;
    try {
      const reply = await pending;
      if (reply.stream) {
        if (this.closing) reply.stream.stop();
        this.streams.add(reply.stream);
        res.writeHead(reply.status, reply.headers);
        try {
          await writeSse(res, reply.stream, { keepAliveMs: this.keepAliveMs });
        } finally {
          this.streams.delete(reply.stream);
        }
      } else {
        const headers = reply.headers;
        if (this.closing && !res.headersSent) headers.connection = 'close';
        const body = reply.body;
        // With the length known up front node sends head and body in one write, unchunked.
        if (body !== undefined) {
          headers['content-length'] = String(
            typeof body === 'string' ? Buffer.byteLength(body) : body.length,
          );
        }
        res.writeHead(reply.status, headers);
        res.end(body);
      }
    } finally {
      if (--this.inFlight === 0) this.idle?.();
    }
  }

  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const req = new WebHttpRequest(request, request.method, url.pathname, url.search.slice(1));
    const pending = this.route(req, () => url.origin);
    if (pending === undefined) {
      return new Response(NOT_FOUND_BODY, { status: 404, headers: { 'content-type': 'application/json' } });
    }
    this.inFlight++;
    try {
      const reply = await pending;
      if (reply.stream) {
        const source = reply.stream;
        this.streams.add(source);
        const stream = sseToWebStream(
          {
            next: async () => {
              const frame = await source.next();
              if (frame === undefined) this.streams.delete(source);
              return frame;
            },
            stop: () => {
              this.streams.delete(source);
              source.stop();
            },
          },
          { keepAliveMs: this.keepAliveMs },
        );
        return new Response(stream, { status: reply.status, headers: reply.headers });
      }
      const body =
        reply.body === undefined || reply.status === 204 || reply.status === 304 ? null : reply.body;
      return new Response(body, { status: reply.status, headers: reply.headers });
    } finally {
      if (--this.inFlight === 0) this.idle?.();
    }
  }

  async listen(port = 41241, host?: string): Promise<ListenInfo> {
    if (this.server) throw new Error('The server is already listening');
    if (this.closing) throw new Error('The server is closed');
    const server = createServer(this.nodeHandler);
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.removeListener('error', reject);
        resolve();
      });
    });
    const address = server.address() as AddressInfo;
    const url = `http://${formatHost(host ?? '')}:${address.port}`;
    let grpcPort: number | undefined;
    let grpcTarget: string | undefined;
    if (this.options.grpc) {
      const { GrpcBinding } = await import('../bindings/grpc/server.js');
      const grpc = new GrpcBinding(this.handler, {
        maxMessageBytes: this.options.bodyLimit ?? DEFAULT_BODY_LIMIT,
      });
      this.grpc = grpc;
      if (this.v03) {
        // v0.3 compatibility: `a2a.v1.A2AService` on the same gRPC server.
        const { V03GrpcService } = await import('../bindings/compat-v03/grpc-server.js');
        new V03GrpcService(this.handler, this.options.onError).addTo(grpc.server);
      }
      const grpcHost = this.options.grpc.host ?? host ?? '0.0.0.0';
      grpcPort = await grpc.listen(this.options.grpc.port, grpcHost);
      grpcTarget = `${formatHost(this.options.grpc.host ?? host ?? '')}:${grpcPort}`;
    }
    this.cards.listening(url, grpcTarget);
    return grpcPort === undefined ? { url, port: address.port } : { url, port: address.port, grpcPort };
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    const server = this.server;
    const closed = server ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
    for (const stream of this.streams) stream.stop();
    server?.closeIdleConnections();
    const grace = this.options.closeGraceMs ?? 5_000;
    await this.waitIdle(grace);
    const handler = this.handler as RequestHandler & { close?: () => Promise<void> };
    await handler.close?.();
    await this.waitIdle(grace);
    await this.grpc?.close();
    server?.closeAllConnections();
    await closed;
  }

  private waitIdle(ms: number): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref();
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.idle = () => {
        this.idle = undefined;
        done();
      };
    });
  }
}

function nodeBaseUrl(req: IncomingMessage): string | undefined {
  const host = req.headers.host;
  if (!host || !/^[A-Za-z0-9.\-[\]:]+$/.test(host)) return undefined;
  const encrypted = (req.socket as { encrypted?: boolean }).encrypted === true;
  return `${encrypted ? 'https' : 'http'}://${host}`;
}

function completeExtendedCard(config: ExtendedCardConfig, publicCard: AgentCard): AgentCard {
  const given = config as Partial<AgentCard> & AgentCardConfig;
  return {
    name: given.name,
    description: given.description,
    supportedInterfaces: publicCard.supportedInterfaces,
    ...(given.provider ? { provider: given.provider } : {}),
    version: given.version,
    ...(given.documentationUrl !== undefined ? { documentationUrl: given.documentationUrl } : {}),
    capabilities: {
      ...publicCard.capabilities,
      ...(given.extensions ? { extensions: given.extensions } : {}),
    },
    ...(given.securitySchemes ? { securitySchemes: given.securitySchemes } : {}),
    ...(given.securityRequirements ? { securityRequirements: given.securityRequirements } : {}),
    defaultInputModes: given.defaultInputModes ?? publicCard.defaultInputModes,
    defaultOutputModes: given.defaultOutputModes ?? publicCard.defaultOutputModes,
    skills: given.skills,
    ...(given.signatures ? { signatures: given.signatures } : {}),
    ...(given.iconUrl !== undefined ? { iconUrl: given.iconUrl } : {}),
  };
}

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
