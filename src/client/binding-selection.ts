/**
 * Choosing how to talk to an agent from its card (CLI-CARD-2/3, CLI-VER-2/3): the first
 * interface with a binding we speak at protocol version 1.x (patch ignored), its tenant set
 * on every request.
 */
import type { AgentCard, AgentInterface } from '../model/schema.js';
import { PROTOCOL_VERSION } from '../model/operations.js';
import type { Transport } from '../bindings/transport.js';
import { A2ANoCompatibleInterfaceError } from '../errors/client-errors.js';
import { interceptTransport } from './interceptor.js';
import { grpcCallDefaults, tenantInterceptor } from './interface-interceptors.js';
import { JsonRpcTransport } from '../bindings/jsonrpc/client.js';
import { RestTransport } from '../bindings/rest/client.js';
import type { HttpTransportOptions } from '../bindings/http/client-http.js';
// v0.3 compatibility (issue 14): v0.3-only agents are reached through the compat transports.
import { createV03Transport, isUsableV03Interface } from '../bindings/compat-v03/client.js';

/** The three bindings of A2A v1.0. */
export type BindingName = 'JSONRPC' | 'HTTP+JSON' | 'GRPC';
/** Every binding this client can use. */
export const ALL_BINDINGS: readonly BindingName[] = ['JSONRPC', 'HTTP+JSON', 'GRPC'];

/** Normalizes a binding name as written on cards or the command line (`rest`, `grpc`...). */
export function bindingName(name: string): BindingName | undefined {
  const n = name.trim().toUpperCase();
  if (n === 'JSONRPC' || n === 'JSON-RPC') return 'JSONRPC';
  if (n === 'HTTP+JSON' || n === 'REST' || n === 'HTTP') return 'HTTP+JSON';
  if (n === 'GRPC') return 'GRPC';
  return undefined;
}

/** `1.0.3` → `1.0`. */
export function majorMinor(version: string): string {
  return version.split('.').slice(0, 2).join('.');
}

/**
 * Every interface the client may use, best first: the card's order among bindings we speak
 * at our protocol version (CLI-CARD-2), or, with `preferred`, the caller's binding order (card
 * order within one binding); bindings left out of `preferred` are never used. Fallback after
 * a failure follows this order too (CLI-CARD-5).
 */
export function usableInterfaces(
  card: AgentCard,
  preferred?: readonly BindingName[],
  compatV03 = true,
): AgentInterface[] {
  const usable = card.supportedInterfaces.filter(
    (i) => bindingName(i.protocolBinding) !== undefined && majorMinor(i.protocolVersion) === PROTOCOL_VERSION,
  );
  // v0.3 compatibility: v0.3 JSON-RPC/REST interfaces come after every v1.0 one (v1.0 preferred).
  const v03 = compatV03 ? card.supportedInterfaces.filter(isUsableV03Interface) : [];
  if (!preferred) return [...usable, ...v03];
  const order = [...new Set(preferred)];
  const inOrder = (list: AgentInterface[]): AgentInterface[] =>
    order.flatMap((b) => list.filter((i) => bindingName(i.protocolBinding) === b));
  return [...inOrder(usable), ...inOrder(v03)];
}

/**
 * Picks the interface to use: the first of {@link usableInterfaces}.
 * Throws {@link A2ANoCompatibleInterfaceError} naming what the card offers.
 */
export function selectInterface(
  card: AgentCard,
  preferred?: readonly BindingName[],
  compatV03 = true,
): AgentInterface {
  const wanted = preferred ?? ALL_BINDINGS;
  const chosen = usableInterfaces(card, preferred, compatV03)[0];
  if (chosen) return chosen;
  const offered = card.supportedInterfaces.map(
    (i) => `${i.protocolBinding} ${i.protocolVersion} at ${i.url}`,
  );
  if (offered.length === 0) {
    throw new A2ANoCompatibleInterfaceError(`the agent card of "${card.name}" lists no interfaces`);
  }
  const versions = new Set(card.supportedInterfaces.map((i) => majorMinor(i.protocolVersion)));
  if (!versions.has(PROTOCOL_VERSION) && [...versions].every((v) => v.startsWith('0.'))) {
    throw new A2ANoCompatibleInterfaceError(
      `the agent "${card.name}" speaks only A2A ${[...versions].join(', ')}; this client speaks A2A ${PROTOCOL_VERSION} (offered: ${offered.join('; ')})`,
    );
  }
  throw new A2ANoCompatibleInterfaceError(
    `no interface of "${card.name}" matches the bindings ${wanted.join(', ')} at A2A ${PROTOCOL_VERSION}; the card offers: ${offered.join('; ')}`,
  );
}

/** Options used when creating a transport for an interface. */
export type TransportFactoryOptions = HttpTransportOptions & { grpc?: Record<string, unknown> };

/**
 * Creates the transport for `iface`, wrapped ({@link interceptTransport}) so every request
 * carries the interface's tenant; on gRPC also with {@link grpcCallDefaults}.
 */
export async function createTransport(
  iface: AgentInterface,
  options: TransportFactoryOptions = {},
): Promise<Transport> {
  const binding = bindingName(iface.protocolBinding);
  let inner: Transport;
  const v03 = await createV03Transport(iface, options); // v0.3 compatibility: a v0.3 interface
  if (v03) inner = v03;
  else if (binding === 'JSONRPC') inner = new JsonRpcTransport(iface.url, options);
  else if (binding === 'HTTP+JSON') inner = new RestTransport(iface.url, options);
  else if (binding === 'GRPC') {
    // Loaded on demand: gRPC pulls in @grpc/grpc-js, which HTTP-only users never need.
    const modulePath = '../bindings/grpc/client.js';
    const mod = (await import(modulePath)) as {
      GrpcTransport: new (target: string, options?: Record<string, unknown>) => Transport;
    };
    // The client's headers and extensions travel as metadata, like they do as HTTP headers on
    // the other bindings; explicit gRPC options win.
    const grpc = new mod.GrpcTransport(grpcTarget(iface.url), {
      ...(options.headers ? { headers: options.headers } : {}),
      ...(options.extensions && options.extensions.length > 0 ? { extensions: options.extensions } : {}),
      ...(options.streamIdleTimeoutMs !== undefined
        ? { streamIdleTimeoutMs: options.streamIdleTimeoutMs }
        : {}),
      ...options.grpc,
    });
    return interceptTransport(grpc, [
      tenantInterceptor(iface.tenant || undefined),
      grpcCallDefaults(options.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS),
    ]);
  } else throw new A2ANoCompatibleInterfaceError(`unsupported binding ${iface.protocolBinding}`);
  return interceptTransport(inner, [tenantInterceptor(iface.tenant || undefined)]);
}

/** `grpc://host:port`, `http://host:port/` or `host:port` → `host:port`. */
export function grpcTarget(url: string): string {
  const m = /^[a-z][a-z0-9+.-]*:\/\/([^/]+)/i.exec(url);
  return m ? (m[1] as string) : url.replace(/\/+$/, '');
}

/** Per-call time limit when the caller gives none, as on the HTTP bindings. */
const DEFAULT_CALL_TIMEOUT_MS = 60_000;
