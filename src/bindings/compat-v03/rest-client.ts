/**
 * The client side of v0.3 REST: `/v1/...` paths below the interface URL, v0.3 ProtoJSON on the
 * wire, `application/json`, bare `{code, message}` errors; v1.0 model types for the caller.
 */
import type { TSchema, Static } from '@sinclair/typebox';
import {
  ListTasksResponse,
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
  type SendMessageRequest,
  type SubscribeToTaskRequest,
} from '../../model/schema.js';
import { A2ATransportError } from '../../errors/client-errors.js';
import { parseAgentCard } from '../card-parse.js';
import { expectShape, fromRestError, parseJson } from '../http/decode.js';
import {
  isEventStream,
  notAnEventStream,
  readText,
  sendHttp,
  type HttpCall,
  type HttpTransportOptions,
} from '../http/client-http.js';
import { guardTask, hasKnownMember } from '../stream-guard.js';
import type { CallOptions, Transport } from '../transport.js';
import { listDefaults } from '../jsonrpc/client.js';
import { readSseData } from '../http/sse-parse.js';
import { isJson, type Json } from './content.js';
import { fromV03Error } from './errors.js';
import { v03CallOptions, withoutExtensions } from './jsonrpc-client.js';
import {
  messageToProto,
  pushConfigFromProto,
  pushConfigName,
  pushConfigToProto,
  sendResponseFromProto,
  streamEventFromProto,
  taskFromProto,
} from './proto-json.js';

const JSON_TYPE = 'application/json';
const enc = encodeURIComponent;

/**
 * A failed v0.3 REST response as its typed error: the bare `{code, message}`, else by HTTP
 * status. A 404 without an A2A error body (an HTML "Cannot GET" page, a proxy's page) is no
 * proof that a task is missing: it is a transport error saying what came back (issue 29), as
 * on the v1.0 REST client.
 */
function restError(response: Response, text: string): Error {
  if (response.status === 404 && !isV03ErrorBody(text)) {
    const type = response.headers.get('content-type') ?? 'no content type';
    const excerpt = text.replace(/\s+/g, ' ').trim().slice(0, 200);
    return new A2ATransportError(
      `HTTP 404 (${type}) without an A2A error at ${response.url || 'the agent'}: ${excerpt ? JSON.stringify(excerpt) : 'empty body'}`,
      { status: 404 },
    );
  }
  return fromRestError(response.status, text).error;
}

/** True for an A2A error body: `{code, message}` with a numeric code, bare or under `error`. */
function isV03ErrorBody(text: string): boolean {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return false;
  }
  if (typeof body !== 'object' || body === null) return false;
  const inner = (body as { error?: unknown }).error;
  const env = typeof inner === 'object' && inner !== null ? inner : body;
  return typeof (env as { code?: unknown }).code === 'number';
}

/** A v1.0 SendMessageRequest as the v0.3 proto one (`blocking` always explicit). */
export function sendBody(request: SendMessageRequest): Json {
  const c = request.configuration ?? {};
  const push = c.taskPushNotificationConfig;
  return {
    message: messageToProto(request.message),
    configuration: {
      ...(c.acceptedOutputModes ? { acceptedOutputModes: c.acceptedOutputModes } : {}),
      ...(c.historyLength !== undefined ? { historyLength: c.historyLength } : {}),
      ...(push
        ? { pushNotification: pushConfigToProto({ ...push, taskId: '' }).pushNotificationConfig }
        : {}),
      blocking: c.returnImmediately !== true,
    },
    ...(request.metadata !== undefined ? { metadata: request.metadata } : {}),
  };
}

/** Talks to an A2A v0.3 agent over REST rooted at `url`. */
export class V03RestTransport implements Transport {
  readonly binding = 'HTTP+JSON';
  private readonly base: string;
  private readonly http: HttpTransportOptions;

  constructor(
    url: string,
    private readonly options: HttpTransportOptions = {},
  ) {
    this.base = url.replace(/\/+$/, '');
    this.http = withoutExtensions(options);
  }

  private async call(
    what: string,
    call: Omit<HttpCall, 'accept'>,
    options: CallOptions | undefined,
  ): Promise<unknown> {
    const { response, done } = await sendHttp(
      this.http,
      { ...call, accept: JSON_TYPE },
      v03CallOptions(this.options, options),
    );
    const text = await readText(response, call.url, done, options?.signal);
    if (response.status < 200 || response.status > 299) throw restError(response, text);
    return text.trim() === '' ? {} : parseJson(text, `${what} response`);
  }

  private async typed<S extends TSchema>(
    what: string,
    call: Omit<HttpCall, 'accept'>,
    schema: S,
    translate: (v: unknown) => unknown,
    options: CallOptions | undefined,
  ): Promise<Static<S>> {
    return expectShape(schema, translate(await this.call(what, call, options)), `${what} response`);
  }

  private post(path: string, body?: unknown): Omit<HttpCall, 'accept'> {
    return {
      method: 'POST',
      url: this.base + path,
      ...(body !== undefined ? { body: JSON.stringify(body), contentType: JSON_TYPE } : {}),
    };
  }

  private get(
    path: string,
    query: Record<string, string | number | boolean | undefined> = {},
  ): Omit<HttpCall, 'accept'> {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') params.set(k, String(v));
    const qs = params.toString();
    return { method: 'GET', url: this.base + path + (qs ? `?${qs}` : '') };
  }

