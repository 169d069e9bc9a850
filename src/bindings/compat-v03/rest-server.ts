/**
 * The v0.3 HTTP+JSON (REST) binding, server side: the `/v1/...` paths below the REST root, v0.3
 * ProtoJSON bodies, `application/json`, bare `{code, message}` errors and `event: error` SSE
 * frames, as the v0.3 SDKs speak them. Translation only: the same RequestHandler methods as v1.0.
 */
import {
  InvalidParamsError,
  InvalidRequestError,
  MethodNotFoundError,
  type A2AError,
} from '../../errors/a2a-error.js';
import type { A2AMethod } from '../../model/operations.js';
import type {
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTasksRequest,
  SendMessageRequest,
  SubscribeToTaskRequest,
  TaskPushNotificationConfig,
} from '../../model/schema.js';
import type { ServerCallContext } from '../../core/context.js';
import type { RequestHandler } from '../../core/handler/request-handler.js';
import {
  BodyTooLargeError,
  UnsupportedMediaTypeError,
  checkJsonContentType,
  decodeRequest,
  parseJsonBody,
  type HttpReply,
  type HttpRequest,
} from '../http/http-body.js';
import { LIST_TASKS_QUERY, GET_TASK_QUERY } from '../rest/routes.js';
import { decodeQuery } from '../rest/wire.js';
import { SSE_HEADERS } from '../http/sse.js';
import { securityHeadersFor } from '../http/security-headers.js';
import { principalOf } from '../auth-request.js';
import { isJson, type Json } from './content.js';
import { v03RestError } from './errors.js';
import { FinalMarker, V03Operations, extendedCard, type FinalMarkedEvent } from './operations.js';
import {
  cardToProto,
  createPushConfigFromProto,
  messageToProto,
  pushConfigToProto,
  sendRequestFromProto,
  streamEventToProto,
  taskToProto,
} from './proto-json.js';
import {
  V03SseSource,
  extensionHeaders,
  protocolError,
  v03CallContext,
  type V03BindingOptions,
} from './service.js';

const JSON_TYPE = 'application/json';

type V03RestOperation =
  | 'send'
  | 'stream'
  | 'get'
  | 'list'
  | 'cancel'
  | 'subscribe'
  | 'createConfig'
  | 'listConfigs'
  | 'getConfig'
  | 'deleteConfig'
  | 'card';

interface V03Route {
  op: V03RestOperation;
  taskId?: string;
  configId?: string;
}

function decodeSegment(s: string | undefined): string | undefined {
  if (s === undefined || s === '') return undefined;
  try {
    const v = decodeURIComponent(s);
    return v === '' ? undefined : v;
  } catch {
    return undefined;
  }
}

/** The route for `verb path` (path below the REST root, `/v1/...`); a string names the allowed verbs. */
export function matchV03Route(verb: string, path: string): V03Route | string | undefined {
  if (!path.startsWith('/v1/')) return undefined;
  const s = path.slice(4).split('/');
  const only = (allowed: string, route: V03Route): V03Route | string =>
    allowed.split(', ').includes(verb) ? route : allowed;
  if (s.length === 1) {
    if (s[0] === 'message:send') return only('POST', { op: 'send' });
    if (s[0] === 'message:stream') return only('POST', { op: 'stream' });
    if (s[0] === 'card') return only('GET', { op: 'card' });
    if (s[0] === 'tasks') return only('GET', { op: 'list' });
    return undefined;
  }
  if (s[0] !== 'tasks') return undefined;
  if (s.length === 2) {
    const raw = s[1] as string;
    const colon = raw.lastIndexOf(':');
    const verbPart = colon >= 0 ? raw.slice(colon + 1) : '';
    if (verbPart === 'cancel' || verbPart === 'subscribe') {
      const taskId = decodeSegment(raw.slice(0, colon));
      if (!taskId) return undefined;
      return verbPart === 'cancel'
        ? only('POST', { op: 'cancel', taskId })
        : only('GET, POST', { op: 'subscribe', taskId });
    }
    const taskId = decodeSegment(raw);
    return taskId ? only('GET', { op: 'get', taskId }) : undefined;
  }
  if (s[2] !== 'pushNotificationConfigs') return undefined;
  const taskId = decodeSegment(s[1]);
  if (!taskId) return undefined;
  if (s.length === 3)
    return verb === 'POST'
      ? { op: 'createConfig', taskId }
      : only('GET, POST', { op: 'listConfigs', taskId });
  const configId = decodeSegment(s[3]);
  if (s.length !== 4 || !configId) return undefined;
  return verb === 'DELETE'
    ? { op: 'deleteConfig', taskId, configId }
    : only('GET, DELETE', { op: 'getConfig', taskId, configId });
}

/** Serves the v0.3 REST paths. */
export class V03RestBinding {
  private readonly ops: V03Operations;

  constructor(
    private readonly handler: RequestHandler,
    private readonly options: V03BindingOptions,
  ) {
    this.ops = new V03Operations(handler);
  }

