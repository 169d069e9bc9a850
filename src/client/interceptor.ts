/**
 * Client interceptors: an onion `(next) => (call) => ...` around every operation a client
 * sends, typed per operation. The client's own habits (retries, failover, credentials and
 * re-authentication, the interface's tenant, gRPC call defaults) are interceptors too; a
 * caller's interceptors run innermost, once per attempt, with the credentials already set.
 */
import type { A2AMethod, OperationInfo } from '../model/operations.js';
import { A2A_METHODS, OPERATIONS } from '../model/operations.js';
import {
  callTransport,
  transportMethodOf,
  type CallOptions,
  type RequestOf,
  type ResponseOf,
  type Transport,
} from '../bindings/transport.js';
import type { StreamResponse } from '../model/schema.js';

/** One call of operation `M` as it passes through the interceptors. */
export interface ClientCall<M extends A2AMethod = A2AMethod> {
  /** The operation, by its v1.0 name (`SendMessage`, `GetTask`, ...). */
  readonly method: M;
  /** The operation's row of the table: streaming, retry safety, capability. */
  readonly operation: OperationInfo;
  /** The request message. */
  readonly request: RequestOf<M>;
  /** Per-call options: signal, headers (credentials included), timeout, query. */
  readonly options: CallOptions;
  /** The transport the call goes to; failover replaces it. */
  readonly transport: Transport;
  /**
   * Most attempts the retry interceptor may make; undefined for the client's policy. The
   * resilient stream helpers pass 1: they are the retry policy of their own steps.
   */
  readonly maxAttempts?: number;
}

/**
 * Runs a call: the next interceptor, or the transport. Resolves to the operation's response or,
 * for SendStreamingMessage and SubscribeToTask, to its event iterable (an interceptor may wrap
 * it to watch or re-open the stream).
 */
export type ClientNext = <M extends A2AMethod>(call: ClientCall<M>) => Promise<ResponseOf<M>>;

/**
 * Wraps every call of a client. The first interceptor of a list is the outermost.
 * @example
 * const trace: ClientInterceptor = (next) => async (call) => {
 *   const started = performance.now();
 *   try {
 *     return await next({ ...call, options: { ...call.options, headers: { ...call.options.headers, 'x-trace': newId() } } });
 *   } finally {
 *     console.log(call.method, performance.now() - started);
 *   }
 * };
 */
export type ClientInterceptor = (next: ClientNext) => ClientNext;

/** True when `call` is a call of `method`: narrows its request type. */
export function isCallOf<M extends A2AMethod>(call: ClientCall, method: M): call is ClientCall<M> {
  return call.method === method;
}

/** The end of every chain: the call's transport. */
export const sendToTransport: ClientNext = (call) =>
  Promise.resolve(callTransport(call.transport, call.method, call.request, call.options)) as Promise<
    ResponseOf<typeof call.method>
  >;

/** `terminal` wrapped by `interceptors`, the first outermost. */
export function applyInterceptors(
  interceptors: readonly ClientInterceptor[],
  terminal: ClientNext = sendToTransport,
): ClientNext {
  let next = terminal;
  for (let i = interceptors.length - 1; i >= 0; i--) next = (interceptors[i] as ClientInterceptor)(next);
  return next;
}

/** A fresh call of `method` on `transport`. */
export function newCall<M extends A2AMethod>(
  method: M,
  request: RequestOf<M>,
  transport: Transport,
  options: CallOptions = {},
  maxAttempts?: number,
): ClientCall<M> {
  return {
    method,
    operation: OPERATIONS[method],
    request,
    options,
    transport,
    ...(maxAttempts !== undefined ? { maxAttempts } : {}),
  };
}

/**
 * Re-reads a stream that failed before its first event: `open` gives the events of one try,
 * `retry(error)` says whether to open again (it may throw a better error). Once an event came,
 * a failure is final: the stream may have delivered its message.
 */
export async function* reopenBeforeFirstEvent<T>(
  open: () => Promise<AsyncIterable<T>>,
  retry: (error: unknown) => Promise<boolean>,
  onFirstEvent?: () => void,
): AsyncGenerator<T, void, undefined> {
  for (;;) {
    let yielded = false;
    try {
      for await (const event of await open()) {
        if (!yielded) onFirstEvent?.();
        yielded = true;
        yield event;
      }
      return;
    } catch (error) {
      if (yielded || !(await retry(error))) throw error;
    }
  }
}

/** An event iterable as the reply of streaming operation `M` (for interceptors that wrap one). */
export function streamReply<M extends A2AMethod>(
  events: AsyncIterable<StreamResponse>,
): Promise<ResponseOf<M>> {
  return Promise.resolve(events as unknown as ResponseOf<M>);
}

/** The event iterable of a streaming call's reply. */
export async function openStream<M extends A2AMethod>(
  reply: Promise<ResponseOf<M>>,
): Promise<AsyncIterable<StreamResponse>> {
  return (await reply) as unknown as AsyncIterable<StreamResponse>;
}

/** A transport whose every operation runs through interceptors (see {@link interceptTransport}). */
export interface InterceptedTransport extends Transport {
  /** The transport the interceptors wrap. */
  readonly inner: Transport;
}

const intercepted = new WeakSet<Transport>();

/** True when `transport` was made by {@link interceptTransport}. */
export function isInterceptedTransport(transport: Transport): transport is InterceptedTransport {
  return intercepted.has(transport);
}

/**
 * `inner` with `interceptors` around each of its operations, the first outermost: a Transport
 * again, built from the operation table (streams stay lazy: nothing is sent before the first
 * read).
 */
export function interceptTransport(
  inner: Transport,
  interceptors: readonly ClientInterceptor[],
): InterceptedTransport {
  const run = applyInterceptors(interceptors);
  const transport: Record<string, unknown> = {
    binding: inner.binding,
    inner,
    close: () => inner.close(),
  };
  for (const method of A2A_METHODS) {
    transport[transportMethodOf(method)] = OPERATIONS[method].streaming
      ? (request: RequestOf<typeof method>, options?: CallOptions) =>
          lazyEvents(run, newCall(method, request, inner, options))
      : (request: RequestOf<typeof method>, options?: CallOptions) =>
          run(newCall(method, request, inner, options));
  }
  const result = transport as unknown as InterceptedTransport;
  intercepted.add(result);
  return result;
}

async function* lazyEvents(
  run: ClientNext,
  call: ClientCall,
): AsyncGenerator<StreamResponse, void, undefined> {
  yield* await openStream(run(call));
}
