// The disconnect check's server (disconnect-agent.mjs) on Bun or Deno.
import { disconnectServer } from './disconnect-agent.mjs';

const server = disconnectServer();

if (globalThis.Bun) {
  const listening = globalThis.Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: server.fetch });
  console.log(`listening at http://127.0.0.1:${listening.port}`);
} else {
  globalThis.Deno.serve(
    {
      port: 0,
      hostname: '127.0.0.1',
      onListen: ({ port }) => console.log(`listening at http://127.0.0.1:${port}`),
    },
    server.fetch,
  );
}
