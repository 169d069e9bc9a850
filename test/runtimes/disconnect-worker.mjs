// The disconnect check's server (disconnect-agent.mjs) as a Cloudflare Worker; LABEL and
// KEEP_ALIVE_MS come from the workerd config, one worker per socket. Made on the first request:
// Workers allow no timers or random values at global scope.
import { disconnectServer } from './disconnect-agent.mjs';

let server;

export default {
  fetch(request, env) {
    server ??= disconnectServer({ label: env.LABEL, keepAliveMs: Number(env.KEEP_ALIVE_MS) });
    return server.fetch(request);
  },
};
