/**
 * The v0.3 gRPC service (`a2a.v1.A2AService`), added to the same grpc-js server as
 * `lf.a2a.v1.A2AService` (SRV-COMPAT-7: the packages reuse field numbers, so each has its own
 * descriptors). Bytes are read with the v0.3 descriptors into v0.3 ProtoJSON and translated with
 * the REST binding's translators; the RequestHandler methods are the v1.0 ones. Errors carry the
 * status codes the v0.3 SDKs map back (NOT_FOUND, FAILED_PRECONDITION, UNIMPLEMENTED, ...).
 */
import { fromBinary, fromJson, toBinary, toJson, type DescMessage, type JsonValue } from '@bufbuild/protobuf';
import {
  Metadata,
  status as GrpcStatus,
  type MethodDefinition,
  type Server,
  type ServerUnaryCall,
  type ServerWritableStream,
  type sendUnaryData,
  type ServiceDefinition,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import {
  InvalidParamsError,
  ParseError,
  UnsupportedOperationError,
  type A2AError,
} from '../../errors/a2a-error.js';
import type { A2AErrorCode } from '../../errors/table.js';
import type { A2AMethod } from '../../model/operations.js';
import type {
  AgentCard,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskRequest,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  TaskPushNotificationConfig,
} from '../../model/schema.js';
import type { ServerCallContext } from '../../core/context.js';
import type { RequestHandler } from '../../core/handler/request-handler.js';
import { decodeRequest, type HttpRequest } from '../http/http-body.js';
import type { Json } from './content.js';
import { FinalMarker, V03Operations, extendedCard } from './operations.js';
import {
  cardToProto,
  createPushConfigFromProto,
  messageToProto,
  pushConfigToProto,
  sendRequestFromProto,
  streamEventToProto,
  taskToProto,
} from './proto-json.js';
import { protocolError, v03CallContext, type V03BindingOptions } from './service.js';
import { securityHeadersFor } from '../http/security-headers.js';
import { authRequestFromGrpc, type GrpcCallView } from '../grpc/auth-request.js';
import { principalOf } from '../auth-request.js';
import { A2AService } from './gen/a2a/v1/a2a_pb.js';

/** `a2a.v1.A2AService`. */
export const V03_GRPC_SERVICE = A2AService.typeName;

/** A request message as grpc-js hands it over: the bytes, decoded once the caller is known. */
type Decoded = Buffer;

/** The status code a v0.3 client expects for each error (the v0.3 SDKs' table). */
const V03_GRPC_CODES: Partial<Record<A2AErrorCode, number>> = {
  TaskNotFound: GrpcStatus.NOT_FOUND,
  TaskNotCancelable: GrpcStatus.FAILED_PRECONDITION,
  PushNotificationNotSupported: GrpcStatus.UNIMPLEMENTED,
  UnsupportedOperation: GrpcStatus.UNIMPLEMENTED,
  ContentTypeNotSupported: GrpcStatus.INVALID_ARGUMENT,
  InvalidAgentResponse: GrpcStatus.INTERNAL,
  ExtendedAgentCardNotConfigured: GrpcStatus.FAILED_PRECONDITION,
  ExtensionSupportRequired: GrpcStatus.FAILED_PRECONDITION,
  VersionNotSupported: GrpcStatus.FAILED_PRECONDITION,
  ParseError: GrpcStatus.INVALID_ARGUMENT,
  InvalidRequest: GrpcStatus.INVALID_ARGUMENT,
  InvalidParams: GrpcStatus.INVALID_ARGUMENT,
  MethodNotFound: GrpcStatus.UNIMPLEMENTED,
  InternalError: GrpcStatus.INTERNAL,
  Unavailable: GrpcStatus.UNAVAILABLE,
  Unauthenticated: GrpcStatus.UNAUTHENTICATED,
  PermissionDenied: GrpcStatus.PERMISSION_DENIED,
  // Rate limits and the failed-authentication throttle (was UNKNOWN: no entry).
  ResourceExhausted: GrpcStatus.RESOURCE_EXHAUSTED,
};

function v03Status(error: A2AError): { code: number; details: string; metadata?: Metadata } {
  const status = { code: V03_GRPC_CODES[error.code] ?? GrpcStatus.UNKNOWN, details: error.message };
  const headers = Object.entries(securityHeadersFor(error));
  if (headers.length === 0) return status;
  // WWW-Authenticate and Retry-After travel as trailing metadata, as on lf.a2a.v1.
  const metadata = new Metadata();
  for (const [key, value] of headers) metadata.set(key, value);
  return { ...status, metadata };
}

/** `tasks/{id}` → id; `InvalidParams` naming `field` otherwise. */
function taskIdOf(name: unknown, field: string): string {
  const m = typeof name === 'string' ? /^tasks\/([^/]+)$/.exec(name) : null;
  if (!m)
    throw new InvalidParamsError(`Invalid parameters: ${field} must be "tasks/{id}"`, {
      violations: [{ path: field, description: 'must be "tasks/{id}"' }],
    });
  return m[1] as string;
}

/** `tasks/{id}/pushNotificationConfigs/{configId}` → both ids. */
function configNameOf(name: unknown): { taskId: string; id: string } {
  const m = typeof name === 'string' ? /^tasks\/([^/]+)\/pushNotificationConfigs\/([^/]+)$/.exec(name) : null;
  if (!m) {
    throw new InvalidParamsError(
      'Invalid parameters: name must be "tasks/{id}/pushNotificationConfigs/{configId}"',
      {
        violations: [
          { path: 'name', description: 'must be "tasks/{id}/pushNotificationConfigs/{configId}"' },
        ],
      },
    );
  }
  return { taskId: m[1] as string, id: m[2] as string };
}

/** A grpc-js call as the bindings' request view (metadata as headers, no body). */
function metadataRequest(
  call: GrpcCallView & { readonly metadata: Metadata },
  signal: AbortSignal | undefined,
): HttpRequest {
  const metadata = call.metadata;
  const values = (name: string): string[] => metadata.get(name).map(String);
  return {
    authRequest: () => authRequestFromGrpc(call),
    method: 'POST',
    path: '',
    query: '',
    header: (name) => values(name)[0],
    headerValues: values,
    readBody: () => Promise.reject(new Error('no body on gRPC')),
    ...(signal ? { signal } : {}),
  };
}

interface V03Rpc {
  name: string;
  input: DescMessage;
  output: DescMessage;
  streaming: boolean;
}

/** Serves `a2a.v1.A2AService` for a RequestHandler. */
export class V03GrpcService {
  private readonly ops: V03Operations;
  private readonly rpcs: V03Rpc[];

  private readonly onError: ((error: unknown) => void) | undefined;

  constructor(
    private readonly handler: RequestHandler,
    private readonly options: Pick<V03BindingOptions, 'onError' | 'authenticate'> = {},
  ) {
    this.onError = options.onError;
    this.ops = new V03Operations(handler);
    this.rpcs = A2AService.methods.map((m) => ({
      name: m.name,
      input: m.input,
      output: m.output,
      streaming: m.methodKind === 'server_streaming',
    }));
  }

  /** Adds the service to a grpc-js server (before or after it is bound). */
  addTo(server: Server): void {
    const definition: Record<string, MethodDefinition<Decoded, Json>> = {};
    const impl: UntypedServiceImplementation = {};
    for (const rpc of this.rpcs) {
      definition[rpc.name] = {
        path: `/${V03_GRPC_SERVICE}/${rpc.name}`,
        requestStream: false,
        responseStream: rpc.streaming,
        requestSerialize: () => {
          throw new Error('server definition cannot serialize requests');
        },
        // Kept as bytes: the message is decoded after the caller is authenticated.
        requestDeserialize: (bytes: Buffer) => bytes,
        responseSerialize: (value: Json) =>
          Buffer.from(
            toBinary(rpc.output, fromJson(rpc.output, value as JsonValue, { ignoreUnknownFields: true })),
          ),
        responseDeserialize: (bytes: Buffer) => toJson(rpc.output, fromBinary(rpc.output, bytes)) as Json,
        originalName: rpc.name.charAt(0).toLowerCase() + rpc.name.slice(1),
      };
      impl[rpc.name] = rpc.streaming
        ? (call: ServerWritableStream<Decoded, Json>) => void this.serveStream(rpc, call)
        : (call: ServerUnaryCall<Decoded, Json>, callback: sendUnaryData<Json>) =>
            void this.serveUnary(rpc, call, callback);
    }
    server.addService(definition as ServiceDefinition, impl);
  }

  private body(rpc: V03Rpc, bytes: Decoded): Json {
    try {
      return toJson(rpc.input, fromBinary(rpc.input, bytes)) as Json;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new ParseError(`Request is not a valid ${rpc.input.typeName} message: ${reason}`);
    }
  }

  private responseMetadata(ctx: ServerCallContext, header: string): Metadata | undefined {
    if (ctx.activatedExtensions.size === 0) return undefined;
    const md = new Metadata();
    md.set(header, [...ctx.activatedExtensions].join(','));
    return md;
  }

  private async serveUnary(
    rpc: V03Rpc,
    call: ServerUnaryCall<Decoded, Json>,
    callback: sendUnaryData<Json>,
  ): Promise<void> {
    try {
      // The caller first, from metadata: a refused one costs no decoding.
      const request = metadataRequest(call, undefined);
      const principal = await principalOf(this.options.authenticate, () => request.authRequest());
      const body = this.body(rpc, call.request);
      const { ctx, extensionsHeader } = v03CallContext(this.handler, request, false, 'GRPC', principal);
      const result = await this.unary(rpc.name, body, ctx);
      const md = this.responseMetadata(ctx, extensionsHeader);
      if (md) call.sendMetadata(md);
      callback(null, result);
    } catch (error) {
      callback(v03Status(protocolError(error, this.onError)));
    }
  }

  private decode<T>(method: A2AMethod, params: Json): T {
    return decodeRequest<T>(method, params);
  }

  private async unary(name: string, body: Json, ctx: ServerCallContext): Promise<Json> {
    switch (name) {
      case 'SendMessage': {
        const request = this.decode<SendMessageRequest>('SendMessage', sendRequestFromProto(body));
        const res = await this.handler.sendMessage(request, ctx);
        return res.task ? { task: taskToProto(res.task) } : { message: messageToProto(res.message!) };
      }
      case 'GetTask': {
        const params: Json = { id: taskIdOf(body.name, 'name') };
        if (typeof body.historyLength === 'number' && body.historyLength > 0)
          params.historyLength = body.historyLength;
        return taskToProto(await this.handler.getTask(this.decode<GetTaskRequest>('GetTask', params), ctx));
      }
      case 'CancelTask': {
        const request = this.decode<CancelTaskRequest>('CancelTask', { id: taskIdOf(body.name, 'name') });
        return taskToProto(await this.handler.cancelTask(request, ctx));
      }
      case 'CreateTaskPushNotificationConfig': {
        const taskId = taskIdOf(body.parent, 'parent');
        const request = this.decode<TaskPushNotificationConfig>(
          'CreateTaskPushNotificationConfig',
          createPushConfigFromProto(body, taskId),
        );
        return pushConfigToProto(await this.handler.createTaskPushNotificationConfig(request, ctx));
      }
      case 'GetTaskPushNotificationConfig': {
        const { taskId, id } = configNameOf(body.name);
        return pushConfigToProto(await this.ops.getPushConfig(taskId, id, ctx));
      }
      case 'ListTaskPushNotificationConfig': {
        const taskId = taskIdOf(body.parent, 'parent');
        return { configs: (await this.ops.listPushConfigs(taskId, ctx)).map(pushConfigToProto) };
      }
      case 'DeleteTaskPushNotificationConfig': {
        const request = this.decode<DeleteTaskPushNotificationConfigRequest>(
          'DeleteTaskPushNotificationConfig',
          configNameOf(body.name),
        );
        await this.handler.deleteTaskPushNotificationConfig(request, ctx);
        return {};
      }
      case 'GetAgentCard':
        return cardToProto(await this.card(ctx));
      default:
        throw new UnsupportedOperationError(`${name} is not a unary RPC`);
    }
  }

  /** gRPC has no well-known URL: GetAgentCard gives the extended card when there is one, else the public card. */
  private async card(ctx: ServerCallContext): Promise<AgentCard> {
    const card = this.handler.agentCard();
    return card.capabilities.extendedAgentCard === true ? extendedCard(this.handler, ctx) : card;
  }

  private async serveStream(rpc: V03Rpc, call: ServerWritableStream<Decoded, Json>): Promise<void> {
    const abort = new AbortController();
    let iterator: AsyncIterator<{ event: StreamResponse; final: boolean }> | undefined;
    let stopped = false;
    let wake: (() => void) | undefined;
    const stop = (): void => {
      if (stopped) return;
      stopped = true;
      abort.abort();
      wake?.();
      // The client went away: stop reading events, never cancel the task.
      void iterator?.return?.()?.catch(() => undefined);
    };
    call.once('cancelled', stop);
    try {
      const request = metadataRequest(call, abort.signal);
      const principal = await principalOf(this.options.authenticate, () => request.authRequest());
      const body = this.body(rpc, call.request);
      const { ctx, extensionsHeader } = v03CallContext(this.handler, request, true, 'GRPC', principal);
      const events =
        rpc.name === 'SendStreamingMessage'
          ? await this.handler.sendStreamingMessage(
              this.decode<SendMessageRequest>('SendMessage', sendRequestFromProto(body)),
              ctx,
            )
          : await this.handler.subscribeToTask(
              this.decode<SubscribeToTaskRequest>('SubscribeToTask', { id: taskIdOf(body.name, 'name') }),
              ctx,
            );
      iterator = new FinalMarker(events);
      if (stopped) {
        await iterator.return?.();
        return;
      }
      const md = this.responseMetadata(ctx, extensionsHeader);
      if (md) call.sendMetadata(md);
      while (!stopped) {
        const next = await iterator.next();
        if (next.done || stopped) break;
        if (!call.write(streamEventToProto(next.value.event, next.value.final)) && !stopped) {
          // Backpressure: wait until grpc-js drained its buffer (or the client left).
          await new Promise<void>((resolve) => {
            wake = resolve;
            call.once('drain', resolve);
          });
          call.removeListener('drain', wake as () => void);
          wake = undefined;
        }
      }
      if (!stopped) call.end();
    } catch (error) {
      if (stopped) return;
      stopped = true;
      void iterator?.return?.()?.catch(() => undefined);
      call.emit('error', v03Status(protocolError(error, this.onError)));
    }
  }
}
