/**
 * `a2a-kit/fastify`: the server as a Fastify plugin, `fastify.register(a2aFastify, { server })`
 * (with `prefix` to mount it below a path, named on the card). Inside the plugin Fastify's own
 * body parsing is off: the request goes to the node adapter untouched (hijacked), so the body
 * limit, SSE and cancellation on disconnect are a2a-kit's. Paths the server does not answer get
 * Fastify's 404. Its own entry: its types come from `fastify` (an optional peer dependency);
 * nothing of Fastify is loaded at runtime.
 */
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { A2AServer } from '../http.js';
import { normalizeBasePath, pathBelow } from './base-path.js';

/** Options of {@link a2aFastify}. */
export interface A2AFastifyOptions {
  /** The server to mount. */
  server: A2AServer;
}

/** The server's paths as a Fastify plugin. */
export const a2aFastify: FastifyPluginAsync<A2AFastifyOptions> = async (
  fastify: FastifyInstance,
  options: A2AFastifyOptions,
) => {
  const { server } = options;
  const base = normalizeBasePath(fastify.prefix);
  const handler = server.nodeHandlerBelow(base);
  // This plugin's routes read their own bodies: no parser consumes the stream before them.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
  fastify.all('/*', (request, reply) => {
    const q = request.url.indexOf('?');
    const path = pathBelow(q < 0 ? request.url : request.url.slice(0, q), base);
    if (path === undefined || !server.serves(path)) return reply.callNotFound();
    reply.hijack();
    handler(request.raw, reply.raw);
    return reply;
  });
};
