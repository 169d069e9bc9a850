/**
 * Client-side hooks of the v0.3 compatibility layer: which card interfaces a v1.0 client can
 * still use at A2A 0.3 (JSON-RPC and REST), and their transports.
 */
import type { HttpTransportOptions } from '../../client/http.js';
import type { Transport } from '../../client/transport.js';
import type { AgentInterface } from '../../model/schema.js';
import { isV03Version } from './card.js';
import { V03JsonRpcTransport } from './jsonrpc-client.js';
import { V03RestTransport } from './rest-client.js';

function binding(name: string): 'JSONRPC' | 'HTTP+JSON' | undefined {
  const n = name.trim().toUpperCase();
  if (n === 'JSONRPC' || n === 'JSON-RPC') return 'JSONRPC';
  if (n === 'HTTP+JSON' || n === 'REST' || n === 'HTTP') return 'HTTP+JSON';
  return undefined;
}

/** True for a v0.3 JSON-RPC or REST interface (v0.3 gRPC is not spoken by this client). */
export function isUsableV03Interface(iface: AgentInterface): boolean {
  return isV03Version(iface.protocolVersion) && binding(iface.protocolBinding) !== undefined;
}

/** The v0.3 transport for a v0.3 interface; `undefined` for anything else. */
export function createV03Transport(
  iface: AgentInterface,
  options: HttpTransportOptions,
): Transport | undefined {
  if (!isV03Version(iface.protocolVersion)) return undefined;
  const b = binding(iface.protocolBinding);
  if (b === 'JSONRPC') return new V03JsonRpcTransport(iface.url, options);
  if (b === 'HTTP+JSON') return new V03RestTransport(iface.url, options);
  return undefined;
}
