/** The gRPC request view lives with the gRPC binding; re-exported for authenticator authors. */
export { authRequestFromGrpc, type GrpcCallView } from '../../bindings/grpc/auth-request.js';
