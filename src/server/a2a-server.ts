/** The server `createA2AServer` returns, as its users see it: listen, close, mount. */
import type { AgentCard } from '../model/schema.js';
import type { RequestHandler } from '../core/handler/request-handler.js';
import type { NodeHandler } from './adapters/node.js';
import type { FetchConnectionInfo } from './auth/request.js';

/** Where {@link A2AServer.listen} listens. */
export interface ListenInfo {
  /** Base URL of the HTTP server (`http://127.0.0.1:41241`, `https://...` with `tls`). */
  url: string;
  port: number;
  /** The gRPC port, when gRPC is on. */
  grpcPort?: number;
}

/** A running (or ready to run) A2A server. */
export interface A2AServer {
  /** Starts the HTTP server (and gRPC). Port 0 picks a free port. @default port 41241 */
  listen(port?: number, host?: string): Promise<ListenInfo>;
  /** Stops accepting, ends streams, waits for in-flight responses, closes the handler. */
  close(): Promise<void>;
  /**
   * The operations behind every binding, without the `interceptors` (a binding you mount
   * yourself on it bypasses them and `authenticate`: pass your own).
   */
  readonly handler: RequestHandler;
  /** The public card as currently served. */
  card(): AgentCard;
  /** Serves the A2A paths; calls `next()` for others (when given) or answers 404. */
  readonly nodeHandler: NodeHandler;
  /**
   * The same, fetch-style (Hono, Bun, Deno, workers): streaming bodies for SSE. `info` carries
   * what the host knows of the connection (the peer's address, for per-address limits). Bound
   * to the server, so `Bun.serve({ fetch: server.fetch })` and `Deno.serve(server.fetch)` work as is.
   */
  fetch(request: Request, info?: FetchConnectionInfo): Promise<Response>;
  /**
   * `fetch` for a server mounted below `basePath` (`/agents/echo`): only the paths below it
   * are served, and the card's URLs are under it. `options.origin` replaces the request URL's
   * own for the card (a host that rewrites it, as Next.js does). The framework adapters call it.
   */
  fetchBelow(
    basePath: string,
    request: Request,
    options?: { origin?: string; info?: FetchConnectionInfo },
  ): Promise<Response>;
  /**
   * {@link nodeHandler} for a server mounted below `basePath` whose host leaves the full path in
   * `req.url` (Fastify). Under Express's `app.use('/agents/echo', server.nodeHandler)` the plain
   * `nodeHandler` already names the mount path on the card (from `req.baseUrl`).
   */
  nodeHandlerBelow(basePath: string): NodeHandler;
  /**
   * True when the server answers `path` (below its mount path): the card, the bindings, the push
   * JWKS, the `routes`. Adapters pass other paths to the host's own routes and 404.
   */
  serves(path: string): boolean;
}
