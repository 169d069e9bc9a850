/**
 * The client side of v0.3 gRPC (`a2a.v1.A2AService`): requests as v0.3 proto messages (resource
 * names `tasks/{id}`), answers read back into the v1.0 model. Errors are classified by status
 * code and method, as v0.3 servers send no error details.
 */
import { fromBinary, fromJson, toBinary, toJson, type DescMessage, type JsonValue } from '@bufbuild/protobuf';
import { Client, Metadata, credentials, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { createError, type A2AError } from '../../errors/index.js';
import type { A2AErrorCode } from '../../errors/table.js';
import {
  ListTaskPushNotificationConfigsResponse,
  SendMessageResponse,
  StreamResponse,
  Task,
  TaskPushNotificationConfig,
  type AgentCard,
  type CancelTaskRequest,
  type DeleteTaskPushNotificationConfigRequest,
  type Empty,
  type GetExtendedAgentCardRequest,
  type GetTaskPushNotificationConfigRequest,
  type GetTaskRequest,
  type ListTaskPushNotificationConfigsRequest,
  type ListTasksRequest,
  type ListTasksResponse,
  type SendMessageRequest,
  type SubscribeToTaskRequest,
} from '../../model/schema.js';
import { parseAgentCard } from '../card-parse.js';
import { expectShape } from '../http/decode.js';
import { A2ATimeoutError, A2ATransportError } from '../../errors/client-errors.js';
import { guardTask, hasKnownMember } from '../stream-guard.js';
import type { CallOptions, Transport } from '../transport.js';
import { isJson, type Json } from './content.js';
import { A2AService } from './gen/a2a/v1/a2a_pb.js';
import { sendBody } from './rest-client.js';
import {
  pushConfigFromProto,
  pushConfigName,
  pushConfigToProto,
  sendResponseFromProto,
  streamEventFromProto,
  taskFromProto,
} from './proto-json.js';
import { V03_VERSION } from './service.js';

/** Options of {@link V03GrpcTransport}. */
export interface V03GrpcTransportOptions {
  /** Metadata sent with every call (credentials...). */
  headers?: Record<string, string>;
  /** Extension URIs, sent as `x-a2a-extensions`. */
  extensions?: readonly string[];
  /** Per-call deadline of unary calls, ms. @default 60000 */
  timeoutMs?: number;
}

const METHODS = new Map(A2AService.methods.map((m) => [m.name, m]));

function method(name: string): { path: string; input: DescMessage; output: DescMessage } {
  const m = METHODS.get(name);
  if (!m) throw new Error(`a2a.v1.A2AService has no ${name}`);
  return { path: `/${A2AService.typeName}/${name}`, input: m.input, output: m.output };
}

const PUSH_METHODS = new Set([
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfig',
  'DeleteTaskPushNotificationConfig',
]);

/** The typed error for a v0.3 gRPC status (the v0.3 SDKs' table, by method where it is ambiguous). */
export function fromV03GrpcError(error: Partial<ServiceError>, rpc: string): A2AError | Error {
  const code = error.code;
  const message = error.details || undefined;
  let a2a: A2AErrorCode | undefined;
  switch (code) {
    case GrpcStatus.NOT_FOUND:
      a2a = 'TaskNotFound';
      break;
    case GrpcStatus.FAILED_PRECONDITION:
      a2a =
        rpc === 'CancelTask'
          ? 'TaskNotCancelable'
          : rpc === 'GetAgentCard'
            ? 'ExtendedAgentCardNotConfigured'
            : 'UnsupportedOperation';
      break;
    case GrpcStatus.UNIMPLEMENTED:
      a2a = PUSH_METHODS.has(rpc) ? 'PushNotificationNotSupported' : 'UnsupportedOperation';
      break;
    case GrpcStatus.INVALID_ARGUMENT:
      a2a = 'InvalidParams';
      break;
    case GrpcStatus.UNAUTHENTICATED:
      a2a = 'Unauthenticated';
      break;
    case GrpcStatus.PERMISSION_DENIED:
      a2a = 'PermissionDenied';
      break;
    case GrpcStatus.INTERNAL:
      a2a = 'InternalError';
      break;
    case GrpcStatus.DEADLINE_EXCEEDED:
      return new A2ATimeoutError(`no gRPC response to ${rpc} in time`, 0);
    case GrpcStatus.UNAVAILABLE:
      return new A2ATransportError(`gRPC ${rpc} failed: ${message ?? 'unavailable'}`, { cause: error });
    default:
      a2a = 'InternalError';
  }
  return createError(a2a, message, { raw: error });
}

/** Talks to an A2A v0.3 agent over gRPC at `target` (`host:port`). */
export class V03GrpcTransport implements Transport {
  readonly binding = 'GRPC';
  private readonly client: Client;

  constructor(
    target: string,
    private readonly options: V03GrpcTransportOptions = {},
  ) {
    this.client = new Client(target, credentials.createInsecure());
  }

  private metadata(options: CallOptions | undefined): Metadata {
    const md = new Metadata();
    md.set('a2a-version', V03_VERSION);
    for (const [k, v] of Object.entries({ ...this.options.headers, ...options?.headers }))
      md.set(k.toLowerCase(), v);
    if (this.options.extensions?.length) md.set('x-a2a-extensions', this.options.extensions.join(', '));
    return md;
  }

  private unary(rpc: string, request: Json, options: CallOptions | undefined): Promise<unknown> {
    const m = method(rpc);
    const timeoutMs = options?.timeoutMs ?? this.options.timeoutMs ?? 60_000;
    return new Promise((resolve, reject) => {
      const call = this.client.makeUnaryRequest(
        m.path,
        (value: Json) =>
          Buffer.from(
            toBinary(m.input, fromJson(m.input, value as JsonValue, { ignoreUnknownFields: true })),
          ),
        (bytes: Buffer) => toJson(m.output, fromBinary(m.output, bytes)),
        request,
        this.metadata(options),
        { deadline: Date.now() + timeoutMs },
        (error, value) => {
          options?.signal?.removeEventListener('abort', cancel);
          if (error) reject(fromV03GrpcError(error, rpc));
          else resolve(value);
        },
      );
      const cancel = (): void => call.cancel();
      options?.signal?.addEventListener('abort', cancel, { once: true });
    });
  }

  private async *stream(
    rpc: string,
    request: Json,
    options: CallOptions | undefined,
  ): AsyncGenerator<StreamResponse> {
    const m = method(rpc);
    const call = this.client.makeServerStreamRequest(
      m.path,
      (value: Json) =>
        Buffer.from(toBinary(m.input, fromJson(m.input, value as JsonValue, { ignoreUnknownFields: true }))),
      (bytes: Buffer) => toJson(m.output, fromBinary(m.output, bytes)),
      request,
      this.metadata(options),
    );
    const cancel = (): void => call.cancel();
    options?.signal?.addEventListener('abort', cancel, { once: true });
    try {
      for await (const value of call as AsyncIterable<unknown>) {
        const event = streamEventFromProto(value);
        if (!hasKnownMember(event)) continue;
        yield expectShape(StreamResponse, event, `${rpc} stream event`);
      }
    } catch (error) {
      if (options?.signal?.aborted) throw options.signal.reason;
      throw isJson(error) || error instanceof Error
        ? fromV03GrpcError(error as Partial<ServiceError>, rpc)
        : error;
    } finally {
      options?.signal?.removeEventListener('abort', cancel);
      call.cancel();
    }
  }

  async sendMessage(request: SendMessageRequest, options?: CallOptions): Promise<SendMessageResponse> {
    const value = await this.unary('SendMessage', sendBody(request), options);
    return expectShape(SendMessageResponse, sendResponseFromProto(value), 'SendMessage response');
  }
  sendStreamingMessage(request: SendMessageRequest, options?: CallOptions): AsyncIterable<StreamResponse> {
    return guardTask(
      this.stream('SendStreamingMessage', sendBody(request), options),
      request.message.taskId || undefined,
    );
  }
  async getTask(request: GetTaskRequest, options?: CallOptions): Promise<Task> {
    const body: Json = { name: `tasks/${request.id}` };
    if (request.historyLength !== undefined) body.historyLength = request.historyLength;
    return expectShape(Task, taskFromProto(await this.unary('GetTask', body, options)), 'GetTask response');
  }
  listTasks(_request: ListTasksRequest, _options?: CallOptions): Promise<ListTasksResponse> {
    return Promise.reject(createError('UnsupportedOperation', 'ListTasks does not exist in A2A v0.3 gRPC'));
  }
  async cancelTask(request: CancelTaskRequest, options?: CallOptions): Promise<Task> {
    const value = await this.unary('CancelTask', { name: `tasks/${request.id}` }, options);
    return expectShape(Task, taskFromProto(value), 'CancelTask response');
  }
  subscribeToTask(request: SubscribeToTaskRequest, options?: CallOptions): AsyncIterable<StreamResponse> {
    return guardTask(this.stream('TaskSubscription', { name: `tasks/${request.id}` }, options), request.id);
  }
  async createTaskPushNotificationConfig(
    request: TaskPushNotificationConfig,
    options?: CallOptions,
  ): Promise<TaskPushNotificationConfig> {
    const taskId = request.taskId ?? '';
    const body: Json = {
      parent: `tasks/${taskId}`,
      ...(request.id ? { configId: request.id } : {}),
      config: pushConfigToProto({ ...request, taskId }),
    };
    const value = await this.unary('CreateTaskPushNotificationConfig', body, options);
    return expectShape(
      TaskPushNotificationConfig,
      pushConfigFromProto(value),
      'CreateTaskPushNotificationConfig response',
    );
  }
  async getTaskPushNotificationConfig(
    request: GetTaskPushNotificationConfigRequest,
    options?: CallOptions,
  ): Promise<TaskPushNotificationConfig> {
    const value = await this.unary(
      'GetTaskPushNotificationConfig',
      { name: pushConfigName(request.taskId, request.id) },
      options,
    );
    return expectShape(
      TaskPushNotificationConfig,
      pushConfigFromProto(value),
      'GetTaskPushNotificationConfig response',
    );
  }
  async listTaskPushNotificationConfigs(
    request: ListTaskPushNotificationConfigsRequest,
    options?: CallOptions,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    const value = await this.unary(
      'ListTaskPushNotificationConfig',
      { parent: `tasks/${request.taskId}` },
      options,
    );
    const list = isJson(value) && Array.isArray(value.configs) ? value.configs : [];
    const next = isJson(value) && typeof value.nextPageToken === 'string' ? value.nextPageToken : '';
    return expectShape(
      ListTaskPushNotificationConfigsResponse,
      { configs: list.map(pushConfigFromProto), nextPageToken: next },
      'ListTaskPushNotificationConfig response',
    );
  }
  async deleteTaskPushNotificationConfig(
    request: DeleteTaskPushNotificationConfigRequest,
    options?: CallOptions,
  ): Promise<Empty> {
    await this.unary(
      'DeleteTaskPushNotificationConfig',
      { name: pushConfigName(request.taskId, request.id) },
      options,
    );
    return {};
  }
  async getExtendedAgentCard(
    _request: GetExtendedAgentCardRequest,
    options?: CallOptions,
  ): Promise<AgentCard> {
    return parseAgentCard(await this.unary('GetAgentCard', {}, options), 'GetAgentCard');
  }
  async close(): Promise<void> {
    this.client.close();
  }
}
