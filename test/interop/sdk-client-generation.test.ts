/**
 * GEN-1: the official @a2a-js/sdk v1.0 client against a server with the A2A 1.1 draft support
 * on (the extension declared, the 1.1 interfaces listed): every test of
 * sdk-client-bindings.test.ts, run again on such a server, passes unchanged.
 */
(globalThis as { a2aInteropGeneration?: boolean }).a2aInteropGeneration = true;
await import('./sdk-client-bindings.test.js');
