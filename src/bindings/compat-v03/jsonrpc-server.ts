/**
 * The v0.3 JSON-RPC binding, server side: the slash methods (`message/send`, `tasks/get`, ...)
 * on the same endpoint as v1.0. Translation only: params become v1.0 requests, validated with
 * the v1.0 schemas, and run by the same RequestHandler methods as the v1.0 binding; results,
 * events and errors go back in their v0.3 shapes.
 */
import {
  InvalidParamsError,
  InvalidRequestError,
  MethodNotFoundError,
  ParseError,
  type A2AError,
} from '../../errors/a2a-error.js';
import type {
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  SendMessageRequest,
  SubscribeToTaskRequest,
  TaskPushNotificationConfig,
} from '../../model/schema.js';
import type { Principal, ServerCallContext } from '../../core/context.js';
import type { RequestHandler } from '../../core/handler/request-handler.js';
import {
  BodyTooDeepError,
  BodyTooLargeError,
  UnsupportedMediaTypeError,
  decodeRequest,
  readAuthenticatedJson,
  type AuthenticatedBody,
  type HttpReply,
  type HttpRequest,
} from '../http/http-body.js';
import {
  EnvelopeError,
  NULL_ID,
  httpStatusOf,
  parseJsonRpcRequest,
  resultResponse,
} from '../jsonrpc/wire.js';
import { securityHeadersFor } from '../http/security-headers.js';
import { SSE_HEADERS } from '../http/sse.js';
import { cardToV03 } from './card.js';
import { isJson, messageToV03, streamEventToV03, taskToV03 } from './content.js';
import { v03ErrorResponse } from './errors.js';
import { FinalMarker, V03Operations, extendedCard, type FinalMarkedEvent } from './operations.js';
import { V03_METHODS, isV03Method, paramsFromV03, pushConfigToV03, type V03Method } from './requests.js';
import {
  V03SseSource,
  extensionHeaders,
  protocolError,
  v03CallContext,
  type V03BindingOptions,
} from './service.js';

const JSON_HEADERS = { 'content-type': 'application/json' } as const;

/** True when a parsed JSON-RPC body has v0.3 form: a slash method, or `kind` on the message. */
export function looksLikeV03JsonRpc(body: unknown): boolean {
  if (!isJson(body) || typeof body.method !== 'string') return false;
  if (body.method.includes('/')) return true;
  const message = isJson(body.params) ? body.params.message : undefined;
  return isJson(message) && message.kind !== undefined;
}

/** Serves v0.3 JSON-RPC requests. */
export class V03JsonRpcBinding {
  private readonly ops: V03Operations;

  constructor(
    private readonly handler: RequestHandler,
    private readonly options: V03BindingOptions,
  ) {
    this.ops = new V03Operations(handler);
  }

  /** Answers one HTTP request (reads the body). Never rejects. */
  async handle(req: HttpRequest): Promise<HttpReply> {
    if (req.method !== 'POST') {
      const reply = this.reply(
        405,
        v03ErrorResponse(NULL_ID, new MethodNotFoundError('The JSON-RPC endpoint only accepts POST')),
      );
      reply.headers.allow = 'POST';
      return reply;
    }
    let prepared: AuthenticatedBody;
    try {
      prepared = await readAuthenticatedJson(req, this.options.authenticate, this.options.bodyLimit);
    } catch (error) {
      if (error instanceof ParseError || error instanceof BodyTooDeepError) {
        return this.reply(200, v03ErrorResponse(NULL_ID, error));
      }
      return this.bodyFailure(error);
    }
    return this.handleValue(req, prepared);
  }

  /** Answers a request whose caller is known and whose body is parsed. Never rejects. */
  async handleValue(req: HttpRequest, body: AuthenticatedBody): Promise<HttpReply> {
    // An empty body is no JSON text at all: a parse error, as JSON.parse('') is.
    if (body.value === undefined) return this.reply(200, v03ErrorResponse(NULL_ID, new ParseError()));
    let rpc;
    try {
      rpc = parseJsonRpcRequest(body.value);
    } catch (error) {
      if (error instanceof EnvelopeError) return this.reply(200, v03ErrorResponse(error.idJson, error.error));
      return this.failure(NULL_ID, error);
    }
    if (rpc.id === undefined) return { status: 204, headers: {} };
    try {
      return await this.dispatch(req, body.principal, rpc.method, rpc.params, rpc.idJson);
    } catch (error) {
      return this.failure(rpc.idJson, error);
    }
  }

