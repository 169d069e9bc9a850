/**
 * The client side of v0.3 JSON-RPC: the slash methods, v0.3 shapes on the wire, v1.0 model
 * types for the caller. Used when the card offers an agent only at A2A 0.3. Sends
 * `A2A-Version: 0.3` and requested extensions as `X-A2A-Extensions`.
 */
import type { TSchema, Static } from '@sinclair/typebox';
import { UnsupportedOperationError, createError } from '../../errors/index.js';
import {
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
  type ListTaskPushNotificationConfigsResponse,
  type ListTasksRequest,
  type ListTasksResponse,
  type SendMessageRequest,
  type SubscribeToTaskRequest,
} from '../../model/schema.js';
import { parseAgentCard } from '../card-parse.js';
import { A2AInvalidResponseError, A2ATransportError } from '../../errors/client-errors.js';
import { expectShape, fromJsonRpcError, parseJson } from '../http/decode.js';
import {
  isEventStream,
  notAnEventStream,
  readText,
  sendHttp,
  type HttpTransportOptions,
} from '../http/client-http.js';
import { guardTask, hasKnownMember } from '../stream-guard.js';
import type { CallOptions, Transport } from '../transport.js';
import { readSseData } from '../http/sse-parse.js';
import { sendResultFromV03, streamEventFromV03, taskFromV03 } from './content.js';
import { pushConfigToV03, sendParamsToV03, taskPushConfigFromV03, type V03Method } from './requests.js';
import { V03_VERSION } from './service.js';

let nextId = 1;

/** v0.3 service parameters as per-call headers: the version, and extensions under their v0.3 name. */
export function v03CallOptions(
  transport: HttpTransportOptions,
  options: CallOptions | undefined,
): CallOptions {
  const headers: Record<string, string> = { 'a2a-version': V03_VERSION };
  if (transport.extensions?.length) headers['x-a2a-extensions'] = transport.extensions.join(', ');
  return { ...options, headers: { ...headers, ...options?.headers } };
}

/** The transport options without `extensions` (sent as `X-A2A-Extensions` instead). */
export function withoutExtensions(options: HttpTransportOptions): HttpTransportOptions {
  const { extensions: _e, ...rest } = options;
  return rest;
}

/** Talks to an A2A v0.3 agent over JSON-RPC at `url`. */
export class V03JsonRpcTransport implements Transport {
  readonly binding = 'JSONRPC';
  private readonly http: HttpTransportOptions;

  constructor(
    readonly url: string,
    private readonly options: HttpTransportOptions = {},
  ) {
    this.http = withoutExtensions(options);
  }

  private unwrap(text: string, status: number, id: number, what: string): unknown {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    const env = body as { jsonrpc?: unknown; id?: unknown; result?: unknown; error?: unknown } | undefined;
    if (typeof env !== 'object' || env === null || env.jsonrpc !== '2.0') {
      if (status === 401 || status === 403) {
        throw createError(status === 401 ? 'Unauthenticated' : 'PermissionDenied', undefined, {
          receivedStatus: status,
        });
      }
      if (status >= 400) throw new A2ATransportError(`HTTP ${status} without a JSON-RPC body`, { status });
      if (body === undefined) parseJson(text, what);
      throw new A2AInvalidResponseError('not-a2a', `the server's ${what} is not a JSON-RPC 2.0 response`);
    }
    if (env.error !== undefined) {
      if (env.id !== id && env.id !== null) throw wrongId(env.id, id);
      throw fromJsonRpcError(env.error, status);
    }
    if (env.id !== id) throw wrongId(env.id, id);
    if (!('result' in env)) {
      throw new A2AInvalidResponseError('not-a2a', `the server's ${what} has neither result nor error`);
    }
    return env.result;
  }

  private body(method: V03Method, params: unknown): { id: number; body: string } {
    const id = nextId++;
    return { id, body: JSON.stringify({ jsonrpc: '2.0', id, method, params }) };
  }

  private async call(method: V03Method, params: unknown, options: CallOptions | undefined): Promise<unknown> {
    const { id, body } = this.body(method, params);
    const { response, done } = await sendHttp(
      this.http,
      { method: 'POST', url: this.url, body, contentType: 'application/json', accept: 'application/json' },
      v03CallOptions(this.options, options),
    );
    const text = await readText(response, this.url, done, options?.signal);
    return this.unwrap(text, response.status, id, `${method} response`);
  }

  private async typed<S extends TSchema>(
    method: V03Method,
    params: unknown,
    schema: S,
    translate: (v: unknown) => unknown,
    options: CallOptions | undefined,
  ): Promise<Static<S>> {
    return expectShape(schema, translate(await this.call(method, params, options)), `${method} result`);
  }

