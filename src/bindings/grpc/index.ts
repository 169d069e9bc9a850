/**
 * `a2a-kit/grpc`: the gRPC binding, server ({@link GrpcBinding}) and client
 * ({@link GrpcTransport}). It needs the optional peer dependencies `@grpc/grpc-js` and
 * `@bufbuild/protobuf`; `a2a-kit/server` and `a2a-kit/client` load this module only when gRPC
 * is asked for (the server's `grpc` option, a card's GRPC interface).
 */
export { GrpcBinding, DEFAULT_MAX_MESSAGE_BYTES } from './server.js';
export type { GrpcBindingOptions } from './server.js';
export { GrpcTransport } from './client.js';
export type { GrpcTransportOptions } from './client.js';
export { grpcServerCredentials } from './credentials.js';
export type { GrpcTlsMaterial } from './credentials.js';
