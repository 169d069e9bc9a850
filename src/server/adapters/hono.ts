/**
 * `a2a-kit/hono`: the server as a Hono sub-app. `app.route('/', a2aHono(server))` at the root,
 * `app.route('/agents/echo', a2aHono(server))` below a path (named on the card). Paths the
 * server does not answer go on to the app's own routes and 404. Hono hands over the fetch
 * `Request` itself, so the body limit, SSE and cancellation on disconnect are the fetch
 * adapter's. Its own entry: it imports `hono` (an optional peer dependency).
 */
import { Hono, type Context, type Next } from 'hono';
import { routePath } from 'hono/route';
import type { A2AServer } from '../http.js';
import { normalizeBasePath, pathBelow } from './base-path.js';

/** The server's paths as a Hono app, to mount with `app.route(path, a2aHono(server))`. */
export function a2aHono(server: A2AServer): Hono {
  const app = new Hono();
  app.all('/*', (c: Context, next: Next) => {
    // The mount path: what this route was registered under (`/agents/echo/*` → `/agents/echo`).
    const base = normalizeBasePath(routePath(c).replace(/\/?\*$/, ''));
    const path = pathBelow(c.req.path, base);
    if (path === undefined || !server.serves(path)) return next();
    return server.fetchBelow(base, c.req.raw);
  });
  return app;
}
