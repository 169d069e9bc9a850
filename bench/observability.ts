/**
 * CPU cost of observability per SendMessage (`task:hello`, the bench agent), measured at the
 * RequestHandler (no HTTP: the relative overhead here is an upper bound of what a full request
 * sees). One variant per process, chosen by the same knobs as bench/servers/kit.ts
 * (BENCH_KIT_DIST, BENCH_KIT_TRACER, BENCH_KIT_LOG). Prints CPU microseconds per operation.
 * BENCH_OBS_HTTP=1 sends the messages over JSON-RPC on a keep-alive socket instead (client and
 * server in this process: the figure includes the client's share).
 *
 *   node --import tsx bench/observability.ts            # after `npm run build`
 */
import { Agent, request } from 'node:http';
import { pathToFileURL } from 'node:url';
import type * as AgentsModule from '../src/agents/index.js';
import type * as ServerModule from '../src/server/index.js';

const env = process.env;
const OPS = Number(env.BENCH_OBS_OPS ?? 20_000);
const dist = env.BENCH_KIT_DIST
  ? pathToFileURL(env.BENCH_KIT_DIST.endsWith('/') ? env.BENCH_KIT_DIST : `${env.BENCH_KIT_DIST}/`)
  : new URL('../dist/', import.meta.url);

if (env.BENCH_KIT_TRACER) {
  const api = await import('@opentelemetry/api');
  const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
  const { W3CTraceContextPropagator } = await import('@opentelemetry/core');
  const sdk = await import('@opentelemetry/sdk-trace-base');
  const provider = new sdk.BasicTracerProvider(
    env.BENCH_KIT_TRACER === 'sdk'
      ? { sampler: new sdk.AlwaysOnSampler(), spanProcessors: [new sdk.NoopSpanProcessor()] }
      : { sampler: new sdk.AlwaysOffSampler() },
  );
  api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  api.propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  api.trace.setGlobalTracerProvider(provider);
}
const { benchCard, benchExecutor } = (await import(
  new URL('agents/index.js', dist).href
)) as typeof AgentsModule;
const { createA2AServer, createCallContext } = (await import(
  new URL('server/index.js', dist).href
)) as typeof ServerModule;
let logger: ServerModule.Logger | undefined;
if (env.BENCH_KIT_LOG) {
  const { pino } = await import('pino');
  logger = pino({ level: env.BENCH_KIT_LOG }, pino.destination('/dev/null'));
}
const server = createA2AServer({ agent: benchExecutor, card: benchCard, ...(logger ? { logger } : {}) });
const ctx = createCallContext();

const HTTP = env.BENCH_OBS_HTTP === '1';
const port = HTTP ? (await server.listen(0, '127.0.0.1')).port : 0;
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function post(body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/a2a/jsonrpc',
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      },
      (res) => {
        res.resume();
        res.on('end', resolve);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function run(n: number, prefix: string): Promise<void> {
  for (let i = 0; i < n; i++) {
    const message = {
      messageId: `${prefix}-${i}`,
      role: 'ROLE_USER' as const,
      parts: [{ text: 'task:hello' }],
    };
    if (HTTP) {
      await post(JSON.stringify({ jsonrpc: '2.0', id: i, method: 'SendMessage', params: { message } }));
    } else {
      await server.handler.sendMessage({ message }, ctx);
    }
  }
}

await run(OPS / 4, 'warm');
const before = process.cpuUsage();
await run(OPS, 'm');
const used = process.cpuUsage(before);
process.stdout.write(`${((used.user + used.system) / OPS).toFixed(1)}\n`);
agent.destroy();
await server.close();
