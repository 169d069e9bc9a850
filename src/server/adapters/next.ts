/**
 * Next.js App Router: `export const { GET, POST } = a2aNext(server)` in a catch-all route file
 * (`app/[...a2a]/route.ts` at the root, `app/agents/echo/[...a2a]/route.ts` below a path). The
 * mount path is what the catch-all did not match, so the card names URLs under it. Route
 * handlers take and return fetch objects: this is the fetch adapter, and needs nothing of Next.
 */
import type { A2AServer } from '../http.js';
import { normalizeBasePath } from './base-path.js';

/** Options of {@link a2aNext}. */
export interface A2ANextOptions {
  /**
   * The path the route is mounted at (`/agents/echo`). Without it, it is read from the
   * catch-all segment of the route (`[...slug]` or `[[...slug]]`).
   */
  basePath?: string;
}

/** The second argument Next.js passes a route handler (its `params` a promise since Next 15). */
export interface NextRouteContext {
  params?:
    Promise<Record<string, string | string[] | undefined>> | Record<string, string | string[] | undefined>;
}

/** A Next.js route handler. */
export type NextRouteHandler = (request: Request, context?: NextRouteContext) => Promise<Response>;

/** The route handlers of {@link a2aNext}: export the ones the route needs (GET and POST at least). */
export interface A2ANextHandlers {
  GET: NextRouteHandler;
  POST: NextRouteHandler;
  /** DELETE: the REST binding's push-config deletion. */
  DELETE: NextRouteHandler;
}

/** Route handlers serving `server` from a Next.js App Router catch-all route. */
export function a2aNext(server: A2AServer, options: A2ANextOptions = {}): A2ANextHandlers {
  const fixed = options.basePath === undefined ? undefined : normalizeBasePath(options.basePath);
  const handle: NextRouteHandler = async (request, context) => {
    const base = fixed ?? basePathOf(new URL(request.url).pathname, await context?.params);
    const origin = originOf(request);
    return server.fetchBelow(base, request, origin === undefined ? {} : { origin });
  };
  return { GET: handle, POST: handle, DELETE: handle };
}

/**
 * The origin the client used, from the Host header (as the node adapter reads it): Next.js
 * builds `request.url` from its own configured host (`localhost`), not the request's.
 */
function originOf(request: Request): string | undefined {
  const host = request.headers.get('host');
  if (host === null || !/^[A-Za-z0-9.\-[\]:]+$/.test(host)) return undefined;
  return `${new URL(request.url).protocol}//${host}`;
}

/** The request path without the segments the catch-all parameter matched. */
function basePathOf(
  pathname: string,
  params: Record<string, string | string[] | undefined> | undefined,
): string {
  const caught = Object.values(params ?? {}).find((v): v is string[] => Array.isArray(v));
  const segments = pathname.replace(/\/+$/, '').split('/');
  // `/agents/echo/a2a/jsonrpc` with ['a2a', 'jsonrpc'] caught: `/agents/echo`.
  const keep = segments.length - (caught?.length ?? 0);
  return normalizeBasePath(segments.slice(0, keep).join('/'));
}
