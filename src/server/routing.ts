/**
 * Routing: which path goes to which binding. `/a2a/jsonrpc` to JSON-RPC, `/a2a/rest/...` to
 * HTTP+JSON, the well-known path to the card; v0.3 requests on either to the v0.3 bindings
 * (`V03Router.jsonRpc`, `V03Router.isRestV03`). Runtime-neutral: the adapters feed it.
 */
import type { Authenticate } from '../bindings/auth-request.js';
import { V03Router } from '../bindings/compat-v03/router.js'; // v0.3 compatibility (issue 14)
import type { HttpReply, HttpRequest } from '../bindings/http/http-body.js';
import { JsonRpcBinding } from '../bindings/jsonrpc/server.js';
import { RestBinding } from '../bindings/rest/server.js';
import type { RequestHandler } from '../core/handler/request-handler.js';
import { JSONRPC_PATH, REST_ROOT, WELL_KNOWN_CARD_PATH } from './card/build.js';
import type { CardSource } from './card-source.js';
import type { CardResource } from './card/serve.js';

/** What the router hands to every binding it builds. */
export interface RouterOptions {
  bodyLimit: number;
  onError: (error: unknown) => void;
  authenticate?: Authenticate;
  /** Serve v0.3 requests (else the v1.0 bindings answer them with VersionNotSupportedError). */
  compatV03: boolean;
  /** More paths the server answers itself (the push JWKS, the `routes` option). */
  extraRoutes?: Readonly<Record<string, ServerRoute>>;
}

/**
 * A path the server answers beside the A2A ones (the `routes` option of createA2AServer: a
 * webhook for push notifications, a health check). It gets the request as the bindings see it
 * (any method, headers, a bounded body) and runs on every runtime the server is mounted on;
 * it is not behind `authenticate`, `security` or the interceptors: it checks its callers itself.
 */
export type ServerRoute = (request: HttpRequest) => HttpReply | Promise<HttpReply>;

/** The JSON body of a 404 for a path that is not an A2A path. */
export const NOT_FOUND_BODY = '{"error":{"code":404,"status":"NOT_FOUND","message":"Not found"}}';

/** The HTTP bindings of one server and the routing in front of them. */
export class A2ARouter {
  private readonly jsonrpc: JsonRpcBinding;
  private readonly rest: RestBinding;
  /** v0.3 compatibility (issue 14); undefined when `compatV03: false`. */
  private readonly v03: V03Router | undefined;

  constructor(
    handler: RequestHandler,
    private readonly cards: CardSource,
    private readonly options: RouterOptions,
  ) {
    const bindingOptions = {
      bodyLimit: options.bodyLimit,
      onError: options.onError,
      ...(options.authenticate ? { authenticate: options.authenticate } : {}),
    };
    this.jsonrpc = new JsonRpcBinding(handler, bindingOptions);
    this.rest = new RestBinding(handler, bindingOptions);
    this.v03 = options.compatV03 ? new V03Router(handler, bindingOptions) : undefined;
  }

  /** True when the router answers `path`: the bindings, the card, the extra routes. */
  serves(path: string): boolean {
    const p = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    return (
      p === JSONRPC_PATH ||
      (p.startsWith(REST_ROOT) && p.charCodeAt(REST_ROOT.length) === 47) ||
      p === WELL_KNOWN_CARD_PATH ||
      (this.options.extraRoutes !== undefined && Object.hasOwn(this.options.extraRoutes, p))
    );
  }

  /**
   * Routes one request to a binding or the card; `baseUrl` is the request's own base URL (for a
   * card served before the server knows its address). Undefined: not an A2A path.
   */
  route(req: HttpRequest, baseUrl: () => string | undefined): Promise<HttpReply> | HttpReply | undefined {
    // Lenient on one trailing slash on every route (`/a2a/jsonrpc/`).
    const path = req.path.length > 1 && req.path.endsWith('/') ? req.path.slice(0, -1) : req.path;
    if (path === JSONRPC_PATH) {
      // v0.3 compatibility: v0.3 requests are answered by the compat binding, the rest by v1.0.
      if (this.v03) return this.v03.jsonRpc(req, this.jsonrpc);
      return this.jsonrpc.handle(req);
    }
    if (path.startsWith(REST_ROOT) && path.charCodeAt(REST_ROOT.length) === 47 /* / */) {
      const sub = path.slice(REST_ROOT.length);
      // v0.3 compatibility: `/v1/...` without a version, or A2A-Version 0.3, is v0.3 REST.
      if (this.v03?.isRestV03(req, sub)) return this.v03.rest.handle(req, sub);
      return this.rest.handle(req, sub);
    }
    const extra =
      this.options.extraRoutes && Object.hasOwn(this.options.extraRoutes, path)
        ? this.options.extraRoutes[path]
        : undefined;
    if (extra) return extra(req);
    if (path === WELL_KNOWN_CARD_PATH) {
      const served = this.cards.served(this.cards.resourceFor(baseUrl));
      const answer = (r: CardResource): HttpReply =>
        r.reply(req.method, req.header('if-none-match'), req.header('if-modified-since'));
      return served instanceof Promise ? served.then(answer) : answer(served);
    }
    return undefined;
  }
}
