/**
 * The HTTP plumbing both HTTP bindings share: service parameters on every request
 * (CLI-VER-1, CLI-EXT-1), timeouts and cancellation, and network failures as typed errors.
 */
import { PROTOCOL_VERSION } from '../../model/operations.js';
import type { CallOptions } from '../transport.js';
import {
  A2AInvalidResponseError,
  A2ATimeoutError,
  A2ATransportError,
  networkCode,
} from '../../errors/client-errors.js';

/** Options shared by {@link JsonRpcTransport} and {@link RestTransport}. */
export interface HttpTransportOptions {
  /** The fetch implementation. @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Headers sent with every request (credentials, tracing...). */
  headers?: Record<string, string>;
  /** Extension URIs requested on every call, sent as `A2A-Extensions` (CLI-EXT-2). */
  extensions?: readonly string[];
  /** Default per-call timeout in ms (for streams: until the response starts). @default 60000 */
  timeoutMs?: number;
  /** A stream silent for this long (no event, no keep-alive) fails. @default 60000 */
  streamIdleTimeoutMs?: number;
}

/** Resolved per-request pieces. */
export interface HttpCall {
  method: 'GET' | 'POST' | 'DELETE';
  url: string;
  body?: string;
  contentType?: string;
  accept: string;
}

/** Sends one request; rejects with A2ATransportError / A2ATimeoutError on network trouble. */
export async function sendHttp(
  options: HttpTransportOptions,
  call: HttpCall,
  callOptions: CallOptions = {},
  streaming = false,
): Promise<{ response: Response; done: () => void }> {
  const fetchImpl = options.fetch ?? globalThis.fetch;
  // Header names are case-insensitive: a Headers object lets a per-call value replace a
  // default whatever its spelling, while extensions accumulate.
  const headers = new Headers(options.headers);
  headers.set('accept', call.accept);
  headers.set('a2a-version', PROTOCOL_VERSION);
  if (call.contentType) headers.set('content-type', call.contentType);
  const extensions = options.extensions ?? [];
  if (extensions.length > 0) headers.set('a2a-extensions', extensions.join(', '));
  for (const [k, v] of Object.entries(callOptions.headers ?? {})) {
    if (k.toLowerCase() === 'a2a-extensions') headers.append(k, v);
    else headers.set(k, v);
  }
  let url = call.url;
  if (callOptions.query && Object.keys(callOptions.query).length > 0) {
    const u = new URL(url);
    for (const [k, v] of Object.entries(callOptions.query)) u.searchParams.set(k, v);
    url = u.toString();
  }
  const timeoutMs = callOptions.timeoutMs ?? options.timeoutMs ?? 60_000;
  const timeout = new AbortController();
  const timer = setTimeout(
    () => timeout.abort(new A2ATimeoutError(`no response within ${timeoutMs} ms from ${url}`, timeoutMs)),
    timeoutMs,
  );
  const signal = callOptions.signal ? AbortSignal.any([callOptions.signal, timeout.signal]) : timeout.signal;
  const done = () => clearTimeout(timer);
  try {
    const response = await fetchImpl(url, {
      method: call.method,
      headers,
      body: call.body,
      signal,
    });
    // A stream's time limit covers only the wait for its start; the idle timeout takes over.
    if (streaming) done();
    return { response, done };
  } catch (error) {
    done();
    if (timeout.signal.aborted && !callOptions.signal?.aborted) throw timeout.signal.reason;
    if (callOptions.signal?.aborted) throw callOptions.signal.reason ?? error;
    const code = networkCode(error);
    throw new A2ATransportError(
      `${call.method} ${url} failed: ${code ?? (error instanceof Error ? error.message : String(error))}`,
      { cause: error, networkCode: code },
    );
  }
}

/** Reads the whole body as text, mapping a broken connection or timeout to typed errors. */
export async function readText(
  response: Response,
  url: string,
  done: () => void,
  signal?: AbortSignal,
): Promise<string> {
  try {
    return await response.text();
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    if (error instanceof A2ATimeoutError) throw error;
    const reason = (error as { cause?: unknown })?.cause ?? error;
    if (reason instanceof A2ATimeoutError) throw reason;
    const code = networkCode(error);
    throw new A2ATransportError(`reading the response of ${url} failed: ${code ?? String(error)}`, {
      cause: error,
      networkCode: code,
    });
  } finally {
    done();
  }
}

/** True when the response is an SSE stream. */
export function isEventStream(contentType: string | null): boolean {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() === 'text/event-stream';
}

/** The error for a streaming call whose answer (to `what`) is not an SSE stream. */
export function notAnEventStream(what: string, response: Response): A2AInvalidResponseError {
  return new A2AInvalidResponseError(
    'content-type',
    `the server answered ${what} with ${response.headers.get('content-type') ?? 'no content type'}, not an event stream`,
  );
}
