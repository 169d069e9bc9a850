/**
 * Request-body handling shared by the JSON-RPC and REST bindings: a runtime-neutral view of an
 * HTTP exchange, bounded body reading, media-type checks, JSON parsing and request validation.
 */
import { InvalidRequestError, ParseError } from '../../errors/a2a-error.js';
import type { A2AMethod } from '../../model/operations.js';
import { parseRequest } from '../../errors/validation.js';
import type { SendMessageRequest, StreamResponse, SubscribeToTaskRequest } from '../../model/schema.js';
import { createCallContext, type Principal, type ServerCallContext } from '../../core/context.js';
import { attachTraceCarrier } from '../../core/trace-carrier.js'; // observability (issue 15)
import type { RequestHandler } from '../../core/handler/request-handler.js';
import { principalOf, type Authenticate, type AuthRequest } from '../auth-request.js';

/** Default request body limit: 1 MiB. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * One incoming HTTP request as the bindings see it, whatever the runtime (node:http, fetch).
 * Header names are lowercase.
 */
export interface HttpRequest {
  readonly method: string;
  /** The path below the binding's root, without the query (`/message:send`). Percent-encoded. */
  readonly path: string;
  /** The raw query string without `?` (`""` for none). */
  readonly query: string;
  /** First value of a header (lowercase name). */
  header(name: string): string | undefined;
  /** Every value of a header, repeated headers included (lowercase name). */
  headerValues(name: string): string[];
  /** Reads the whole body, failing with `BodyTooLargeError` as soon as it passes `limit` bytes. */
  readBody(limit: number): Promise<Buffer>;
  /** Aborted when the client goes away. */
  readonly signal?: AbortSignal;
  /** The request as authentication sees it (built on demand: only an `authenticate` hook reads it). */
  authRequest(): AuthRequest;
}

/** One answer: a complete body, or an SSE stream of already framed chunks. */
export interface HttpReply {
  status: number;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** SSE frames (`data: ...\n\n`); written in order with backpressure. */
  stream?: SseSource;
}

/** What an SSE reply streams: framed text chunks, and a way to stop early. */
export interface SseSource {
  /** The next frame, or `undefined` when the stream is over. Never rejects. */
  next(): Promise<string | undefined>;
  /** Stops the stream (client gone, server closing); never cancels the underlying task. */
  stop(): void;
}

/** Longest text an error message quotes from a request. */
export const MAX_QUOTED_CHARS = 120;

/**
 * `value` as an error message may quote it: a string JSON-quoted and cut to
 * {@link MAX_QUOTED_CHARS}; anything else named by its type, never serialized (a deeply nested
 * value would overflow the stack, a large one would be echoed whole).
 */
export function quoteForMessage(value: unknown): string {
  if (typeof value !== 'string') {
    if (value === null) return 'null';
    if (Array.isArray(value)) return 'an array';
    if (typeof value === 'object') return 'an object';
    return typeof value === 'number' || typeof value === 'boolean' ? String(value) : `a ${typeof value}`;
  }
  if (value.length <= MAX_QUOTED_CHARS) return JSON.stringify(value);
  return JSON.stringify(value.slice(0, MAX_QUOTED_CHARS)).slice(0, -1) + `..." (${value.length} chars)`;
}

