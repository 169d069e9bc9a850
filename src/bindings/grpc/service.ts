/**
 * grpc-js method definitions of `lf.a2a.v1.A2AService`, built from the protobuf-es
 * descriptors. The server side decodes requests into our model without throwing (bytes that are
 * not a valid message must become INVALID_ARGUMENT, not grpc-js's INTERNAL) and sends bytes the
 * handler already encoded; the client (client.ts) encodes and decodes with the same descriptors.
 */
import type { DescMessage } from '@bufbuild/protobuf';
import type { MethodDefinition, ServiceDefinition } from '@grpc/grpc-js';
import type { A2AMethod } from '../../model/operations.js';
import { A2AService } from './gen/lf/a2a/v1/a2a_pb.js';
import { decodeMessage } from './decode.js';
import { asBuffer } from './encode.js';

/** `lf.a2a.v1.A2AService`. */
export const A2A_SERVICE_NAME = A2AService.typeName;

/** One RPC of the service. */
export interface GrpcMethod {
  readonly method: A2AMethod;
  /** `/lf.a2a.v1.A2AService/<Method>`. */
  readonly path: string;
  readonly input: DescMessage;
  readonly output: DescMessage;
  readonly streaming: boolean;
}

/** Every RPC by A2A method name (identical to the gRPC method names). */
export const GRPC_METHODS: Readonly<Record<A2AMethod, GrpcMethod>> = Object.fromEntries(
  A2AService.methods.map((m) => [
    m.name,
    {
      method: m.name as A2AMethod,
      path: `/${A2A_SERVICE_NAME}/${m.name}`,
      input: m.input,
      output: m.output,
      streaming: m.methodKind === 'server_streaming',
    } satisfies GrpcMethod,
  ]),
) as Record<A2AMethod, GrpcMethod>;

/**
 * A request as the server's deserializer hands it over: still the message bytes. The binding
 * decodes them ({@link decodeRequest}) only once the caller is authenticated from metadata.
 */
export type DecodedRequest = Buffer;

/** The request message decoded to the model, or why it could not be. */
export function decodeRequest(
  input: DescMessage,
  bytes: Buffer,
): { ok: true; value: unknown } | { ok: false; reason: string } {
  try {
    return { ok: true, value: decodeMessage(input, bytes) };
  } catch (err) {
    return { ok: false, reason: err instanceof Error ? err.message : String(err) };
  }
}

/** The service as the server registers it: requests decoded to the model, replies as pre-encoded bytes. */
export function serverServiceDefinition(): ServiceDefinition {
  const def: Record<string, MethodDefinition<DecodedRequest, Uint8Array>> = {};
  for (const m of Object.values(GRPC_METHODS)) {
    def[m.method] = {
      path: m.path,
      requestStream: false,
      responseStream: m.streaming,
      requestSerialize: () => {
        throw new Error('server definition cannot serialize requests');
      },
      requestDeserialize: (bytes: Buffer) => bytes,
      responseSerialize: asBuffer,
      responseDeserialize: (bytes: Buffer) => bytes,
      originalName: m.method.charAt(0).toLowerCase() + m.method.slice(1),
    };
  }
  return def;
}
