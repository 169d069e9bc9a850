/** Per-principal limits: rate (token bucket) and concurrency caps, and the key they use. */
export * from './rate-limit.js';
export * from './concurrency.js';
export { principalKey } from './key.js';
export { httpServerTimeouts, type HttpTimeoutOptions } from './http-timeouts.js';
