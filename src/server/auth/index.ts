/** Authentication building blocks: request view, authenticators per card scheme, requirements. */
export * from './request.js';
export * from './types.js';
export { constantTimeEqual } from './secrets.js';
export * from './api-key.js';
export * from './basic.js';
export * from './bearer.js';
export * from './oauth.js';
export * from './mtls.js';
export * from './requirements.js';
export { holdsTenant, tenantGuard } from './tenant.js';
export type { FailedAuthOptions } from './failed-auth.js';
export { securityHeadersFor } from '../../bindings/http/security-headers.js';
export { authRequestFromGrpc, type GrpcCallView } from './grpc-request.js';
export { readTlsConfig, httpsServerOptions, type TlsConfig } from './tls.js';