  private async dispatch(
    req: HttpRequest,
    principal: Principal,
    method: string,
    params: unknown,
    idJson: string,
  ): Promise<HttpReply> {
    if (!isV03Method(method)) throw new MethodNotFoundError(`Method ${JSON.stringify(method)} not found`);
    if (params === undefined || params === null) params = {};
    else if (!isJson(params)) throw new InvalidParamsError('Invalid parameters: "params" must be an object');
    const json = params as Record<string, unknown>;
    // A `get` without a config id is validated like `list` (v0.3 let it default).
    const schemaOf =
      method === 'tasks/pushNotificationConfig/get' && (json.pushNotificationConfigId ?? '') === ''
        ? 'ListTaskPushNotificationConfigs'
        : V03_METHODS[method];
    const request = decodeRequest<unknown>(schemaOf, paramsFromV03(method, json));
    const streaming = method === 'message/stream' || method === 'tasks/resubscribe';
    const { ctx, extensionsHeader } = v03CallContext(this.handler, req, streaming, 'JSONRPC', principal);
    const extra = extensionHeaders(ctx, extensionsHeader);
    if (streaming) {
      const events =
        method === 'message/stream'
          ? await this.handler.sendStreamingMessage(request as SendMessageRequest, ctx)
          : await this.handler.subscribeToTask(request as SubscribeToTaskRequest, ctx);
      const source = new V03SseSource(
        new FinalMarker(events),
        (e: FinalMarkedEvent) => resultResponse(idJson, JSON.stringify(streamEventToV03(e.event, e.final))),
        (error) => v03ErrorResponse(idJson, protocolError(error, this.options.onError)),
      );
      return { status: 200, headers: { ...SSE_HEADERS, ...extra }, stream: source };
    }
    const result = await this.unary(method, request, ctx);
    return {
      status: 200,
      headers: { ...JSON_HEADERS, ...extra },
      body: resultResponse(idJson, result === undefined ? 'null' : JSON.stringify(result)),
    };
  }

  /** Runs a unary v0.3 method and shapes its v0.3 result. */
  private async unary(method: V03Method, request: unknown, ctx: ServerCallContext): Promise<unknown> {
    switch (method) {
      case 'message/send': {
        const res = await this.handler.sendMessage(request as SendMessageRequest, ctx);
        return res.task ? taskToV03(res.task) : messageToV03(res.message as NonNullable<typeof res.message>);
      }
      case 'tasks/get':
        return taskToV03(await this.handler.getTask(request as GetTaskRequest, ctx));
      case 'tasks/cancel':
        return taskToV03(await this.handler.cancelTask(request as CancelTaskRequest, ctx));
      case 'tasks/pushNotificationConfig/set':
        return pushConfigToV03(
          await this.handler.createTaskPushNotificationConfig(request as TaskPushNotificationConfig, ctx),
        );
      case 'tasks/pushNotificationConfig/get': {
        const r = request as Partial<GetTaskPushNotificationConfigRequest> & { taskId: string };
        return pushConfigToV03(await this.ops.getPushConfig(r.taskId, r.id, ctx));
      }
      case 'tasks/pushNotificationConfig/list': {
        const r = request as ListTaskPushNotificationConfigsRequest;
        return (await this.ops.listPushConfigs(r.taskId, ctx)).map(pushConfigToV03);
      }
      case 'tasks/pushNotificationConfig/delete':
        await this.handler.deleteTaskPushNotificationConfig(
          request as DeleteTaskPushNotificationConfigRequest,
          ctx,
        );
        return null;
      case 'agent/getAuthenticatedExtendedCard':
        return cardToV03(await extendedCard(this.handler, ctx));
      default:
        throw new MethodNotFoundError(`Method ${JSON.stringify(method)} not found`);
    }
  }

  private failure(idJson: string, error: unknown): HttpReply {
    const a2a: A2AError = protocolError(error, this.options.onError);
    const reply = this.reply(httpStatusOf(a2a), v03ErrorResponse(idJson, a2a));
    Object.assign(reply.headers, securityHeadersFor(a2a));
    return reply;
  }

  private bodyFailure(error: unknown): HttpReply {
    if (error instanceof BodyTooLargeError) {
      const reply = this.reply(413, v03ErrorResponse(NULL_ID, new InvalidRequestError(error.message)));
      reply.headers.connection = 'close';
      return reply;
    }
    if (error instanceof UnsupportedMediaTypeError) {
      return this.reply(415, v03ErrorResponse(NULL_ID, new InvalidRequestError(error.message)));
    }
    return this.failure(NULL_ID, error);
  }

  private reply(status: number, body: string): HttpReply {
    return { status, headers: { ...JSON_HEADERS }, body };
  }
}
