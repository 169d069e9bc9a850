/**
 * The fetch adapter: `(Request) => Promise<Response>` for Hono, Bun, Deno and workers. A fetch
 * `Request` becomes the bindings' {@link HttpRequest}; an SSE reply becomes a streaming body.
 */
import type { AuthRequest } from '../../bindings/auth-request.js';
import { readWebBody, type HttpRequest } from '../../bindings/http/http-body.js';
import { sseToWebStream } from '../../bindings/http/sse.js';
import { authRequestFromFetch, type FetchConnectionInfo } from '../auth/request.js';
import type { InFlight } from '../in-flight.js';
import { NOT_FOUND_BODY, type A2ARouter } from '../routing.js';
import { pathBelow } from './base-path.js';

/** A fetch `Request` as the bindings see it. */
export class WebHttpRequest implements HttpRequest {
  constructor(
    private readonly request: Request,
    readonly method: string,
    readonly path: string,
    readonly query: string,
    private readonly info?: FetchConnectionInfo,
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

  authRequest(): AuthRequest {
    return authRequestFromFetch(this.request, this.info);
  }

  get signal(): AbortSignal {
    return this.request.signal;
  }
}

/**
 * Answers one fetch `Request` through `router`; a path it does not serve is a JSON 404. With a
 * `basePath` (normalized) only the paths below it are served, and the card's URLs are under it.
 */
export async function serveFetch(
  router: A2ARouter,
  inFlight: InFlight,
  keepAliveMs: number,
  request: Request,
  info?: FetchConnectionInfo,
  basePath = '',
  origin?: string,
): Promise<Response> {
  const url = new URL(request.url);
  const path = pathBelow(url.pathname, basePath);
  const pending =
    path === undefined
      ? undefined
      : router.route(
          new WebHttpRequest(request, request.method, path, url.search.slice(1), info),
          () => (origin ?? url.origin) + basePath,
        );
  if (pending === undefined) {
    return new Response(NOT_FOUND_BODY, { status: 404, headers: { 'content-type': 'application/json' } });
  }
  inFlight.begin();
  try {
    const reply = await pending;
    if (reply.stream) {
      const source = reply.stream;
      inFlight.addStream(source);
      const stream = sseToWebStream(
        {
          next: async () => {
            const frame = await source.next();
            if (frame === undefined) inFlight.deleteStream(source);
            return frame;
          },
          stop: () => {
            inFlight.deleteStream(source);
            source.stop();
          },
        },
        { keepAliveMs },
      );
      return new Response(stream, { status: reply.status, headers: reply.headers });
    }
    const body = reply.body === undefined || reply.status === 204 || reply.status === 304 ? null : reply.body;
    return new Response(body, { status: reply.status, headers: reply.headers });
  } finally {
    inFlight.end();
  }
}
