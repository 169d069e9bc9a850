/**
 * Client-side hooks of the v0.3 compatibility layer: which card interfaces a v1.0 client can
 * still use at A2A 0.3 (JSON-RPC, REST, gRPC), and their transports.
 */
import type { HttpTransportOptions } from '../http/client-http.js';
import type { Transport } from '../transport.js';
import type { AgentInterface } from '../../model/schema.js';
import { isV03Version } from './card.js';
import { V03JsonRpcTransport } from './jsonrpc-client.js';
import { V03RestTransport } from './rest-client.js';

function binding(name: string): 'JSONRPC' | 'HTTP+JSON' | 'GRPC' | undefined {
  const n = name.trim().toUpperCase();
  if (n === 'JSONRPC' || n === 'JSON-RPC') return 'JSONRPC';
  if (n === 'HTTP+JSON' || n === 'REST' || n === 'HTTP') return 'HTTP+JSON';
  if (n === 'GRPC') return 'GRPC';
  return undefined;
}

/** True for a v0.3 JSON-RPC, REST or gRPC interface. */
export function isUsableV03Interface(iface: AgentInterface): boolean {
  return isV03Version(iface.protocolVersion) && binding(iface.protocolBinding) !== undefined;
}

/** The v0.3 transport for a v0.3 interface; `undefined` for anything else. */
export async function createV03Transport(
  iface: AgentInterface,
  options: HttpTransportOptions,
): Promise<Transport | undefined> {
  if (!isV03Version(iface.protocolVersion)) return undefined;
  const b = binding(iface.protocolBinding);
  if (b === 'JSONRPC') return new V03JsonRpcTransport(iface.url, options);
  if (b === 'HTTP+JSON') return new V03RestTransport(iface.url, options);
  if (b === 'GRPC') {
    // Loaded on demand, like the v1.0 gRPC transport: HTTP-only users never load grpc-js.
    const { V03GrpcTransport } = await import('./grpc-client.js');
    const target = /^[a-z][a-z0-9+.-]*:\/\/([^/]+)/i.exec(iface.url)?.[1] ?? iface.url.replace(/\/+$/, '');
    return new V03GrpcTransport(target, {
      ...(options.headers ? { headers: options.headers } : {}),
      ...(options.extensions ? { extensions: options.extensions } : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    });
  }
  return undefined;
}
