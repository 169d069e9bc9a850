/** The `bench` agent served by a2a-kit (JSON-RPC at /a2a/jsonrpc, REST at /a2a/rest, gRPC). */
import { benchCard, benchExecutor } from '../../src/agents/index.js';
import { createA2AServer } from '../../src/server/http.js';
import { runChild } from './child.js';

runChild(async () => {
  const server = createA2AServer({
    agent: benchExecutor,
    card: benchCard,
    store: 'memory',
    grpc: { port: 0, host: '127.0.0.1' },
  });
  const { port, grpcPort } = await server.listen(0, '127.0.0.1');
  return { port, ...(grpcPort === undefined ? {} : { grpcPort }), close: () => server.close() };
});
