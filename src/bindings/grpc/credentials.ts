/** grpc-js server credentials from the PEM material of a TLS listener (see `readTlsConfig`). */
import { ServerCredentials } from '@grpc/grpc-js';

/** The PEM material the gRPC listener needs; a2a-kit/server's `TlsConfig` fits. */
export interface GrpcTlsMaterial {
  /** Server certificate chain (PEM). */
  cert: string | Buffer;
  /** Server private key (PEM). */
  key: string | Buffer;
  /** CA certificate(s) that sign client certificates (PEM); turns on mutual TLS. */
  clientCa?: string | Buffer;
}

/**
 * grpc-js server credentials. With a client CA, grpc-js requires and verifies the client
 * certificate during the handshake (it cannot defer the decision like HTTPS).
 */
export function grpcServerCredentials(config: GrpcTlsMaterial): ServerCredentials {
  const pair = { private_key: Buffer.from(config.key), cert_chain: Buffer.from(config.cert) };
  return ServerCredentials.createSsl(
    config.clientCa ? Buffer.from(config.clientCa) : null,
    [pair],
    config.clientCa !== undefined,
  );
}
