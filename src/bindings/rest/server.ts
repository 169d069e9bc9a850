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
import type { ServerCallContext } from '../../core/context.js';
import type { RequestHandler } from '../../core/handler/request-handler.js';
import {
  BodyTooLargeError,
  ClientGoneError,
  UnsupportedMediaTypeError,
  checkJsonContentType,
  decodeRequest,
  httpCallContext,
  invokeStreaming,
  invokeUnary,
  parseJsonBody,
  quoteForMessage,
  type HttpReply,
  type HttpRequest,
} from '../http/http-body.js';
import {
  checkRequiredExtensions,
  lastEventIdInit,
  offersDraft,
  readHttpServiceParams,
} from '../http/service-params.js';
import { securityHeadersFor } from '../http/security-headers.js';
import { principalOf, type Authenticate } from '../auth-request.js';
import { IterableSseSource, SSE_HEADERS, sseEventId } from '../http/sse.js';
import { matchRoute, type RouteMatch } from './routes.js';
import { decodeQuery, errorEnvelope, responseMediaType } from './wire.js';

/** Options of the REST binding. */
export interface RestBindingOptions {
  /** Largest accepted body in bytes. */
  bodyLimit: number;
  /** Called with failures that are not protocol errors (bugs, store outages). */
  onError?: (error: unknown) => void;
  /** Resolves the caller of each request; a thrown A2AError is the reply. @default anonymous */
  authenticate?: Authenticate;
}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Throws InvalidParams when `body[field]` is set and differs from the path value (G8, D1, D5).
 * A value that is not a string is refused by type, never serialized (it may be nested deeply).
 */
function samePathValue(body: JsonObject, field: string, pathValue: string, label: string): void {
  const given = body[field];
  if (given === undefined || given === '' || given === pathValue) return;
  if (typeof given !== 'string') {
    throw new InvalidParamsError(`${field}: expected string`, {
      violations: [{ path: field, description: 'expected string' }],
    });
  }
  throw new InvalidParamsError(
    `Invalid parameters: ${field} ${quoteForMessage(given)} in the body differs from the ${label} ${quoteForMessage(pathValue)} in the path`,
    { violations: [{ path: field, description: `differs from the ${label} in the path` }] },
  );
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
    // HEAD is GET without the body (RFC 9110 9.3.2), on every GET route.
    const head = req.method === 'HEAD';
    const found = matchRoute(head ? 'GET' : req.method, path);
    let reply: HttpReply;
    if (found.kind === 'none') {
      reply = this.error(
        mediaType,
        new MethodNotFoundError(`No route for ${req.method} ${quoteForMessage(path)}`),
      );
    } else if (found.kind === 'wrong-verb') {
      const allow = found.allow.replace('GET', 'GET, HEAD');
      reply = this.error(
        mediaType,
        new MethodNotFoundError(`${quoteForMessage(req.method)} is not allowed here; use ${allow}`),
        405,
      );
      reply.headers.allow = allow;
    } else {
      try {
        reply = await this.dispatch(req, found.route, mediaType);
      } catch (error) {
        reply = this.failure(mediaType, error);
      }
    }
    if (head) {
      reply.stream?.stop();
      delete reply.stream;
      delete reply.body;
    }
    return reply;
  }

  private async dispatch(req: HttpRequest, route: RouteMatch, mediaType: string): Promise<HttpReply> {
    const looksLikeV1 = !(route.tenant === 'v1' && req.header('a2a-version') === undefined);
    const service = readHttpServiceParams(req, looksLikeV1, offersDraft(this.handler.agentCard()));
    // First of all: a refused caller learns nothing of the request and creates no task.
    const principal = await principalOf(this.options.authenticate, () => req.authRequest());
    const params = await this.buildParams(req, route);
    const request = decodeRequest<{ tenant?: string }>(route.method, params);
    const activated = new Set<string>();
    checkRequiredExtensions(this.handler.agentCard(), service.requestedExtensions, activated);
    const streaming = OPERATIONS[route.method].streaming;
    // The request's signal: a blocking SendMessage stops waiting when the client goes away.
    const ctx = httpCallContext(req, {
      binding: 'HTTP+JSON',
      principal,
      // The path's tenant, else the body's (as JSON-RPC's params.tenant): the same request
      // lands in the same tenant on every binding.
      tenant: request.tenant ?? '',
      requestedExtensions: service.requestedExtensions,
      activatedExtensions: activated,
      protocolVersion: service.version,
      ...lastEventIdInit(req.header('last-event-id')),
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
        // A POST body is ignored except for a conflicting id (D1) and its tenant.
        samePathValue(params, 'id', route.taskId as string, 'task id');
        return params.tenant === undefined
          ? { id: route.taskId }
          : { tenant: params.tenant, id: route.taskId };
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
    const source = new IterableSseSource(
      events,
      (event) => JSON.stringify(event),
      (error) => errorEnvelope(this.toProtocolError(error)).body,
      sseEventId,
    );
    // The head goes out at once (the client knows the stream is open while the agent thinks);
    // it echoes the extensions activated so far.
    const headers: Record<string, string> = { ...SSE_HEADERS };
    if (ctx.activatedExtensions.size > 0) headers[extensionsHeader] = [...ctx.activatedExtensions].join(', ');
    return { status: 200, headers, stream: source };
  }

  private toProtocolError(error: unknown): A2AError {
    // A client that went away is no server fault; anything else unexpected is reported.
    if (!(error instanceof A2AError) && !(error instanceof ClientGoneError)) this.options.onError?.(error);
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
    const headers = { 'content-type': mediaType, ...securityHeadersFor(error) };
    return { status: envelope.status, headers, body: envelope.body };
  }
}
