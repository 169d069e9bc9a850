/**
 * The `bench` agent (memory store, from dist/) behind one host, for bench/adapters.ts:
 * BENCH_HOST = `listen` (a2a-kit's own node:http listener), `express`, `fastify`, `hono` (on
 * @hono/node-server) or `fetch` (server.fetch alone on @hono/node-server).
 */
import type { AddressInfo } from 'node:net';
import type * as AgentsModule from '../../src/agents/index.js';
import type * as HttpModule from '../../src/server/http.js';
import type * as HonoModule from '../../src/server/adapters/hono.js';
import type * as FastifyModule from '../../src/server/adapters/fastify.js';
import { runChild, type StartedServer } from './child.js';

const dist = new URL('../../dist/', import.meta.url);

runChild(async (): Promise<StartedServer> => {
  const { benchCard, benchExecutor } = (await import(
    new URL('agents/index.js', dist).href
  )) as typeof AgentsModule;
  const { createA2AServer } = (await import(new URL('server/http.js', dist).href)) as typeof HttpModule;
  const server = createA2AServer({ agent: benchExecutor, card: benchCard, store: 'memory' });
  const host = process.env.BENCH_HOST ?? 'listen';
  if (host === 'listen') {
    const { port } = await server.listen(0, '127.0.0.1');
    return { port, close: () => server.close() };
  }
  if (host === 'express') {
    const { default: express } = await import('express');
    const app = express();
    app.use(server.nodeHandler);
    const listening = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => listening.once('listening', () => resolve()));
    return {
      port: (listening.address() as AddressInfo).port,
      close: async () => {
        listening.closeAllConnections();
        await server.close();
      },
    };
  }
  if (host === 'fastify') {
    const { default: Fastify } = await import('fastify');
    const { a2aFastify } = (await import(
      new URL('server/adapters/fastify.js', dist).href
    )) as typeof FastifyModule;
    const app = Fastify();
    await app.register(a2aFastify, { server });
    await app.listen({ port: 0, host: '127.0.0.1' });
    return {
      port: (app.server.address() as AddressInfo).port,
      close: async () => {
        await server.close();
        await app.close();
      },
    };
  }
  const { serve } = await import('@hono/node-server');
  let fetch: (request: Request) => Response | Promise<Response> = server.fetch;
  if (host === 'hono') {
    const { Hono } = await import('hono');
    const { a2aHono } = (await import(new URL('server/adapters/hono.js', dist).href)) as typeof HonoModule;
    const app = new Hono();
    app.route('/', a2aHono(server));
    fetch = app.fetch;
  } else if (host !== 'fetch')
    throw new Error(`BENCH_HOST ${host} is not one of listen, express, fastify, hono, fetch`);
  const listening = serve({ fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((resolve) => listening.once('listening', () => resolve()));
  return {
    port: (listening.address() as AddressInfo).port,
    close: async () => {
      await server.close();
      listening.close();
    },
  };
});
