/**
 * What the v0.3 servers share: the call context of a v0.3 request (version `0.3`, extensions from
 * `X-A2A-Extensions` or `A2A-Extensions`), and an SSE source whose error frame can be named.
 */
import { A2AError, toA2AError } from '../../errors/a2a-error.js';
import {
  createCallContext,
  type Principal,
  type ProtocolBindingName,
  type ServerCallContext,
} from '../../core/context.js';
import { attachTraceCarrier } from '../../core/trace-carrier.js'; // observability (issue 15)
import type { RequestHandler } from '../../core/handler/request-handler.js';
import type { HttpRequest, SseSource } from '../http/http-body.js';
import {
  EXTENSIONS_HEADER,
  LEGACY_EXTENSIONS_HEADER,
  VERSION_HEADER,
  checkRequiredExtensions,
  parseExtensions,
  versionFromQuery,
} from '../http/service-params.js';
import { IterableSseSource } from '../http/sse.js';
import type { Authenticate } from '../auth-request.js';

/** The version v0.3 requests are served with (`ServerCallContext.protocolVersion`). */
export const V03_VERSION = '0.3';

/** Options of the v0.3 bindings. */
export interface V03BindingOptions {
  /** Largest accepted body in bytes. */
  bodyLimit: number;
  /** Called with failures that are not protocol errors. */
  onError?: (error: unknown) => void;
  /** Resolves the caller of each request, as on the v1.0 bindings. @default anonymous */
  authenticate?: Authenticate;
}

/** The `A2A-Version` a request names (header, else query parameter); `undefined` when none. */
export function requestedVersion(req: HttpRequest): string | undefined {
  const value = req.header(VERSION_HEADER) ?? versionFromQuery(req.query);
  return value === undefined || value.trim() === '' ? undefined : value;
}

/**
 * The call context of a v0.3 request for its caller (authenticated before the body was read),
 * and the extensions: v0.3 clients send `X-A2A-Extensions` (both names are read; activated
 * extensions are echoed under the one the client used).
 */
export function v03CallContext(
  handler: RequestHandler,
  req: HttpRequest,
  streaming: boolean,
  binding: ProtocolBindingName,
  principal: Principal,
): { ctx: ServerCallContext; extensionsHeader: string } {
  const current = req.headerValues(EXTENSIONS_HEADER);
  const legacy = req.headerValues(LEGACY_EXTENSIONS_HEADER);
  const requested = parseExtensions([...legacy, ...current]);
  const activated = new Set<string>();
  checkRequiredExtensions(handler.agentCard(), requested, activated);
  const ctx = createCallContext({
    binding,
    principal,
    requestedExtensions: requested,
    activatedExtensions: activated,
    protocolVersion: V03_VERSION,
    ...(streaming && req.signal ? { signal: req.signal } : {}),
  });
  attachTraceCarrier(ctx, req.header('traceparent'), req.header('tracestate')); // observability (issue 15)
  return {
    ctx,
    extensionsHeader:
      legacy.length > 0 || current.length === 0 ? LEGACY_EXTENSIONS_HEADER : EXTENSIONS_HEADER,
  };
}

/** The activated-extensions header of a reply, when any were activated. */
export function extensionHeaders(ctx: ServerCallContext, name: string): Record<string, string> {
  return ctx.activatedExtensions.size === 0 ? {} : { [name]: [...ctx.activatedExtensions].join(', ') };
}

/** Turns anything thrown into an A2AError, reporting what is not a protocol error. */
export function protocolError(error: unknown, onError: ((error: unknown) => void) | undefined): A2AError {
  if (!(error instanceof A2AError)) onError?.(error);
  return toA2AError(error);
}

/**
 * An SSE source of encoded events whose error frame is sent as `event: <name>` (the v0.3 REST
 * SDKs only read an error from an `event: error` frame); without a name, errors are plain frames.
 */
export class V03SseSource<T> implements SseSource {
  private readonly inner: IterableSseSource<T>;
  private errored = false;

  constructor(
    events: AsyncIterable<T>,
    encode: (event: T) => string,
    encodeError: (error: unknown) => string,
    private readonly errorEvent?: string,
  ) {
    this.inner = new IterableSseSource(events, encode, (error) => {
      this.errored = true;
      return encodeError(error);
    });
  }

  async next(): Promise<string | undefined> {
    const frame = await this.inner.next();
    if (frame !== undefined && this.errored && this.errorEvent) {
      this.errored = false;
      return `event: ${this.errorEvent}\n` + frame;
    }
    return frame;
  }

  stop(): void {
    this.inner.stop();
  }
}
