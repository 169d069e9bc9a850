/**
 * Per-principal limits (rate, concurrency caps, the key they use) and the listener limits
 * (timeouts, connection caps).
 */
export * from './rate-limit.js';
export * from './concurrency.js';
export { principalKey } from './key.js';
export { httpConnectionLimits, httpServerTimeouts, type HttpTimeoutOptions } from './http-timeouts.js';
export { ConnectionLimiter, type ConnectionLimitOptions } from '../../bindings/connection-limits.js';
