/**
 * The HTTP+JSON (REST) binding's client (spec §11): routes from the proto's http rules under
 * the interface URL (with a `/{tenant}` prefix when the card names one), `application/a2a+json`
 * bodies (N14), errors in any of the shapes D13 lists, streams as SSE of bare StreamResponses.
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
import type { CallOptions, Transport } from '../transport.js';
import type { A2AError } from '../../errors/index.js';
import { A2ATransportError } from '../../errors/client-errors.js';
import { expectShape, fromRestError, parseJson } from '../http/decode.js';
import {
  isEventStream,
  notAnEventStream,
  readText,
  sendHttp,
  type HttpCall,
  type HttpTransportOptions,
} from '../http/client-http.js';
import { decodeStream } from '../stream-guard.js';
import { readSseData } from '../http/sse-parse.js';
import { listDefaults } from '../jsonrpc/client.js';

/** Options of {@link RestTransport}. */
export type RestTransportOptions = HttpTransportOptions;

const JSON_TYPE = 'application/a2a+json';
const ACCEPT_JSON = 'application/a2a+json, application/json';
const enc = encodeURIComponent;

type Query = Record<string, string | number | boolean | undefined>;

/** Talks to an A2A agent over HTTP+JSON rooted at `url` (the interface URL from the card). */
export class RestTransport implements Transport {
  readonly binding = 'HTTP+JSON';
  private readonly base: string;
  /** D1: the subscribe verb that worked, once known. */
  private subscribeVerb: 'POST' | 'GET' = 'POST';

  constructor(
    url: string,
    private readonly options: RestTransportOptions = {},
  ) {
    this.base = url.replace(/\/+$/, '');
  }