  private async *stream(
    method: V03Method,
    params: unknown,
    options: CallOptions | undefined,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const { id, body } = this.body(method, params);
    const { response, done } = await sendHttp(
      this.http,
      {
        method: 'POST',
        url: this.url,
        body,
        contentType: 'application/json',
        accept: 'text/event-stream, application/json',
      },
      v03CallOptions(this.options, options),
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
      const event = streamEventFromV03(this.unwrap(data, 200, id, `${method} stream event`));
      if (!hasKnownMember(event)) continue;
      yield expectShape(StreamResponse, event, `${method} stream event`);
    }
  }

  sendMessage(request: SendMessageRequest, options?: CallOptions): Promise<SendMessageResponse> {
    return this.typed(
      'message/send',
      sendParamsToV03(request),
      SendMessageResponse,
      sendResultFromV03,
      options,
    );
  }
  sendStreamingMessage(request: SendMessageRequest, options?: CallOptions): AsyncIterable<StreamResponse> {
    return guardTask(
      this.stream('message/stream', sendParamsToV03(request), options),
      request.message.taskId || undefined,
    );
  }
  getTask(request: GetTaskRequest, options?: CallOptions): Promise<Task> {
    const params = {
      id: request.id,
      ...(request.historyLength !== undefined ? { historyLength: request.historyLength } : {}),
    };
    return this.typed('tasks/get', params, Task, (v) => taskFromV03(v, 'result'), options);
  }
  listTasks(_request: ListTasksRequest, _options?: CallOptions): Promise<ListTasksResponse> {
    return Promise.reject(new UnsupportedOperationError('ListTasks does not exist in A2A v0.3 JSON-RPC'));
  }
  cancelTask(request: CancelTaskRequest, options?: CallOptions): Promise<Task> {
    const params = {
      id: request.id,
      ...(request.metadata !== undefined ? { metadata: request.metadata } : {}),
    };
    return this.typed('tasks/cancel', params, Task, (v) => taskFromV03(v, 'result'), options);
  }
  subscribeToTask(request: SubscribeToTaskRequest, options?: CallOptions): AsyncIterable<StreamResponse> {
    return guardTask(this.stream('tasks/resubscribe', { id: request.id }, options), request.id);
  }
  createTaskPushNotificationConfig(
    request: TaskPushNotificationConfig,
    options?: CallOptions,
  ): Promise<TaskPushNotificationConfig> {
    return this.typed(
      'tasks/pushNotificationConfig/set',
      pushConfigToV03(request),
      TaskPushNotificationConfig,
      taskPushConfigFromV03,
      options,
    );
  }
  getTaskPushNotificationConfig(
    request: GetTaskPushNotificationConfigRequest,
    options?: CallOptions,
  ): Promise<TaskPushNotificationConfig> {
    return this.typed(
      'tasks/pushNotificationConfig/get',
      { id: request.taskId, pushNotificationConfigId: request.id },
      TaskPushNotificationConfig,
      taskPushConfigFromV03,
      options,
    );
  }
  async listTaskPushNotificationConfigs(
    request: ListTaskPushNotificationConfigsRequest,
    options?: CallOptions,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    const result = await this.call('tasks/pushNotificationConfig/list', { id: request.taskId }, options);
    if (!Array.isArray(result)) {
      throw new A2AInvalidResponseError(
        'not-a2a',
        'the tasks/pushNotificationConfig/list result is not an array',
      );
    }
    const configs = result.map((c) =>
      expectShape(
        TaskPushNotificationConfig,
        taskPushConfigFromV03(c),
        'tasks/pushNotificationConfig/list result',
      ),
    );
    return { configs, nextPageToken: '' };
  }
  async deleteTaskPushNotificationConfig(
    request: DeleteTaskPushNotificationConfigRequest,
    options?: CallOptions,
  ): Promise<Empty> {
    await this.call(
      'tasks/pushNotificationConfig/delete',
      { id: request.taskId, pushNotificationConfigId: request.id },
      options,
    );
    return {};
  }
  async getExtendedAgentCard(
    _request: GetExtendedAgentCardRequest,
    options?: CallOptions,
  ): Promise<AgentCard> {
    return parseAgentCard(
      await this.call('agent/getAuthenticatedExtendedCard', undefined, options),
      this.url,
    );
  }
  async close(): Promise<void> {}
}

function wrongId(got: unknown, expected: number): A2AInvalidResponseError {
  return new A2AInvalidResponseError(
    'wrong-id',
    `the JSON-RPC response has id ${JSON.stringify(got)} but the request had id ${expected}`,
  );
}