  private async *stream(
    what: string,
    call: Omit<HttpCall, 'accept'>,
    options: CallOptions | undefined,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const { response, done } = await sendHttp(
      this.http,
      { ...call, accept: 'text/event-stream' },
      v03CallOptions(this.options, options),
      true,
    );
    if (!response.ok) throw restError(response, await readText(response, call.url, done, options?.signal));
    if (!isEventStream(response.headers.get('content-type')) || !response.body) {
      await readText(response, call.url, done, options?.signal).catch(() => '');
      throw notAnEventStream(what, response);
    }
    for await (const data of readSseData(response.body, {
      idleTimeoutMs: this.options.streamIdleTimeoutMs,
      signal: options?.signal,
    })) {
      const value = parseJson(data, `${what} stream event`);
      const event = streamEventFromProto(value);
      if (!hasKnownMember(event)) {
        // An `event: error` frame carries a bare {code, message} (G5: an error after the start).
        if (isJson(value) && typeof value.code === 'number') throw fromV03Error(value);
        continue;
      }
      yield expectShape(StreamResponse, event, `${what} stream event`);
    }
  }

  sendMessage(request: SendMessageRequest, options?: CallOptions): Promise<SendMessageResponse> {
    return this.typed(
      'message:send',
      this.post('/v1/message:send', sendBody(request)),
      SendMessageResponse,
      sendResponseFromProto,
      options,
    );
  }
  sendStreamingMessage(request: SendMessageRequest, options?: CallOptions): AsyncIterable<StreamResponse> {
    return guardTask(
      this.stream('message:stream', this.post('/v1/message:stream', sendBody(request)), options),
      request.message.taskId || undefined,
    );
  }
  getTask(request: GetTaskRequest, options?: CallOptions): Promise<Task> {
    return this.typed(
      'GET task',
      this.get(`/v1/tasks/${enc(request.id)}`, { historyLength: request.historyLength }),
      Task,
      (v) => taskFromProto(v),
      options,
    );
  }
  listTasks(request: ListTasksRequest, options?: CallOptions): Promise<ListTasksResponse> {
    const { tenant: _t, ...query } = request;
    return this.typed(
      'GET tasks',
      this.get('/v1/tasks', query),
      ListTasksResponse,
      (v) => {
        const filled = listDefaults(v) as Json;
        return {
          ...filled,
          tasks: Array.isArray(filled.tasks) ? filled.tasks.map((t) => taskFromProto(t)) : filled.tasks,
        };
      },
      options,
    );
  }
  cancelTask(request: CancelTaskRequest, options?: CallOptions): Promise<Task> {
    return this.typed(
      'cancel',
      this.post(`/v1/tasks/${enc(request.id)}:cancel`, {}),
      Task,
      (v) => taskFromProto(v),
      options,
    );
  }
  subscribeToTask(request: SubscribeToTaskRequest, options?: CallOptions): AsyncIterable<StreamResponse> {
    return guardTask(
      this.stream('subscribe', this.post(`/v1/tasks/${enc(request.id)}:subscribe`), options),
      request.id,
    );
  }
  createTaskPushNotificationConfig(
    request: TaskPushNotificationConfig,
    options?: CallOptions,
  ): Promise<TaskPushNotificationConfig> {
    const taskId = request.taskId ?? '';
    const config = pushConfigToProto({ ...request, taskId });
    // The proto's create request, plus its `config` at the top level: the v0.3 JS SDK server
    // reads the former, servers following the http rule (`body: "config"`) the latter.
    const body = {
      parent: `tasks/${taskId}`,
      ...(request.id ? { configId: request.id } : {}),
      config,
      ...config,
    };
    return this.typed(
      'create push config',
      this.post(`/v1/tasks/${enc(taskId)}/pushNotificationConfigs`, body),
      TaskPushNotificationConfig,
      pushConfigFromProto,
      options,
    );
  }
  getTaskPushNotificationConfig(
    request: GetTaskPushNotificationConfigRequest,
    options?: CallOptions,
  ): Promise<TaskPushNotificationConfig> {
    return this.typed(
      'get push config',
      this.get(`/v1/tasks/${enc(request.taskId)}/pushNotificationConfigs/${enc(request.id)}`),
      TaskPushNotificationConfig,
      pushConfigFromProto,
      options,
    );
  }
  async listTaskPushNotificationConfigs(
    request: ListTaskPushNotificationConfigsRequest,
    options?: CallOptions,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    const value = await this.call(
      'list push configs',
      this.get(`/v1/tasks/${enc(request.taskId)}/pushNotificationConfigs`),
      options,
    );
    const list = isJson(value) ? value.configs : undefined;
    const configs = (Array.isArray(list) ? list : []).map((c) =>
      expectShape(TaskPushNotificationConfig, pushConfigFromProto(c), 'list push configs response'),
    );
    const next = isJson(value) && typeof value.nextPageToken === 'string' ? value.nextPageToken : '';
    return { configs, nextPageToken: next };
  }
  async deleteTaskPushNotificationConfig(
    request: DeleteTaskPushNotificationConfigRequest,
    options?: CallOptions,
  ): Promise<Empty> {
    await this.call(
      'delete push config',
      { method: 'DELETE', url: `${this.base}/v1/${pushConfigName(enc(request.taskId), enc(request.id))}` },
      options,
    );
    return {};
  }
  async getExtendedAgentCard(
    _request: GetExtendedAgentCardRequest,
    options?: CallOptions,
  ): Promise<AgentCard> {
    return parseAgentCard(await this.call('GET card', this.get('/v1/card'), options), `${this.base}/v1/card`);
  }
  async close(): Promise<void> {}
}