  private url(tenant: string | undefined, path: string, query?: Query): string {
    let url = this.base + (tenant ? `/${enc(tenant)}` : '') + path;
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query ?? {}))
      if (v !== undefined && v !== '') params.set(k, String(v));
    const qs = params.toString();
    if (qs) url += `?${qs}`;
    return url;
  }

  private async call<S extends TSchema>(
    what: string,
    call: Omit<HttpCall, 'accept'>,
    schema: S | undefined,
    options: CallOptions | undefined,
    fill?: (v: unknown) => unknown,
  ): Promise<Static<S>> {
    const { response, done } = await sendHttp(this.options, { ...call, accept: ACCEPT_JSON }, options);
    const text = await readText(response, call.url, done, options?.signal);
    if (response.status < 200 || response.status > 299) throw restFailure(response, text, what);
    const body: unknown = text.trim() === '' ? {} : parseJson(text, `${what} response`);
    if (!schema) return (body ?? {}) as Static<S>;
    return expectShape(schema, fill ? fill(body) : body, `${what} response`);
  }

  private async *stream(
    what: string,
    call: Omit<HttpCall, 'accept'>,
    options: CallOptions | undefined,
    fallbackGet?: () => Omit<HttpCall, 'accept'>,
  ): AsyncGenerator<unknown, void, undefined> {
    let attempt = call;
    let { response, done } = await sendHttp(
      this.options,
      { ...attempt, accept: 'text/event-stream' },
      options,
      true,
    );
    if (fallbackGet && [404, 405, 501].includes(response.status)) {
      const text = await readText(response, attempt.url, done, options?.signal);
      const decoded = fromRestError(response.status, text);
      // A real TaskNotFound (an A2A body) is an answer; a bare 404/405/501 means "no such route".
      if (decoded.recognized) throw decoded.error;
      attempt = fallbackGet();
      ({ response, done } = await sendHttp(
        this.options,
        { ...attempt, accept: 'text/event-stream' },
        options,
        true,
      ));
      if (response.ok) this.subscribeVerb = 'GET';
    }
    if (!response.ok) {
      const text = await readText(response, attempt.url, done, options?.signal);
      throw restFailure(response, text, what);
    }
    if (!isEventStream(response.headers.get('content-type')) || !response.body) {
      await readText(response, attempt.url, done, options?.signal).catch(() => '');
      throw notAnEventStream(what, response);
    }
    for await (const data of readSseData(response.body, {
      idleTimeoutMs: this.options.streamIdleTimeoutMs,
      signal: options?.signal,
    })) {
      const value = parseJson(data, `${what} stream event`);
      if (typeof value === 'object' && value !== null && 'error' in value) {
        throw fromRestError(500, data).error; // G5: an error after the stream started
      }
      yield value;
    }
  }

  sendMessage(request: SendMessageRequest, options?: CallOptions): Promise<SendMessageResponse> {
    return this.call(
      'SendMessage',
      {
        method: 'POST',
        url: this.url(request.tenant, '/message:send'),
        body: body(request),
        contentType: JSON_TYPE,
      },
      SendMessageResponse,
      options,
    );
  }
  sendStreamingMessage(request: SendMessageRequest, options?: CallOptions): AsyncIterable<StreamResponse> {
    return decodeStream(
      this.stream(
        'SendStreamingMessage',
        {
          method: 'POST',
          url: this.url(request.tenant, '/message:stream'),
          body: body(request),
          contentType: JSON_TYPE,
        },
        options,
      ),
      'SendStreamingMessage',
      request.message.taskId || undefined,
    );
  }
  getTask(request: GetTaskRequest, options?: CallOptions): Promise<Task> {
    return this.call(
      'GetTask',
      {
        method: 'GET',
        url: this.url(request.tenant, `/tasks/${enc(request.id)}`, { historyLength: request.historyLength }),
      },
      Task,
      options,
    );
  }
  listTasks(request: ListTasksRequest, options?: CallOptions): Promise<ListTasksResponse> {
    const { tenant, ...query } = request;
    return this.call(
      'ListTasks',
      { method: 'GET', url: this.url(tenant, '/tasks', query) },
      ListTasksResponse,
      options,
      listDefaults,
    );
  }
  cancelTask(request: CancelTaskRequest, options?: CallOptions): Promise<Task> {
    return this.call(
      'CancelTask',
      {
        method: 'POST',
        url: this.url(request.tenant, `/tasks/${enc(request.id)}:cancel`),
        body: JSON.stringify(request.metadata ? { metadata: request.metadata } : {}),
        contentType: JSON_TYPE,
      },
      Task,
      options,
    );
  }
  subscribeToTask(request: SubscribeToTaskRequest, options?: CallOptions): AsyncIterable<StreamResponse> {
    const url = this.url(request.tenant, `/tasks/${enc(request.id)}:subscribe`);
    const get = (): Omit<HttpCall, 'accept'> => ({ method: 'GET', url });
    const first: Omit<HttpCall, 'accept'> =
      this.subscribeVerb === 'GET' ? get() : { method: 'POST', url, body: '{}', contentType: JSON_TYPE };
    return decodeStream(
      this.stream('SubscribeToTask', first, options, this.subscribeVerb === 'POST' ? get : undefined),
      'SubscribeToTask',
      request.id,
    );
  }
  createTaskPushNotificationConfig(
    request: TaskPushNotificationConfig,
    options?: CallOptions,
  ): Promise<TaskPushNotificationConfig> {
    return this.call(
      'CreateTaskPushNotificationConfig',
      {
        method: 'POST',
        url: this.url(request.tenant, `/tasks/${enc(request.taskId ?? '')}/pushNotificationConfigs`),
        body: body(request),
        contentType: JSON_TYPE,
      },
      TaskPushNotificationConfig,
      options,
    );
  }
  getTaskPushNotificationConfig(
    request: GetTaskPushNotificationConfigRequest,
    options?: CallOptions,
  ): Promise<TaskPushNotificationConfig> {
    return this.call(
      'GetTaskPushNotificationConfig',
      {
        method: 'GET',
        url: this.url(
          request.tenant,
          `/tasks/${enc(request.taskId)}/pushNotificationConfigs/${enc(request.id)}`,
        ),
      },
      TaskPushNotificationConfig,
      options,
    );
  }
  listTaskPushNotificationConfigs(
    request: ListTaskPushNotificationConfigsRequest,
    options?: CallOptions,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    return this.call(
      'ListTaskPushNotificationConfigs',
      {
        method: 'GET',
        url: this.url(request.tenant, `/tasks/${enc(request.taskId)}/pushNotificationConfigs`, {
          pageSize: request.pageSize,
          pageToken: request.pageToken,
        }),
      },
      ListTaskPushNotificationConfigsResponse,
      options,
    );
  }
  async deleteTaskPushNotificationConfig(
    request: DeleteTaskPushNotificationConfigRequest,
    options?: CallOptions,
  ): Promise<Empty> {
    await this.call(
      'DeleteTaskPushNotificationConfig',
      {
        method: 'DELETE',
        url: this.url(
          request.tenant,
          `/tasks/${enc(request.taskId)}/pushNotificationConfigs/${enc(request.id)}`,
        ),
      },
      undefined,
      options,
    );
    return {};
  }
  getExtendedAgentCard(request: GetExtendedAgentCardRequest, options?: CallOptions): Promise<AgentCard> {
    return this.call(
      'GetExtendedAgentCard',
      { method: 'GET', url: this.url(request.tenant, '/extendedAgentCard') },
      AgentCard,
      options,
    );
  }
  async close(): Promise<void> {}
}

/** Statuses whose meaning is HTTP's own whatever the body: credentials, and back off. */
const HTTP_SEMANTIC_STATUSES = [401, 403, 429, 502, 503, 504];

/**
 * The error for a failed REST response. A body carrying the A2A error (its ErrorInfo reason)
 * is that typed error. Without one, a 404 is no proof that a task is missing (a wrong URL, a
 * proxy, a server that is not A2A): it becomes a transport error saying what came back, so
 * that TaskNotFoundError always means the agent said so. Other statuses keep their HTTP
 * meaning (401, 503...) or the error shape they carry.
 */
function restFailure(response: Response, text: string, what: string): A2AError | A2ATransportError {
  const { error, recognized } = fromRestError(response.status, text);
  if (recognized || HTTP_SEMANTIC_STATUSES.includes(response.status)) return error;
  if (response.status !== 404 && looksLikeErrorJson(text)) return error;
  const type = response.headers.get('content-type') ?? 'no content type';
  const excerpt = text.replace(/\s+/g, ' ').trim().slice(0, 200);
  return new A2ATransportError(
    `${what} got HTTP ${response.status} (${type}) without an A2A error: ${excerpt ? JSON.stringify(excerpt) : 'empty body'}`,
    { status: response.status },
  );
}

/** True for a JSON object body (an error shape of some HTTP API), not HTML or plain text. */
function looksLikeErrorJson(text: string): boolean {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}

/** The request as a JSON body, without `tenant` (it is in the path, G8). */
function body(request: { tenant?: string }): string {
  const { tenant: _tenant, ...rest } = request;
  void _tenant;
  return JSON.stringify(rest);
}
