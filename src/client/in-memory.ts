/**
 * Reaching a server in the same process without a socket: a `fetch` that hands each request to
 * a fetch-style handler (`A2AServer.fetch` of `createA2AServer`). The card, JSON-RPC and REST
 * (SSE streams included) then run exactly as over HTTP; gRPC needs a real channel.
 */

/** Anything with a fetch-style handler, such as the server `createA2AServer` returns. */
export interface FetchHandler {
  /** Answers one request. */
  fetch(request: Request): Promise<Response>;
}

/**
 * A `fetch` that serves every request with `server.fetch`, for
 * `A2AClient.connect('http://agent.test', { fetch: inMemoryFetch(server) })`: the URL's host is
 * only a name, the card's interfaces are built from it, nothing listens.
 */
export function inMemoryFetch(server: FetchHandler): typeof fetch {
  return (input, init) => server.fetch(new Request(input, init));
}
