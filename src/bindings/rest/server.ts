/**
 * The HTTP+JSON (REST) binding, server side (spec 11), rooted at `{base}/a2a/rest`.
 */
import {
  A2AError,
  InvalidParamsError,
  InvalidRequestError,
  MethodNotFoundError,
  toA2AError,
} from '../../errors/a2a-error.js';
import { OPERATIONS, type A2AMethod } from '../../model/operations.js';
import { createCallContext, type ServerCallContext } from '../../server/context.js';
import type { RequestHandler } from '../../server/request-handler.js';
import {
  BodyTooLargeError,
  UnsupportedMediaTypeError,
  checkJsonContentType,
  decodeRequest,
  invokeStreaming,
  invokeUnary,
  parseJsonBody,
  type HttpReply,
  type HttpRequest,
} from '../http-body.js';
import { checkRequiredExtensions, readHttpServiceParams } from '../service-params.js';
import { IterableSseSource, SSE_HEADERS } from '../sse.js';
import { matchRoute, type RouteMatch } from './routes.js';
import { decodeQuery, errorEnvelope, responseMediaType } from './wire.js';

/** Options of the REST binding. */
export interface RestBindingOptions {
  /** Largest accepted body in bytes. */
  bodyLimit: number;
  /** Called with failures that are not protocol errors (bugs, store outages). */
  onError?: (error: unknown) => void;
}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Throws InvalidParams when `body[field]` is set and differs from the path value (G8, D1, D5). */
function samePathValue(body: JsonObject, field: string, pathValue: string, label: string): void {
  const given = body[field];
  if (given !== undefined && given !== '' && given !== pathValue) {
    throw new InvalidParamsError(
      `Invalid parameters: ${field} ${JSON.stringify(given)} in the body differs from the ${label} ${JSON.stringify(pathValue)} in the path`,
      { violations: [{ path: field, description: `differs from the ${label} in the path` }] },
    );
  }
}

/** Serves the REST routes below `/a2a/rest`. */
export class RestBinding {
  constructor(
    private readonly handler: RequestHandler,
    private readonly options: RestBindingOptions,
  ) {}

  /**
   * Answers one HTTP request. `path` is relative to the binding root (`/message:send`); it
   * defaults to `req.path`. Never rejects.
   */
  async handle(req: HttpRequest, path: string = req.path): Promise<HttpReply> {
    const mediaType = responseMediaType(req.header('content-type'), req.header('accept'));
    const found = matchRoute(req.method, path);
    if (found.kind === 'none') {
      return this.error(mediaType, new MethodNotFoundError(`No route for ${req.method} ${path}`));
    }
    if (found.kind === 'wrong-verb') {
      const reply = this.error(
        mediaType,
        new MethodNotFoundError(`${req.method} is not allowed here; use ${found.allow}`),
        405,
      );
      reply.headers.allow = found.allow;
      return reply;
    }
    try {
      return await this.dispatch(req, found.route, mediaType);
    } catch (error) {
      return this.failure(mediaType, error);
    }
  }

  private async dispatch(req: HttpRequest, route: RouteMatch, mediaType: string): Promise<HttpReply> {
    const looksLikeV1 = !(route.tenant === 'v1' && req.header('a2a-version') === undefined);
    const service = readHttpServiceParams(req, looksLikeV1);
    const params = await this.buildParams(req, route);
    const request = decodeRequest<{ tenant?: string }>(route.method, params);
    const activated = new Set<string>();
    checkRequiredExtensions(this.handler.agentCard(), service.requestedExtensions, activated);
    const streaming = OPERATIONS[route.method].streaming;
    const ctx = createCallContext({
      tenant: route.tenant,
      requestedExtensions: service.requestedExtensions,
      activatedExtensions: activated,
      protocolVersion: service.version,
      ...(streaming && req.signal ? { signal: req.signal } : {}),
    });
    if (streaming) return this.stream(route.method, request, ctx, service.extensionsHeader);
    const result = await invokeUnary(this.handler, route.method, request, ctx);
    const headers: Record<string, string> =
      activated.size === 0
        ? { 'content-type': mediaType }
        : { 'content-type': mediaType, [service.extensionsHeader]: [...activated].join(', ') };
    return { status: 200, headers, body: JSON.stringify(result) };
  }

  /** Builds the proto request message from path, query and body. */
  private async buildParams(req: HttpRequest, route: RouteMatch): Promise<JsonObject> {
    let params: JsonObject;
    if (req.method === 'POST') {
      checkJsonContentType(req);
      const body = parseJsonBody(await req.readBody(this.options.bodyLimit));
      if (body === undefined || body === null) params = {};
      else if (isObject(body)) params = body;
      else throw new InvalidParamsError('Invalid parameters: the body must be a JSON object');
    } else {
      params = {};
      if (route.query) decodeQuery(req.query, route.query, params);
    }
    if (route.tenant !== '') {
      samePathValue(params, 'tenant', route.tenant, 'tenant');
      params.tenant = route.tenant;
    }
    switch (route.method) {
      case 'SubscribeToTask':
        // A POST body is ignored except for a conflicting id (D1).
        samePathValue(params, 'id', route.taskId as string, 'task id');
        return route.tenant === '' ? { id: route.taskId } : { tenant: route.tenant, id: route.taskId };
      case 'GetTask':
      case 'CancelTask':
        samePathValue(params, 'id', route.taskId as string, 'task id');
        params.id = route.taskId;
        break;
      case 'CreateTaskPushNotificationConfig':
      case 'ListTaskPushNotificationConfigs':
        samePathValue(params, 'taskId', route.taskId as string, 'task id');
        params.taskId = route.taskId;
        break;
      case 'GetTaskPushNotificationConfig':
      case 'DeleteTaskPushNotificationConfig':
        params.taskId = route.taskId;
        params.id = route.configId;
        break;
      default:
        break;
    }
    return params;
  }

  private async stream(
    method: A2AMethod,
    request: unknown,
    ctx: ServerCallContext,
    extensionsHeader: string,
  ): Promise<HttpReply> {
    const events = await invokeStreaming(this.handler, method, request, ctx);
    const headers: Record<string, string> = { ...SSE_HEADERS };
    if (ctx.activatedExtensions.size > 0) headers[extensionsHeader] = [...ctx.activatedExtensions].join(', ');
    const source = new IterableSseSource(
      events,
      (event) => JSON.stringify(event),
      (error) => errorEnvelope(this.toProtocolError(error)).body,
    );
    return { status: 200, headers, stream: source };
  }

  private toProtocolError(error: unknown): A2AError {
    if (!(error instanceof A2AError)) this.options.onError?.(error);
    return toA2AError(error);
  }

  private failure(mediaType: string, error: unknown): HttpReply {
    if (error instanceof BodyTooLargeError) {
      const reply = this.error(mediaType, new InvalidRequestError(error.message), 413);
      reply.headers.connection = 'close';
      return reply;
    }
    if (error instanceof UnsupportedMediaTypeError) {
      return this.error(mediaType, new InvalidRequestError(error.message), 415);
    }
    return this.error(mediaType, this.toProtocolError(error));
  }

  private error(mediaType: string, error: A2AError, status?: number): HttpReply {
    const envelope = errorEnvelope(error, status);
    return { status: envelope.status, headers: { 'content-type': mediaType }, body: envelope.body };
  }
}
