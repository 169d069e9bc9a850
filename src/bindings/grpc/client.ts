/**
 * The gRPC binding, client side: {@link Transport} over a grpc-js channel to
 * `lf.a2a.v1.A2AService`. Sends `a2a-version: 1.0` on every call, service parameters and
 * credentials as metadata (spec 10.2), and rebuilds typed A2AErrors from rich status details.
 */
import {
  Client,
  credentials as grpcCredentials,
  Metadata,
  status as GrpcStatus,
  type CallOptions as GrpcCallOptions,
  type ChannelCredentials,
  type ChannelOptions,
  type ClientReadableStream,
} from '@grpc/grpc-js';
import { InvalidParamsError } from '../../errors/a2a-error.js';
import type { A2AMethod } from '../../model/operations.js';
import { PROTOCOL_VERSION } from '../../model/operations.js';
import type * as model from '../../model/schema.js';
import type { CallOptions, Transport } from '../transport.js';
import { decodeStream } from '../stream-guard.js';
import { A2ATimeoutError, A2ATransportError } from '../../errors/client-errors.js';
import { GRPC_METHODS, type GrpcMethod } from './service.js';
import { decodeMessage, fillRequired } from './decode.js';
import { asBuffer, encodeFast } from './encode.js';
import { fromGrpcError, isServiceError } from './status.js';

/** Options of {@link GrpcTransport}. */
export interface GrpcTransportOptions {
  /**
   * Channel credentials. Defaults to plaintext for a bare `host:port` or `http://` target and
   * to TLS with the system roots for an `https://` / `grpcs://` target.
   */
  credentials?: ChannelCredentials;
  /**
   * Largest message sent or accepted, in bytes.
   * @default 4 MiB
   */
  maxMessageBytes?: number;
  /** HTTP/2 keepalive, so idle connections survive proxies and dead peers are noticed. */
  keepalive?: {
    /** Ping interval. @default 30000 */
    timeMs?: number;
    /** Give up on the connection when a ping is not answered in time. @default 10000 */
    timeoutMs?: number;
    /** Ping even when no call is running. @default true */
    permitWithoutCalls?: boolean;
  };
  /** Extension URIs requested on every call (`a2a-extensions`). */
  extensions?: readonly string[];
  /** Metadata sent on every call (e.g. `authorization`); keys are lowercased. */
  headers?: Readonly<Record<string, string>>;
  /**
   * A stream with no message for this long fails with {@link A2ATimeoutError} (the resilient
   * helpers then reconnect), as on the HTTP bindings. gRPC has no keep-alive messages: a task
   * that is silent this long counts as idle. @default 60000
   */
  streamIdleTimeoutMs?: number;
  /** Extra grpc-js channel options, applied last. */
  channelOptions?: ChannelOptions;
}

const identity = (bytes: Buffer): Buffer => bytes;

function parseTarget(target: string): { address: string; tls: boolean } {
  const m = /^([a-z][a-z0-9+.-]*):\/\/([^/]+)\/?$/i.exec(target.trim());
  if (!m) return { address: target.trim(), tls: false };
  const scheme = (m[1] as string).toLowerCase();
  return { address: m[2] as string, tls: scheme === 'https' || scheme === 'grpcs' };
}

function timeoutError(ms: number): Error {
  return new DOMException(`The gRPC call timed out after ${ms} ms`, 'TimeoutError');
}

/**
 * A connection failure reported by grpc-js, as {@link A2ATransportError} with the network code
 * found in its text (`connect ECONNREFUSED ...`), or the one its wording implies.
 */
function channelFailure(
  err: Error & { details?: string },
  method: string,
  address: string,
): A2ATransportError {
  const details = err.details ?? err.message;
  const code =
    /\b(E[A-Z]{3,}|UND_ERR_[A-Z_]+)\b/.exec(details)?.[1] ??
    (/^Name resolution failed/i.test(details)
      ? 'ENOTFOUND'
      : /connection dropped|connection closed|stream closed|goaway/i.test(details)
        ? 'ECONNRESET'
        : undefined);
  return new A2ATransportError(
    `gRPC ${method} to ${address} failed: ${code ? `${code} (${details})` : details}`,
    { cause: err, networkCode: code },
  );
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted', 'AbortError');
}

/**
 * A2A over gRPC. `target` is the card's GRPC interface url: `host:port` (or `http(s)://host:port`).
 *
 * @example
 * const transport = new GrpcTransport('127.0.0.1:50051');
 * const task = await transport.getTask({ id: 'task-1' }, { timeoutMs: 5000 });
 * await transport.close();
 */
