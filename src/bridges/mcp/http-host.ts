/**
 * Serves MCP over Streamable HTTP on node:http: one MCP server (from `createServer`) per
 * session, at most `maxSessions` at once (the least recently used is closed to make room), each
 * closed after `idleMs` without a request.
 */
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/** Options of {@link serveMcpOverHttp}. */
export interface McpHttpOptions {
  /** @default 0 (a free port) */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
  /** The endpoint's path. @default '/mcp' */
  path?: string;
  /** Sessions open at once. @default 64 */
  maxSessions?: number;
  /** A session without a request for this long is closed. @default 1800000 (30 minutes) */
  idleMs?: number;
  /**
   * Host names requests may name (Host header) and browser pages may come from (Origin), so that
   * a web page cannot reach a local endpoint through DNS rebinding. @default loopback names
   * (127.0.0.1, localhost, ::1) when listening on loopback; any otherwise
   */
  allowedHosts?: string[];
}

/** A running MCP endpoint. */
export interface McpHttpEndpoint {
  /** The endpoint URL (`http://127.0.0.1:PORT/mcp`). */
  readonly url: string;
  readonly port: number;
  /** Stops listening and closes every session. */
  close(): Promise<void>;
}

interface Session {
  readonly transport: StreamableHTTPServerTransport;
  readonly server: Server;
  lastUsed: number;
}

/** Starts an MCP Streamable HTTP endpoint; `createServer` makes the server of each new session. */
export async function serveMcpOverHttp(
  createServer: () => Server,
  options: McpHttpOptions = {},
): Promise<McpHttpEndpoint> {
  const path = options.path ?? '/mcp';
  const maxSessions = options.maxSessions ?? 64;
  const idleMs = options.idleMs ?? 1_800_000;
  const sessions = new Map<string, Session>();
  const host = options.host ?? '127.0.0.1';
  const allowed =
    options.allowedHosts ?? (LOOPBACK.includes(host.replace(/^\[|\]$/g, '')) ? LOOPBACK : undefined);

  const closeSession = (id: string): void => {
    const s = sessions.get(id);
    if (!s) return;
    sessions.delete(id);
    void s.server.close().catch(() => undefined);
  };
  const sweep = setInterval(
    () => {
      const cutoff = Date.now() - idleMs;
      for (const [id, s] of sessions) if (s.lastUsed < cutoff) closeSession(id);
    },
    Math.max(1_000, Math.min(idleMs, 60_000)),
  );
  sweep.unref();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== path) return reply(res, 404, `not found; the MCP endpoint is ${path}`);
    const refused = allowed && refusedOrigin(req, allowed);
    if (refused) return reply(res, 403, refused);
    const sid = req.headers['mcp-session-id'];
    if (typeof sid === 'string') {
      const s = sessions.get(sid);
      if (!s) return reply(res, 404, 'unknown or expired MCP session; initialize a new one');
      // Most recently used last, so that the first entry is the one to drop when full.
      sessions.delete(sid);
      sessions.set(sid, s);
      s.lastUsed = Date.now();
      return s.transport.handleRequest(req, res);
    }
    if (req.method !== 'POST') return reply(res, 400, 'no MCP session: POST an initialize request first');
    if (sessions.size >= maxSessions) closeSession(sessions.keys().next().value as string);
    const server = createServer();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server, lastUsed: Date.now() });
      },
      onsessionclosed: (id) => closeSession(id),
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
    // Not an initialize request (or a bad one): no session was made; drop the server.
    if (transport.sessionId === undefined || !sessions.has(transport.sessionId))
      void server.close().catch(() => undefined);
  };

  const http = createHttpServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) reply(res, 500, error instanceof Error ? error.message : String(error));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const { port, address, family } = http.address() as AddressInfo;
  const hostPart = family === 'IPv6' ? `[${address}]` : address;
  return {
    url: `http://${hostPart}:${port}${path}`,
    port,
    async close() {
      clearInterval(sweep);
      for (const id of [...sessions.keys()]) closeSession(id);
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

const LOOPBACK = ['127.0.0.1', 'localhost', '::1'];

/** Why a request's Host or Origin is not one of `allowed`, or undefined when both are. */
function refusedOrigin(req: IncomingMessage, allowed: readonly string[]): string | undefined {
  const hostname = (value: string): string | undefined => {
    try {
      return new URL(value).hostname.replace(/^\[|\]$/g, '');
    } catch {
      return undefined;
    }
  };
  const host = req.headers.host ? hostname(`http://${req.headers.host}`) : undefined;
  if (!host || !allowed.includes(host))
    return `Host ${JSON.stringify(req.headers.host ?? '')} is not allowed`;
  const origin = req.headers.origin;
  // Non-browser MCP clients send no Origin; a page's (even "null", from a sandbox) must be allowed.
  if (origin !== undefined) {
    const from = hostname(origin);
    if (!from || !allowed.includes(from)) return `Origin ${JSON.stringify(origin)} is not allowed`;
  }
  return undefined;
}

/** A JSON-RPC error body with `message` (what MCP clients expect from the endpoint). */
function reply(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}
