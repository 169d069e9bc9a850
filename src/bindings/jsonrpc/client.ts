/**
 * The JSON-RPC 2.0 binding's client (spec §9): one POST per call to the interface URL,
 * `application/json`, streams as SSE whose events are JSON-RPC responses with our id.
 */
import type { TSchema, Static } from '@sinclair/typebox';
import {
  AgentCard,
  ListTaskPushNotificationConfigsResponse,
  ListTasksResponse,
  SendMessageResponse,
  type StreamResponse,
  Task,
  TaskPushNotificationConfig,
  type CancelTaskRequest,
  type DeleteTaskPushNotificationConfigRequest,
  type Empty,
  type GetExtendedAgentCardRequest,
  type GetTaskPushNotificationConfigRequest,
  type GetTaskRequest,
  type ListTaskPushNotificationConfigsRequest,
  type ListTasksRequest,
  type SendMessageRequest,
  type SubscribeToTaskRequest,
} from '../../model/schema.js';
import type { A2AMethod } from '../../model/operations.js';
import { createError } from '../../errors/index.js';
import type { CallOptions, Transport } from '../transport.js';
import { A2AInvalidResponseError, A2ATransportError } from '../../errors/client-errors.js';
import { expectShape, fromJsonRpcError, parseJson } from '../http/decode.js';
import {
  isEventStream,
  notAnEventStream,
  readText,
  sendHttp,
  type HttpTransportOptions,
} from '../http/client-http.js';
import { decodeStream } from '../stream-guard.js';
import { readSseData } from '../http/sse-parse.js';

/** Options of {@link JsonRpcTransport}. */
export type JsonRpcTransportOptions = HttpTransportOptions;

let nextId = 1;

/** Talks to an A2A agent over JSON-RPC 2.0 at `url` (the interface URL from the card). */
export class JsonRpcTransport implements Transport {
  readonly binding = 'JSONRPC';
  constructor(
    readonly url: string,
    private readonly options: JsonRpcTransportOptions = {},
  ) {}

  private envelope(method: A2AMethod, params: unknown): { id: number; body: string } {
    const id = nextId++;
    return { id, body: JSON.stringify({ jsonrpc: '2.0', id, method, params: stripEmpty(params) }) };
  }

  /** Reads a JSON-RPC response envelope, throwing the typed error it carries or names. */
  private unwrap(text: string, status: number, id: number, what: string): unknown {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (typeof body !== 'object' || body === null || (body as { jsonrpc?: unknown }).jsonrpc !== '2.0') {
      throwForStatus(status, text);
      if (body === undefined) parseJson(text, what);
      throw new A2AInvalidResponseError('not-a2a', `the server's ${what} is not a JSON-RPC 2.0 response`);
    }
    const env = body as { id?: unknown; result?: unknown; error?: unknown };
    if (env.error !== undefined) {
      // Errors the server raised before reading our id may carry id null.
      if (env.id !== id && env.id !== null) throw wrongId(env.id, id);
      throw fromJsonRpcError(env.error, status);
    }
    if (env.id !== id) throw wrongId(env.id, id);
    if (!('result' in env)) {
      throw new A2AInvalidResponseError('not-a2a', `the server's ${what} has neither result nor error`);
    }
    return env.result;
  }

  private async call<S extends TSchema>(
    method: A2AMethod,
    params: unknown,
    schema: S | undefined,
    options: CallOptions | undefined,
  ): Promise<Static<S>> {
    const { id, body } = this.envelope(method, params);
    const { response, done } = await sendHttp(
      this.options,
      { method: 'POST', url: this.url, body, contentType: 'application/json', accept: 'application/json' },
      options,
    );
    const text = await readText(response, this.url, done, options?.signal);
    const result = this.unwrap(text, response.status, id, `${method} response`);
    if (!schema) return (result ?? {}) as Static<S>;
    return expectShape(schema, result, `${method} result`);
  }

  private async *stream(
    method: A2AMethod,
    params: unknown,
    options: CallOptions | undefined,
  ): AsyncGenerator<unknown, void, undefined> {
    const { id, body } = this.envelope(method, params);
    const { response, done } = await sendHttp(
      this.options,
      {
        method: 'POST',
        url: this.url,
        body,
        contentType: 'application/json',
        accept: 'text/event-stream, application/json',
      },
      options,
      true,
    );
    if (!isEventStream(response.headers.get('content-type')) || !response.body) {
      const text = await readText(response, this.url, done, options?.signal);
      this.unwrap(text, response.status, id, `${method} response`);
      throw notAnEventStream(method, response);
    }
    for await (const data of readSseData(response.body, {
      idleTimeoutMs: this.options.streamIdleTimeoutMs,
      signal: options?.signal,
    })) {
      yield this.unwrap(data, 200, id, `${method} stream event`);
    }
  }