export class GrpcTransport implements Transport {
  readonly binding = 'GRPC';
  private readonly client: Client;
  private readonly baseHeaders: [string, string][];
  private readonly address: string;
  private readonly idleMs: number;

  constructor(target: string, options: GrpcTransportOptions = {}) {
    const { address, tls } = parseTarget(target);
    this.address = address;
    this.idleMs = options.streamIdleTimeoutMs ?? 60_000;
    const max = options.maxMessageBytes ?? 4 * 1024 * 1024;
    const keepalive = options.keepalive ?? {};
    this.client = new Client(
      address,
      options.credentials ?? (tls ? grpcCredentials.createSsl() : grpcCredentials.createInsecure()),
      {
        'grpc.max_receive_message_length': max,
        'grpc.max_send_message_length': max,
        'grpc.keepalive_time_ms': keepalive.timeMs ?? 30_000,
        'grpc.keepalive_timeout_ms': keepalive.timeoutMs ?? 10_000,
        'grpc.keepalive_permit_without_calls': keepalive.permitWithoutCalls === false ? 0 : 1,
        // grpc-js waits up to 2 minutes between reconnections by default: after an outage the
        // channel would sleep through the caller's retries. Reconnect at the pace of ours.
        'grpc.initial_reconnect_backoff_ms': 500,
        'grpc.max_reconnect_backoff_ms': 5_000,
        ...options.channelOptions,
      },
    );
    this.baseHeaders = [['a2a-version', PROTOCOL_VERSION]];
    if (options.extensions && options.extensions.length > 0) {
      this.baseHeaders.push(['a2a-extensions', options.extensions.join(',')]);
    }
    for (const [k, v] of Object.entries(options.headers ?? {})) this.baseHeaders.push([k.toLowerCase(), v]);
  }

  sendMessage(request: model.SendMessageRequest, options?: CallOptions): Promise<model.SendMessageResponse> {
    return this.unary('SendMessage', request, options);
  }
  sendStreamingMessage(
    request: model.SendMessageRequest,
    options?: CallOptions,
  ): AsyncIterable<model.StreamResponse> {
    return decodeStream(
      this.stream('SendStreamingMessage', request, options),
      'SendStreamingMessage',
      request.message.taskId || undefined,
    );
  }
  getTask(request: model.GetTaskRequest, options?: CallOptions): Promise<model.Task> {
    return this.unary('GetTask', request, options);
  }
  async listTasks(request: model.ListTasksRequest, options?: CallOptions): Promise<model.ListTasksResponse> {
    const response = await this.unary<model.ListTasksResponse>('ListTasks', request, options);
    // Protobuf cannot tell an empty repeated field from an absent one; with includeArtifacts
    // the JSON bindings say `artifacts: []` (SRV-LIST-7), so say the same here.
    if (request.includeArtifacts) for (const task of response.tasks) task.artifacts ??= [];
    return response;
  }
  cancelTask(request: model.CancelTaskRequest, options?: CallOptions): Promise<model.Task> {
    return this.unary('CancelTask', request, options);
  }
  subscribeToTask(
    request: model.SubscribeToTaskRequest,
    options?: CallOptions,
  ): AsyncIterable<model.StreamResponse> {
    return decodeStream(this.stream('SubscribeToTask', request, options), 'SubscribeToTask', request.id);
  }
  createTaskPushNotificationConfig(
    request: model.TaskPushNotificationConfig,
    options?: CallOptions,
  ): Promise<model.TaskPushNotificationConfig> {
    return this.unary('CreateTaskPushNotificationConfig', request, options);
  }
  getTaskPushNotificationConfig(
    request: model.GetTaskPushNotificationConfigRequest,
    options?: CallOptions,
  ): Promise<model.TaskPushNotificationConfig> {
    return this.unary('GetTaskPushNotificationConfig', request, options);
  }
  listTaskPushNotificationConfigs(
    request: model.ListTaskPushNotificationConfigsRequest,
    options?: CallOptions,
  ): Promise<model.ListTaskPushNotificationConfigsResponse> {
    return this.unary('ListTaskPushNotificationConfigs', request, options);
  }
  deleteTaskPushNotificationConfig(
    request: model.DeleteTaskPushNotificationConfigRequest,
    options?: CallOptions,
  ): Promise<model.Empty> {
    return this.unary('DeleteTaskPushNotificationConfig', request, options);
  }
  getExtendedAgentCard(
    request: model.GetExtendedAgentCardRequest,
    options?: CallOptions,
  ): Promise<model.AgentCard> {
    return this.unary('GetExtendedAgentCard', request, options);
  }

