/** The web inspector's backend: `startInspector` serves the page and its API on loopback. */
export { startInspector, type Inspector, type InspectorOptions } from './server.js';
export {
  WireLog,
  capturingFetch,
  grpcRecorder,
  TRUNCATED_MARKER,
  type WireExchange,
  type WireEvent,
  type WireLogLimits,
} from './wire.js';
export { checkExchange, type WireProblem } from './wire-check.js';
export { TOKEN_HEADER } from './guard.js';
export type * from './api-types.js';
