/**
 * The node:http adapter: an IncomingMessage becomes the bindings' {@link HttpRequest}, their
 * {@link HttpReply} is written to the ServerResponse (one write for a known length, SSE with
 * backpressure and keep-alives). Also Connect/Express middleware: other paths go to `next()`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthRequest } from '../../bindings/auth-request.js';
import { BodyTooLargeError, readNodeBody, type HttpRequest } from '../../bindings/http/http-body.js';
import { writeSse } from '../../bindings/http/sse.js';
import { authRequestFromNode } from '../auth/request.js';
import type { InFlight } from '../in-flight.js';
import { NOT_FOUND_BODY, type A2ARouter } from '../routing.js';
import { normalizeBasePath, pathBelow } from './base-path.js';

/** A node-style request listener that also works as Connect/Express middleware. */
export type NodeHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  next?: (error?: unknown) => void,
) => void;

/** A node:http request as the bindings see it. */
export class NodeHttpRequest implements HttpRequest {
  private controller: AbortController | undefined;

  constructor(
    private req: IncomingMessage,
    private res: ServerResponse,
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
    const parsed = consumedBody(this.req);
    if (parsed === undefined) return readNodeBody(this.req, limit);
    return parsed.length > limit ? Promise.reject(new BodyTooLargeError(limit)) : Promise.resolve(parsed);
  }

  authRequest(): AuthRequest {
    return authRequestFromNode(this.req);
  }

  /**
   * Drops the references to node's request and response once the reply is written: call
   * contexts (and whatever an agent keeps of them) then hold this small object only, never the
   * connection's buffers. Measured: keeping them doubled the garbage collector's time per echo.
   */
  detach(): void {
    this.req = DETACHED_REQUEST;
    this.res = DETACHED_RESPONSE;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      const controller = new AbortController();
      this.controller = controller;
      // The response itself, not the field: detach() replaces the field before 'close' fires.
      const res = this.res;
      // Read after the reply was written: the client can no longer go away from this request
      // (a signal of its own, never aborted, so listeners added to it are not shared).
      if (res === DETACHED_RESPONSE) return controller.signal;
      // Created lazily, so the client may be gone already.
      if (res.closed) {
        if (!res.writableFinished) controller.abort();
      } else {
        res.once('close', () => {
          if (!res.writableFinished) controller.abort();
        });
      }
    }
    return this.controller.signal;
  }
}

/**
 * The body a host's body parser already read (`express.json()`, `express.text()`, `raw()`
 * ahead of the handler set `req.body` and drained the stream): as bytes again, JSON
 * re-serialized. Undefined when the stream is still unread.
 */
function consumedBody(req: IncomingMessage): Buffer | undefined {
  if (!req.readableEnded) return undefined;
  const body = (req as { body?: unknown }).body;
  if (Buffer.isBuffer(body)) return body;
  if (typeof body === 'string') return Buffer.from(body);
  if (typeof body === 'object' && body !== null) return Buffer.from(JSON.stringify(body));
  return undefined;
}

/** What a request holds once its reply is written (see NodeHttpRequest.detach). */
const DETACHED_REQUEST = { headers: {} } as IncomingMessage;
const DETACHED_RESPONSE = {} as ServerResponse;

/** The request's own base URL from its Host header, when that is a plain host[:port]. */
export function nodeBaseUrl(req: IncomingMessage): string | undefined {
  const host = req.headers.host;
  if (!host || !/^[A-Za-z0-9.\-[\]:]+$/.test(host)) return undefined;
  const encrypted = (req.socket as { encrypted?: boolean }).encrypted === true;
  return `${encrypted ? 'https' : 'http'}://${host}`;
}

/**
 * Answers one node:http request through `router`; a path it does not serve goes to `next` or
 * 404. With a `basePath` (normalized) only the paths below it are served; Express's own mount
 * path (`req.baseUrl`, already cut from `req.url`) is added to the card's URLs as well.
 */
export async function serveNode(
  router: A2ARouter,
  inFlight: InFlight,
  keepAliveMs: number,
  req: IncomingMessage,
  res: ServerResponse,
  next?: (error?: unknown) => void,
  basePath = '',
): Promise<void> {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = pathBelow(q < 0 ? url : url.slice(0, q), basePath);
  const expressBase = (req as { baseUrl?: unknown }).baseUrl;
  const mounted = (typeof expressBase === 'string' ? normalizeBasePath(expressBase) : '') + basePath;
  const request =
    path === undefined
      ? undefined
      : new NodeHttpRequest(req, res, req.method ?? 'GET', path, q < 0 ? '' : url.slice(q + 1));
  const pending = request && router.route(request, () => mountedBase(nodeBaseUrl(req), mounted));
  if (pending === undefined || request === undefined) {
    if (next) return next();
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(NOT_FOUND_BODY);
    return;
  }
  inFlight.begin();
  try {
    const reply = await pending;
    if (reply.stream) {
      inFlight.addStream(reply.stream);
      res.writeHead(reply.status, reply.headers);
      try {
        await writeSse(res, reply.stream, { keepAliveMs });
      } finally {
        inFlight.deleteStream(reply.stream);
      }
    } else {
      const headers = reply.headers;
      if (inFlight.closing && !res.headersSent) headers.connection = 'close';
      const body = reply.body;
      // With the length known up front node sends head and body in one write, unchunked.
      if (body !== undefined) {
        headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.length);
      }
      res.writeHead(reply.status, headers);
      res.end(body);
    }
  } finally {
    request.detach();
    inFlight.end();
  }
}

/** `base` with the mount path; undefined when the request named no usable host. */
function mountedBase(base: string | undefined, mounted: string): string | undefined {
  return base === undefined ? undefined : base + mounted;
}

/**
 * The {@link NodeHandler} of a router: failures that escape are reported and answered 500.
 * `basePath` (normalized): see {@link serveNode}.
 */
export function createNodeHandler(
  router: A2ARouter,
  inFlight: InFlight,
  keepAliveMs: number,
  onError: (error: unknown) => void,
  basePath = '',
): NodeHandler {
  return (req, res, next) => {
    serveNode(router, inFlight, keepAliveMs, req, res, next, basePath).catch((error: unknown) => {
      onError(error);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end();
    });
  };
}
