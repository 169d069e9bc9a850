/**
 * TLS listener settings from configuration (`--tls-cert F --tls-key F [--tls-client-ca F]`):
 * node:https options requesting a client certificate when a client CA is given (mutual TLS).
 * The gRPC listener's credentials come from `grpcServerCredentials` of `a2a-kit/grpc`.
 */
import type * as Fs from 'node:fs';
import { requireNode } from '../../core/node-modules.js';
import type { ServerOptions as HttpsServerOptions } from 'node:https';

/** PEM material of a TLS listener. */
export interface TlsConfig {
  /** Server certificate chain (PEM). */
  cert: string | Buffer;
  /** Server private key (PEM). */
  key: string | Buffer;
  /** CA certificate(s) that sign client certificates (PEM); turns on mutual TLS. */
  clientCa?: string | Buffer;
  /** Oldest TLS version accepted. @default 'TLSv1.2' (SRV-SEC-2) */
  minVersion?: 'TLSv1.2' | 'TLSv1.3';
}

/** Reads the PEM files of a {@link TlsConfig}. */
export function readTlsConfig(files: {
  certFile: string;
  keyFile: string;
  clientCaFile?: string;
}): TlsConfig {
  // node:fs on use: the server entry loads on workerd, which has no file system.
  const { readFileSync } = requireNode<typeof Fs>('node:fs');
  return {
    cert: readFileSync(files.certFile),
    key: readFileSync(files.keyFile),
    ...(files.clientCaFile ? { clientCa: readFileSync(files.clientCaFile) } : {}),
  };
}

/**
 * `https.createServer` options. With a client CA, certificates are requested but a missing or
 * untrusted one does not fail the handshake: the mTLS authenticator answers it with a
 * protocol error (401), and other schemes can still apply.
 */
export function httpsServerOptions(config: TlsConfig): HttpsServerOptions {
  return {
    cert: config.cert,
    key: config.key,
    minVersion: config.minVersion ?? 'TLSv1.2',
    ...(config.clientCa ? { ca: config.clientCa, requestCert: true, rejectUnauthorized: false } : {}),
  };
}