  /** Answers one request; `path` is below the REST root. Never rejects. */
  async handle(req: HttpRequest, path: string): Promise<HttpReply> {
    const route = matchV03Route(req.method, path);
    if (route === undefined)
      return this.error(new MethodNotFoundError(`No route for ${req.method} ${path}`), 404);
    if (typeof route === 'string') {
      const reply = this.error(
        new MethodNotFoundError(`${req.method} is not allowed here; use ${route}`),
        405,
      );
      reply.headers.allow = route;
      return reply;
    }
    try {
      return await this.dispatch(req, route);
    } catch (error) {
      if (error instanceof BodyTooLargeError) {
        const reply = this.error(new InvalidRequestError(error.message), 413);
        reply.headers.connection = 'close';
        return reply;
      }
      if (error instanceof UnsupportedMediaTypeError)
        return this.error(new InvalidRequestError(error.message), 415);
      return this.error(protocolError(error, this.options.onError));
    }
  }

  private async body(req: HttpRequest): Promise<Json> {
    if (req.method !== 'POST') return {};
    checkJsonContentType(req);
    const body = parseJsonBody(await req.readBody(this.options.bodyLimit));
    if (body === undefined || body === null) return {};
    if (!isJson(body)) throw new InvalidParamsError('Invalid parameters: the body must be a JSON object');
    return body;
  }

  private async dispatch(req: HttpRequest, route: V03Route): Promise<HttpReply> {
    const streaming = route.op === 'stream' || route.op === 'subscribe';
    // First of all: a refused caller costs no body read and learns nothing of the request.
    const principal = await principalOf(this.options.authenticate, () => req.authRequest());
    const body = await this.body(req);
    const taskId = route.taskId as string;
    const decode = <T>(method: A2AMethod, params: Json): T => decodeRequest<T>(method, params);
    let request: unknown;
    switch (route.op) {
      case 'send':
      case 'stream':
        request = decode<SendMessageRequest>('SendMessage', sendRequestFromProto(body));
        break;
      case 'get': {
        const params: Json = { id: taskId };
        decodeQuery(req.query, GET_TASK_QUERY, params);
        request = decode<GetTaskRequest>('GetTask', params);
        break;
      }
      case 'list': {
        const params: Json = {};
        decodeQuery(req.query, LIST_TASKS_QUERY, params);
        request = decode<ListTasksRequest>('ListTasks', params);
        break;
      }
      case 'cancel':
        request = decode<CancelTaskRequest>('CancelTask', { id: taskId });
        break;
      case 'subscribe':
        request = decode<SubscribeToTaskRequest>('SubscribeToTask', { id: taskId });
        break;
      case 'createConfig':
        request = decode<TaskPushNotificationConfig>(
          'CreateTaskPushNotificationConfig',
          createPushConfigFromProto(body, taskId),
        );
        break;
      case 'getConfig':
      case 'deleteConfig':
        request = decode<DeleteTaskPushNotificationConfigRequest>('DeleteTaskPushNotificationConfig', {
          taskId,
          id: route.configId,
        });
        break;
      case 'listConfigs':
      case 'card':
        break;
    }
    const { ctx, extensionsHeader } = v03CallContext(this.handler, req, streaming, 'HTTP+JSON', principal);
    const extra = extensionHeaders(ctx, extensionsHeader);
    if (streaming) {
      const events =
        route.op === 'stream'
          ? await this.handler.sendStreamingMessage(request as SendMessageRequest, ctx)
          : await this.handler.subscribeToTask(request as SubscribeToTaskRequest, ctx);
      const source = new V03SseSource(
        new FinalMarker(events),
        (e: FinalMarkedEvent) => JSON.stringify(streamEventToProto(e.event, e.final)),
        (error) => v03RestError(protocolError(error, this.options.onError)).body,
        'error',
      );
      return { status: 200, headers: { ...SSE_HEADERS, ...extra }, stream: source };
    }
    const result = await this.unary(route, request, ctx);
    return { status: 200, headers: { 'content-type': JSON_TYPE, ...extra }, body: JSON.stringify(result) };
  }

  private async unary(route: V03Route, request: unknown, ctx: ServerCallContext): Promise<unknown> {
    const taskId = route.taskId as string;
    switch (route.op) {
      case 'send': {
        const res = await this.handler.sendMessage(request as SendMessageRequest, ctx);
        return res.task ? { task: taskToProto(res.task) } : { message: messageToProto(res.message!) };
      }
      case 'get':
        return taskToProto(await this.handler.getTask(request as GetTaskRequest, ctx));
      case 'list': {
        const res = await this.handler.listTasks(request as ListTasksRequest, ctx);
        return { ...res, tasks: res.tasks.map(taskToProto) };
      }
      case 'cancel':
        return taskToProto(await this.handler.cancelTask(request as CancelTaskRequest, ctx));
      case 'createConfig':
        return pushConfigToProto(
          await this.handler.createTaskPushNotificationConfig(request as TaskPushNotificationConfig, ctx),
        );
      case 'getConfig':
        return pushConfigToProto(await this.ops.getPushConfig(taskId, route.configId, ctx));
      case 'listConfigs':
        return { configs: (await this.ops.listPushConfigs(taskId, ctx)).map(pushConfigToProto) };
      case 'deleteConfig':
        await this.handler.deleteTaskPushNotificationConfig(
          request as DeleteTaskPushNotificationConfigRequest,
          ctx,
        );
        return {};
      case 'card':
        return cardToProto(await extendedCard(this.handler, ctx));
      default:
        throw new MethodNotFoundError(`No unary route ${route.op}`);
    }
  }

  private error(error: A2AError, status?: number): HttpReply {
    const reply = v03RestError(error, status);
    const headers = { 'content-type': JSON_TYPE, ...securityHeadersFor(error) };
    return { status: reply.status, headers, body: reply.body };
  }
}
