/** A tiny node:http server on 127.0.0.1 that serves fixed JSON documents by path (JWKS, discovery). */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface JsonServer {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  /** Sets (or replaces) the document served at `path`. */
  set(path: string, body: unknown): void;
  /** How many requests each path received. */
  readonly hits: Map<string, number>;
  close(): Promise<void>;
}

/** Starts the server; the caller closes it. Unknown paths answer 404. */
export async function startJsonServer(): Promise<JsonServer> {
  const docs = new Map<string, string>();
  const hits = new Map<string, number>();
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const body = docs.get(path);
    if (body === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    set: (path, body) => docs.set(path, JSON.stringify(body)),
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