/** The body is larger than the configured limit (answered with HTTP 413). */
export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`Request body exceeds the limit of ${limit} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

/**
 * The client went away before its request body ended (reset, aborted upload). Not a server
 * fault: bindings do not report it to `onError`, and nobody is left to read the reply.
 */
export class ClientGoneError extends Error {
  constructor(cause?: unknown) {
    super('The client closed the connection before the body ended', { cause });
    this.name = 'ClientGoneError';
  }
}

/** The request's Content-Type is not a JSON media type (answered with HTTP 415). */
export class UnsupportedMediaTypeError extends Error {
  constructor(readonly mediaType: string) {
    super(
      `Unsupported Content-Type ${quoteForMessage(mediaType)}: send application/json or application/a2a+json`,
    );
    this.name = 'UnsupportedMediaTypeError';
  }
}

/**
 * True for `application/json`, `application/a2a+json` and any `+json` type, with or without
 * parameters (N14); also true when no Content-Type was sent (lenient).
 */
export function isJsonMediaType(contentType: string | undefined): boolean {
  if (contentType === undefined || contentType === '') return true;
  let end = contentType.indexOf(';');
  if (end < 0) end = contentType.length;
  const type = contentType.slice(0, end).trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/** Throws {@link UnsupportedMediaTypeError} unless the request body is declared as JSON. */
export function checkJsonContentType(req: HttpRequest): void {
  const contentType = req.header('content-type');
  if (!isJsonMediaType(contentType)) throw new UnsupportedMediaTypeError(contentType ?? '');
}

/**
 * Deepest nesting of arrays and objects a request body may have. The model's own limit on
 * `metadata` and `data` values (32 levels) sits below this, with room for the envelope.
 */
export const MAX_BODY_DEPTH = 64;

/** The body nests arrays or objects deeper than {@link MAX_BODY_DEPTH} (answered as InvalidRequest). */
export class BodyTooDeepError extends InvalidRequestError {
  constructor(readonly maxDepth: number) {
    super(`Request body nests arrays or objects deeper than ${maxDepth} levels`);
  }
}

/**
 * True when `body` (JSON text) opens more than `maxDepth` arrays or objects at once. One pass
 * over the bytes, strings skipped, before `JSON.parse` builds anything: a 1 MiB `[[[...` body
 * costs a scan of its first `maxDepth` brackets, not half a million arrays.
 */
export function exceedsJsonDepth(body: Uint8Array, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > maxDepth) return true;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
  return false;
}

/**
 * Parses a JSON body once, after the depth scan; an empty body yields `undefined`. Invalid JSON
 * throws ParseError, a body nested past `maxDepth` {@link BodyTooDeepError}.
 */
export function parseJsonBody(body: Buffer, maxDepth = MAX_BODY_DEPTH): unknown {
  if (body.length === 0) return undefined;
  if (exceedsJsonDepth(body, maxDepth)) throw new BodyTooDeepError(maxDepth);
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new ParseError();
  }
}

/** A request body read after its caller was authenticated, parsed once. */
export interface AuthenticatedBody {
  readonly principal: Principal;
  /** The parsed body (`undefined` for an empty one). */
  readonly value: unknown;
}

/**
 * The order every JSON binding follows: the media type and the caller from headers first (a
 * refused caller costs no body read and no parse), then the body, bounded by `limit`, parsed
 * once with the depth limit. Throws UnsupportedMediaTypeError, the authenticator's A2AError,
 * BodyTooLargeError, ClientGoneError, ParseError or BodyTooDeepError.
 */
export async function readAuthenticatedJson(
  req: HttpRequest,
  authenticate: Authenticate | undefined,
  limit: number,
): Promise<AuthenticatedBody> {
  checkJsonContentType(req);
  const principal = await principalOf(authenticate, () => req.authRequest());
  const value = parseJsonBody(await req.readBody(limit));
  return { principal, value };
}

/**
 * Reads a node stream (IncomingMessage or any Readable) with a byte limit. A Content-Length above
 * the limit fails before anything is read; a chunked body fails as soon as it passes the limit.
 */
export function readNodeBody(
  stream: NodeJS.ReadableStream & { headers?: Record<string, string | string[] | undefined> },
  limit: number,
): Promise<Buffer> {
  const declared = stream.headers?.['content-length'];
  if (typeof declared === 'string' && Number(declared) > limit) {
    return Promise.reject(new BodyTooLargeError(limit));
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    // Once settled, later events are ignored rather than the listeners removed: the request
    // is done with, and the error listener keeps a late error from going unhandled.
    let settled = false;
    stream.on('data', (chunk: Buffer | string) => {
      if (settled) return;
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += buf.length;
      if (size > limit) {
        settled = true;
        // Stop reading; the reply carries `Connection: close` so the rest is never parsed.
        stream.pause();
        reject(new BodyTooLargeError(limit));
        return;
      }
      chunks.push(buf);
    });
    stream.on('end', () => {
      if (settled) return;
      settled = true;
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    });
    // A request stream fails only when its connection does ('aborted', ECONNRESET).
    stream.on('error', (err: Error) => {
      if (settled) return;
      settled = true;
      reject(new ClientGoneError(err));
    });
    // A client that goes away mid-body may emit only 'close': never leave the read pending.
    stream.on('close', () => {
      if (settled) return;
      settled = true;
      reject(new ClientGoneError());
    });
  });
}

/** Reads a WHATWG body stream (fetch `Request.body`) with a byte limit. */
export async function readWebBody(
  body: ReadableStream<Uint8Array> | null,
  declaredLength: string | null,
  limit: number,
): Promise<Buffer> {
  if (declaredLength !== null && Number(declaredLength) > limit) throw new BodyTooLargeError(limit);
  if (!body) return Buffer.alloc(0);
  const reader = body.getReader();
  const chunks: Buffer[] = [];
  let size = 0;
  for (;;) {
    let chunk: Awaited<ReturnType<typeof reader.read>>;
    try {
      chunk = await reader.read();
    } catch (error) {
      throw new ClientGoneError(error);
    }
    const { done, value } = chunk;
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw new BodyTooLargeError(limit);
    }
    chunks.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
  }
  return Buffer.concat(chunks, size);
}

/**
 * The call context of an HTTP request. Its `signal` is the request's (aborted when the client
 * goes away before the reply), read lazily: most operations never look at it.
 */
export function httpCallContext(
  req: HttpRequest,
  init: Omit<Partial<ServerCallContext>, 'signal'>,
): ServerCallContext {
  const ctx = createCallContext(init, 'signal' in req ? req : undefined);
  attachTraceCarrier(ctx, req.header('traceparent'), req.header('tracestate')); // observability (issue 15)
  return ctx;
}

// ---- request validation -------------------------------------------------------------------

/**
 * Validates and normalizes the params of `method` with the model's request validators.
 * Throws InvalidParamsError naming the fields.
 */
export function decodeRequest<T>(method: A2AMethod, params: unknown): T {
  return parseRequest(method, params) as T;
}

// ---- dispatch to the RequestHandler (the gRPC binding uses it too) -----------------------

type UnaryCall = (handler: RequestHandler, request: never, ctx: ServerCallContext) => Promise<unknown>;

const UNARY: Partial<Record<A2AMethod, UnaryCall>> = {
  SendMessage: (h, r, c) => h.sendMessage(r, c),
  GetTask: (h, r, c) => h.getTask(r, c),
  ListTasks: (h, r, c) => h.listTasks(r, c),
  CancelTask: (h, r, c) => h.cancelTask(r, c),
  CreateTaskPushNotificationConfig: (h, r, c) => h.createTaskPushNotificationConfig(r, c),
  GetTaskPushNotificationConfig: (h, r, c) => h.getTaskPushNotificationConfig(r, c),
  ListTaskPushNotificationConfigs: (h, r, c) => h.listTaskPushNotificationConfigs(r, c),
  DeleteTaskPushNotificationConfig: (h, r, c) => h.deleteTaskPushNotificationConfig(r, c),
  GetExtendedAgentCard: (h, r, c) => h.getExtendedAgentCard(r, c),
};

/** Calls the unary operation `method` (any but the two streaming ones). */
export function invokeUnary(
  handler: RequestHandler,
  method: A2AMethod,
  request: unknown,
  ctx: ServerCallContext,
): Promise<unknown> {
  const call = UNARY[method];
  if (!call) return Promise.reject(new Error(`${method} is a streaming operation`));
  return call(handler, request as never, ctx);
}

/** Calls one of the two streaming operations; rejects before the first event for early errors. */
export function invokeStreaming(
  handler: RequestHandler,
  method: A2AMethod,
  request: unknown,
  ctx: ServerCallContext,
): Promise<AsyncIterable<StreamResponse>> {
  return method === 'SubscribeToTask'
    ? handler.subscribeToTask(request as SubscribeToTaskRequest, ctx)
    : handler.sendStreamingMessage(request as SendMessageRequest, ctx);
}
