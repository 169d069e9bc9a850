/**
 * The `bench` agent served by a2a-kit (JSON-RPC at /a2a/jsonrpc, REST at /a2a/rest, gRPC),
 * from the compiled dist/ (`npm run build`), as users run it: not from src/ through tsx.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type * as AgentsModule from '../../src/agents/index.js';
import type * as HttpModule from '../../src/server/http.js';
import { runChild } from './child.js';

type Agents = typeof AgentsModule;
type Http = typeof HttpModule;

const dist = new URL('../../dist/', import.meta.url);

runChild(async () => {
  if (!existsSync(fileURLToPath(new URL('server/http.js', dist)))) {
    throw new Error('dist/ is missing: run `npm run build` first (`npm run bench` does)');
  }
  const { benchCard, benchExecutor } = (await import(new URL('agents/index.js', dist).href)) as Agents;
  const { createA2AServer } = (await import(new URL('server/http.js', dist).href)) as Http;
  const server = createA2AServer({
    agent: benchExecutor,
    card: benchCard,
    // BENCH_KIT_STORE: `sqlite:<path>` or a postgres:// URL for the store scenarios.
    store: (process.env.BENCH_KIT_STORE ?? 'memory') as 'memory',
    grpc: { port: 0, host: '127.0.0.1' },
  });
  const { port, grpcPort } = await server.listen(0, '127.0.0.1');
  return { port, ...(grpcPort === undefined ? {} : { grpcPort }), close: () => server.close() };
});