  sendMessage(request: SendMessageRequest, options?: CallOptions): Promise<SendMessageResponse> {
    return this.call('SendMessage', request, SendMessageResponse, options);
  }
  sendStreamingMessage(request: SendMessageRequest, options?: CallOptions): AsyncIterable<StreamResponse> {
    return decodeStream(
      this.stream('SendStreamingMessage', request, options),
      'SendStreamingMessage',
      request.message.taskId || undefined,
    );
  }
  getTask(request: GetTaskRequest, options?: CallOptions): Promise<Task> {
    return this.call('GetTask', request, Task, options);
  }
  listTasks(request: ListTasksRequest, options?: CallOptions): Promise<ListTasksResponse> {
    return this.call('ListTasks', request, undefined, options).then((r) =>
      expectShape(ListTasksResponse, listDefaults(r), 'ListTasks result'),
    );
  }
  cancelTask(request: CancelTaskRequest, options?: CallOptions): Promise<Task> {
    return this.call('CancelTask', request, Task, options);
  }
  subscribeToTask(request: SubscribeToTaskRequest, options?: CallOptions): AsyncIterable<StreamResponse> {
    return decodeStream(this.stream('SubscribeToTask', request, options), 'SubscribeToTask', request.id);
  }
  createTaskPushNotificationConfig(
    request: TaskPushNotificationConfig,
    options?: CallOptions,
  ): Promise<TaskPushNotificationConfig> {
    return this.call('CreateTaskPushNotificationConfig', request, TaskPushNotificationConfig, options);
  }
  getTaskPushNotificationConfig(
    request: GetTaskPushNotificationConfigRequest,
    options?: CallOptions,
  ): Promise<TaskPushNotificationConfig> {
    return this.call('GetTaskPushNotificationConfig', request, TaskPushNotificationConfig, options);
  }
  listTaskPushNotificationConfigs(
    request: ListTaskPushNotificationConfigsRequest,
    options?: CallOptions,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    return this.call(
      'ListTaskPushNotificationConfigs',
      request,
      ListTaskPushNotificationConfigsResponse,
      options,
    );
  }
  async deleteTaskPushNotificationConfig(
    request: DeleteTaskPushNotificationConfigRequest,
    options?: CallOptions,
  ): Promise<Empty> {
    await this.call('DeleteTaskPushNotificationConfig', request, undefined, options);
    return {};
  }
  getExtendedAgentCard(request: GetExtendedAgentCardRequest, options?: CallOptions): Promise<AgentCard> {
    return this.call('GetExtendedAgentCard', request, AgentCard, options);
  }
  async close(): Promise<void> {}
}

/** ProtoJSON may drop default values (N5); fill the ones ListTasksResponse requires. */
export function listDefaults(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  return { tasks: [], nextPageToken: '', pageSize: 0, totalSize: 0, ...value };
}

/** Drops `tenant: ""` and undefined members so requests stay minimal (CLI-CARD-3). */
export function stripEmpty(params: unknown): unknown {
  if (typeof params !== 'object' || params === null) return params;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || (k === 'tenant' && v === '')) continue;
    out[k] = v;
  }
  return out;
}

function wrongId(got: unknown, expected: number): A2AInvalidResponseError {
  return new A2AInvalidResponseError(
    'wrong-id',
    `the JSON-RPC response has id ${JSON.stringify(got)} but the request had id ${expected}`,
  );
}

/** For a body that is not JSON-RPC: an HTTP-level failure becomes its typed error. */
function throwForStatus(status: number, text: string): void {
  if (status === 401)
    throw createError('Unauthenticated', text.slice(0, 200) || undefined, { receivedStatus: status });
  if (status === 403)
    throw createError('PermissionDenied', text.slice(0, 200) || undefined, { receivedStatus: status });
  if (status === 429 || status === 502 || status === 503 || status === 504) {
    throw createError('Unavailable', `HTTP ${status}`, { receivedStatus: status });
  }
  if (status >= 400) {
    throw new A2ATransportError(`HTTP ${status} without a JSON-RPC body: ${text.slice(0, 120)}`, { status });
  }
}
