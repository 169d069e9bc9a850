/**
 * The `bench` agent served by a2a-kit (JSON-RPC at /a2a/jsonrpc, REST at /a2a/rest, gRPC),
 * from the compiled dist/ (`npm run build`), as users run it: not from src/ through tsx.
 *
 * Observability knobs (issue 15): BENCH_KIT_LOG=<level> gives the server a pino logger at that
 * level writing to /dev/null; BENCH_KIT_TRACER=noop installs the OpenTelemetry SDK's tracer
 * provider with an always-off sampler (plus context manager and W3C propagator), `sdk` one that
 * records every span into a no-op processor; BENCH_KIT_DIST=<dir> serves another build (a
 * baseline) instead of dist/.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as AgentsModule from '../../src/agents/index.js';
import type * as HttpModule from '../../src/server/http.js';
import { runChild } from './child.js';

type Agents = typeof AgentsModule;
type Http = typeof HttpModule;

const env = process.env;
const dist = env.BENCH_KIT_DIST
  ? pathToFileURL(env.BENCH_KIT_DIST.endsWith('/') ? env.BENCH_KIT_DIST : `${env.BENCH_KIT_DIST}/`)
  : new URL('../../dist/', import.meta.url);

async function installTracer(mode: string): Promise<void> {
  const api = await import('@opentelemetry/api');
  const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
  const { W3CTraceContextPropagator } = await import('@opentelemetry/core');
  const sdk = await import('@opentelemetry/sdk-trace-base');
  const provider = new sdk.BasicTracerProvider(
    mode === 'sdk'
      ? { sampler: new sdk.AlwaysOnSampler(), spanProcessors: [new sdk.NoopSpanProcessor()] }
      : { sampler: new sdk.AlwaysOffSampler() },
  );
  api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  api.propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  api.trace.setGlobalTracerProvider(provider);
}

runChild(async () => {
  if (!existsSync(fileURLToPath(new URL('server/http.js', dist)))) {
    throw new Error('dist/ is missing: run `npm run build` first (`npm run bench` does)');
  }
  if (env.BENCH_KIT_TRACER) await installTracer(env.BENCH_KIT_TRACER);
  const { benchCard, benchExecutor } = (await import(new URL('agents/index.js', dist).href)) as Agents;
  const { createA2AServer } = (await import(new URL('server/http.js', dist).href)) as Http;
  let logger: HttpModule.A2AServerOptions['logger'];
  if (env.BENCH_KIT_LOG) {
    const { pino } = await import('pino');
    logger = pino({ level: env.BENCH_KIT_LOG }, pino.destination('/dev/null'));
  }
  const server = createA2AServer({
    agent: benchExecutor,
    card: benchCard,
    // BENCH_KIT_STORE: `sqlite:<path>` or a postgres:// URL for the store scenarios.
    store: (process.env.BENCH_KIT_STORE ?? 'memory') as 'memory',
    grpc: { port: 0, host: '127.0.0.1' },
    ...(logger ? { logger } : {}),
  });
  const { port, grpcPort } = await server.listen(0, '127.0.0.1');
  return { port, ...(grpcPort === undefined ? {} : { grpcPort }), close: () => server.close() };
});
