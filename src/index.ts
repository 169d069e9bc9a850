/**
 * `a2a-kit`: the A2A (Agent2Agent) protocol v1.0 for TypeScript. This entry re-exports the
 * data model, the errors, the server framework, the client library and the built-in agents;
 * the subpaths (`a2a-kit/model`, `a2a-kit/errors`, `a2a-kit/server`, `a2a-kit/client`) offer
 * the same pieces one area at a time.
 */
export * from './model/index.js';
export * from './errors/index.js';
export * from './server/index.js';
export * from './client/index.js';
export {
  builtInAgents,
  echoExecutor,
  echoCard,
  benchExecutor,
  benchCard,
  BENCH_ARTIFACT_ID,
} from './agents/index.js';
export type { BuiltInAgent, BuiltInCard } from './agents/index.js';
