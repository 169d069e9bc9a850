/**
 * The JSON-RPC 2.0 binding, server side (spec 9): one POST endpoint, the eleven PascalCase
 * methods, SSE for the two streaming ones.
 */
import {
  A2AError,
  InvalidParamsError,
  InvalidRequestError,
  MethodNotFoundError,
  ParseError,
  toA2AError,
} from '../../errors/a2a-error.js';
import { OPERATIONS, isA2AMethod, type A2AMethod } from '../../model/operations.js';
import type { Principal, ServerCallContext } from '../../core/context.js';
import type { RequestHandler } from '../../core/handler/request-handler.js';
import {
  BodyTooDeepError,
  BodyTooLargeError,
  ClientGoneError,
  UnsupportedMediaTypeError,
  decodeRequest,
  httpCallContext,
  invokeStreaming,
  invokeUnary,
  quoteForMessage,
  readAuthenticatedJson,
  type AuthenticatedBody,
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
import type { Authenticate } from '../auth-request.js';
import { IterableSseSource, SSE_HEADERS, sseEventId } from '../http/sse.js';
import {
  EnvelopeError,
  NULL_ID,
  errorResponse,
  httpStatusOf,
  isV03MethodName,
  parseJsonRpcRequest,
  resultResponse,
} from './wire.js';

/** Options of the JSON-RPC binding. */
export interface JsonRpcBindingOptions {
  /** Largest accepted body in bytes. */
  bodyLimit: number;
  /** Called with failures that are not protocol errors (bugs, store outages). */
  onError?: (error: unknown) => void;
  /** Resolves the caller of each request; a thrown A2AError is the reply. @default anonymous */
  authenticate?: Authenticate;
}

const JSON_HEADERS = { 'content-type': 'application/json' } as const;

function hasV03Shape(params: unknown): boolean {
  const message = (params as { message?: { kind?: unknown } } | undefined)?.message;
  return typeof message === 'object' && message !== null && message.kind !== undefined;
}

/** Serves `POST {base}/a2a/jsonrpc`. */
export class JsonRpcBinding {
  constructor(
    private readonly handler: RequestHandler,
    private readonly options: JsonRpcBindingOptions,
  ) {}

  /** Answers one HTTP request. Never rejects. */
  async handle(req: HttpRequest): Promise<HttpReply> {
    if (req.method !== 'POST') {
      const error = new MethodNotFoundError(`The JSON-RPC endpoint only accepts POST, not ${req.method}`);
      return {
        status: 405,
        headers: { ...JSON_HEADERS, allow: 'POST' },
        body: errorResponse(NULL_ID, error),
      };
    }
    let prepared: AuthenticatedBody;
    try {
      prepared = await readAuthenticatedJson(req, this.options.authenticate, this.options.bodyLimit);
    } catch (error) {
      return this.earlyFailure(error);
    }
    return this.handleValue(req, prepared);
  }

  /**
   * Answers a request whose caller is known and whose body is parsed (the v0.3 router reads
   * both once, before it knows which version serves the request). Never rejects.
   */
  async handleValue(req: HttpRequest, body: AuthenticatedBody): Promise<HttpReply> {
    // An empty body is no JSON text at all: a parse error, as JSON.parse('') is.
    if (body.value === undefined) return this.reply(200, errorResponse(NULL_ID, new ParseError()));
    let rpc;
    try {
      rpc = parseJsonRpcRequest(body.value);
    } catch (error) {
      if (error instanceof EnvelopeError) return this.reply(200, errorResponse(error.idJson, error.error));
      return this.failure(NULL_ID, error);
    }
    // A notification is never executed and never answered (G12).
    if (rpc.id === undefined) return { status: 204, headers: {} };
    try {
      return await this.dispatch(req, body.principal, rpc.method, rpc.params, rpc.idJson);
    } catch (error) {
      return this.failure(rpc.idJson, error);
    }
  }

  /** The reply to a request refused before its envelope was read (media type, caller, body, JSON). */
  earlyFailure(error: unknown): HttpReply {
    if (error instanceof ParseError || error instanceof BodyTooDeepError) {
      return this.reply(200, errorResponse(NULL_ID, error));
    }
    return this.bodyFailure(error);
  }

  private async dispatch(
    req: HttpRequest,
    principal: Principal,
    method: string,
    params: unknown,
    idJson: string,
  ): Promise<HttpReply> {
    const looksLikeV1 = !isV03MethodName(method) && !hasV03Shape(params);
    const service = readHttpServiceParams(req, looksLikeV1, offersDraft(this.handler.agentCard()));
    if (!isA2AMethod(method)) {
      throw new MethodNotFoundError(`Method ${quoteForMessage(method)} not found`);
    }
    if (params === undefined || params === null) params = {};
    else if (typeof params !== 'object' || Array.isArray(params)) {
      throw new InvalidParamsError('Invalid parameters: "params" must be an object');
    }
    const request = decodeRequest<{ tenant?: string }>(method, params);
    const activated = new Set<string>();
    checkRequiredExtensions(this.handler.agentCard(), service.requestedExtensions, activated);
    const streaming = OPERATIONS[method].streaming;
    // The request's signal: a blocking SendMessage stops waiting when the client goes away.
    const ctx = httpCallContext(req, {
      binding: 'JSONRPC',
      principal,
      tenant: request.tenant ?? '',
      requestedExtensions: service.requestedExtensions,
      activatedExtensions: activated,
      protocolVersion: service.version,
      ...lastEventIdInit(req.header('last-event-id')),
    });
    if (streaming) return this.stream(method, request, ctx, idJson, service.extensionsHeader);
    const result = await invokeUnary(this.handler, method, request, ctx);
    const headers: Record<string, string> =
      activated.size === 0
        ? { 'content-type': 'application/json' }
        : { 'content-type': 'application/json', [service.extensionsHeader]: [...activated].join(', ') };
    return { status: 200, headers, body: resultResponse(idJson, JSON.stringify(result)) };
  }

  private async stream(
    method: A2AMethod,
    request: unknown,
    ctx: ServerCallContext,
    idJson: string,
    extensionsHeader: string,
  ): Promise<HttpReply> {
    const events = await invokeStreaming(this.handler, method, request, ctx);
    const source = new IterableSseSource(
      events,
      (event) => resultResponse(idJson, JSON.stringify(event)),
      (error) => errorResponse(idJson, this.toProtocolError(error)),
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

  private failure(idJson: string, error: unknown): HttpReply {
    const a2a = this.toProtocolError(error);
    const reply = this.reply(httpStatusOf(a2a), errorResponse(idJson, a2a));
    Object.assign(reply.headers, securityHeadersFor(a2a));
    return reply;
  }

  private bodyFailure(error: unknown): HttpReply {
    if (error instanceof BodyTooLargeError) {
      // Answered before the body is read: the connection closes so the rest is never parsed.
      return {
        status: 413,
        headers: { ...JSON_HEADERS, connection: 'close' },
        body: errorResponse(NULL_ID, new InvalidRequestError(error.message)),
      };
    }
    if (error instanceof UnsupportedMediaTypeError) {
      return {
        status: 415,
        headers: { ...JSON_HEADERS },
        body: errorResponse(NULL_ID, new InvalidRequestError(error.message)),
      };
    }
    return this.failure(NULL_ID, error);
  }

  private reply(status: number, body: string): HttpReply {
    return { status, headers: { ...JSON_HEADERS }, body };
  }
}
