/**
 * `startInspector`: the inspector's loopback backend. It serves the page (bundled by esbuild
 * during `npm run build`), a JSON API the page drives, and the built-in push receiver. The
 * agent calls go through our client, so every binding, gRPC included, works from a browser.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { call, connect, createReceiver, feed, sendJson, stream, summaryOf, type ApiContext } from './api.js';
import { allowedHosts, newToken, refusal } from './guard.js';
import { PushInbox } from './push.js';
import type { Session } from './session.js';
import { WireLog, type WireLogLimits } from './wire.js';

/** Options of {@link startInspector}. */
export interface InspectorOptions {
  /** Port to listen on; 0 picks a free one. @default 0 */
  port?: number;
  /** Only loopback makes sense: the token travels in plain HTTP. @default '127.0.0.1' */
  host?: string;
  /** Where the page bundle (app.js, app.css) is. @default the `assets` folder beside this module */
  assetsDir?: string;
  /** Caps of the wire record. */
  wire?: WireLogLimits;
  /** The token guarding the page and API. @default a random one per run */
  token?: string;
}

/** A running inspector. */
export interface Inspector {
  /** Base URL, `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly port: number;
  readonly token: string;
  /** The page's address with the token, and `&agent=<agentUrl>` when given. */
  pageUrl(agentUrl?: string): string;
  /** Stops listening and ends every stream and connection. */
  close(): Promise<void>;
}

const BODY_LIMIT = 16 * 1024 * 1024;
const ASSETS: Record<string, string> = {
  '/assets/app.js': 'text/javascript; charset=utf-8',
  '/assets/app.css': 'text/css; charset=utf-8',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>a2a inspector</title>
<link rel="stylesheet" href="/assets/app.css">
</head>
<body>
<div id="app"><noscript>The inspector needs JavaScript.</noscript></div>
<script type="module" src="/assets/app.js"></script>
</body>
</html>
`;

const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > BODY_LIMIT) throw new Error(`request body over ${BODY_LIMIT} bytes`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  const value: unknown = text ? JSON.parse(text) : {};
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error('the body must be a JSON object');
  return value as Record<string, unknown>;
}

/** Starts the inspector on loopback and resolves once it listens. */
export async function startInspector(options: InspectorOptions = {}): Promise<Inspector> {
  const token = options.token ?? newToken();
  const assetsDir = options.assetsDir ?? fileURLToPath(new URL('./assets/', import.meta.url));
  const sessions = new Map<string, Session>();
  const log = new WireLog(options.wire);
  const inbox = new PushInbox();
  let base = '';
  let hosts = new Set<string>();
  const ctx: ApiContext = { log, inbox, sessions, baseUrl: () => base };

  async function route(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const path = url.pathname;
    if (path.startsWith('/push/')) {
      const why = refusal(req, url, hosts, token, false);
      if (why) return sendJson(res, 403, { error: { type: 'Forbidden', message: why } });
      return inbox.handle(path.slice('/push/'.length), req, res);
    }
    const contentType = Object.hasOwn(ASSETS, path) ? ASSETS[path] : undefined;
    if (contentType) {
      const why = refusal(req, url, hosts, token, false);
      if (why) return sendJson(res, 403, { error: { type: 'Forbidden', message: why } });
      let body: Buffer;
      try {
        body = await readFile(join(assetsDir, path.slice('/assets/'.length)));
      } catch {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`the inspector page is not built (no ${path} in ${assetsDir}): run npm run build`);
        return;
      }
      res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-cache', ...SECURITY_HEADERS });
      res.end(body);
      return;
    }
    if (path !== '/' && !path.startsWith('/api/'))
      return sendJson(res, 404, { error: { type: 'NotFound', message: path } });
    const why = refusal(req, url, hosts, token, true);
    if (why) {
      res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS });
      res.end(`403 forbidden: ${why}. Open the address a2a inspect printed.\n`);
      return;
    }
    if (path === '/') {
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        ...SECURITY_HEADERS,
      });
      res.end(PAGE);
      return;
    }
    const key = `${req.method} ${path}`;
    if (key === 'GET /api/feed') return feed(ctx, res);
    if (key === 'GET /api/wire') {
      const after = Number(url.searchParams.get('after') ?? 0);
      return sendJson(res, 200, log.list(after, url.searchParams.get('session') ?? undefined).map(summaryOf));
    }
    const wire = /^GET \/api\/wire\/(\d+)$/.exec(key);
    if (wire) {
      const exchange = log.get(Number(wire[1]));
      return exchange
        ? sendJson(res, 200, exchange)
        : sendJson(res, 404, {
            error: { type: 'NotFound', message: 'no such exchange (the record keeps the latest ones)' },
          });
    }
    if (key === 'GET /api/push')
      return sendJson(res, 200, inbox.list(Number(url.searchParams.get('after') ?? 0)));
    if (req.method !== 'POST')
      return sendJson(res, 405, { error: { type: 'MethodNotAllowed', message: key } });
    if (!(req.headers['content-type'] ?? '').startsWith('application/json'))
      return sendJson(res, 415, {
        error: { type: 'UnsupportedMediaType', message: 'send application/json' },
      });
    const body = await readJson(req);
    if (path === '/api/stream') return stream(ctx, body, req, res);
    const handlers: Record<string, (ctx: ApiContext, body: Record<string, unknown>) => Promise<unknown>> = {
      '/api/connect': connect,
      '/api/call': call,
      '/api/push/receivers': createReceiver,
    };
    const handler = Object.hasOwn(handlers, path) ? handlers[path] : undefined;
    if (!handler) return sendJson(res, 404, { error: { type: 'NotFound', message: path } });
    sendJson(res, 200, await handler(ctx, body));
  }

  const server = createServer((req, res) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://inspector.invalid');
    } catch {
      return sendJson(res, 400, { error: { type: 'BadRequest', message: 'bad URL' } });
    }
    route(req, res, url).catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      if (!res.headersSent) sendJson(res, 400, { error: { type: 'BadRequest', message } });
      else res.end();
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  hosts = allowedHosts(port);
  base = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url: base,
    port,
    token,
    pageUrl: (agent) =>
      `${base}/?token=${encodeURIComponent(token)}${agent ? `&agent=${encodeURIComponent(agent)}` : ''}`,
    async close() {
      await Promise.all([...sessions.values()].map((s) => s.close()));
      sessions.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
