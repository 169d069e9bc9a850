/**
 * `a2a-kit`: the A2A (Agent2Agent) protocol v1.0 for TypeScript. This entry re-exports the
 * data model, the errors, the server framework, the client library and the echo agent; the
 * subpaths (`a2a-kit/model`, `a2a-kit/errors`, `a2a-kit/server`, `a2a-kit/client`) offer the
 * same pieces one area at a time, and `a2a-kit/grpc` the gRPC binding (optional peers
 * `@grpc/grpc-js` and `@bufbuild/protobuf`).
 */
export * from './model/index.js';
export * from './errors/index.js';
export * from './server/index.js';
export * from './client/index.js';
// The echo agent as a ready example; the bench agent and the CLI's agent registry stay internal.
export { echoExecutor, echoCard } from './agents/echo.js';
export type { BuiltInCard } from './agents/card.js';