  /** Closes the channel; calls still running are cancelled. */
  close(): Promise<void> {
    this.client.close();
    return Promise.resolve();
  }

  private metadata(options: CallOptions | undefined): Metadata {
    const md = new Metadata();
    for (const [k, v] of this.baseHeaders) md.set(k, v);
    if (options?.headers) {
      for (const [k, v] of Object.entries(options.headers)) {
        const key = k.toLowerCase();
        // Extensions accumulate, as on the HTTP bindings; any other parameter is replaced.
        const base = key === 'a2a-extensions' ? md.get(key)[0] : undefined;
        md.set(key, base ? `${String(base)}, ${v}` : v);
      }
    }
    return md;
  }

  private callOptions(options: CallOptions | undefined): GrpcCallOptions {
    return options?.timeoutMs !== undefined ? { deadline: Date.now() + options.timeoutMs } : {};
  }

  /** Encodes the request up front so a malformed one fails here, typed, instead of as INTERNAL. */
  private encode(m: GrpcMethod, request: unknown): Buffer {
    try {
      return asBuffer(encodeFast(m.input, request));
    } catch (err) {
      throw new InvalidParamsError(
        `Request does not fit ${m.input.typeName}: ${err instanceof Error ? err.message : String(err)}`,
        { cause: err },
      );
    }
  }

  private decoder(m: GrpcMethod): (bytes: Buffer) => unknown {
    return (bytes) => fillRequired(m.output, decodeMessage(m.output, bytes));
  }

  private failure(err: unknown, options: CallOptions | undefined, method: A2AMethod): unknown {
    if (options?.signal?.aborted) return abortReason(options.signal);
    if (!isServiceError(err)) return err;
    if (err.code === GrpcStatus.DEADLINE_EXCEEDED && options?.timeoutMs !== undefined) {
      return timeoutError(options.timeoutMs);
    }
    // UNAVAILABLE without A2A error details is grpc-js's own report about the connection
    // (refused, unknown host, dropped): a transport failure, as on the HTTP bindings. A server
    // that answers UNAVAILABLE with details sent a protocol error, decoded below.
    if (err.code === GrpcStatus.UNAVAILABLE && err.metadata.get('grpc-status-details-bin').length === 0) {
      return channelFailure(err, method, this.address);
    }
    return fromGrpcError(err);
  }

  private unary<T>(method: A2AMethod, request: unknown, options: CallOptions | undefined): Promise<T> {
    const m = GRPC_METHODS[method];
    const signal = options?.signal;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    let bytes: Buffer;
    try {
      bytes = this.encode(m, request);
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise<T>((resolve, reject) => {
      const call = this.client.makeUnaryRequest(
        m.path,
        identity,
        this.decoder(m),
        bytes,
        this.metadata(options),
        this.callOptions(options),
        (err, value) => {
          signal?.removeEventListener('abort', onAbort);
          if (err) reject(this.failure(err, options, method));
          else resolve(value as T);
        },
      );
      const onAbort = (): void => call.cancel();
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private async *stream(
    method: A2AMethod,
    request: unknown,
    options: CallOptions | undefined,
  ): AsyncGenerator<unknown, void, undefined> {
    const m = GRPC_METHODS[method];
    const signal = options?.signal;
    if (signal?.aborted) throw abortReason(signal);
    const bytes = this.encode(m, request);
    const call: ClientReadableStream<unknown> = this.client.makeServerStreamRequest(
      m.path,
      identity,
      this.decoder(m),
      bytes,
      this.metadata(options),
      this.callOptions(options),
    );
    const onAbort = (): void => call.cancel();
    signal?.addEventListener('abort', onAbort, { once: true });
    // Idle time is time spent waiting for the server, not time the consumer spends on an event.
    let idle = false;
    let timer: NodeJS.Timeout | undefined;
    const arm = (): void => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        idle = true;
        call.cancel();
      }, this.idleMs);
    };
    try {
      arm();
      for await (const event of call) {
        clearTimeout(timer);
        yield event;
        arm();
      }
    } catch (err) {
      if (idle && !signal?.aborted) {
        throw new A2ATimeoutError(`stream idle for more than ${this.idleMs} ms`, this.idleMs);
      }
      throw this.failure(err, options, method);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      // A consumer that stops early ends the call; the task on the server keeps running.
      call.on('error', () => undefined);
      call.cancel();
    }
  }
}
