/**
 * The inspector's record of the wire: every HTTP exchange the backend makes for the page
 * (request and response with headers, each SSE event as it arrives) and every gRPC message,
 * in a bounded ring. Bodies are kept up to a cap and marked when truncated.
 */
import { createParser } from 'eventsource-parser';
import type { ClientCall, ClientInterceptor } from '../client/interceptor.js';
import type { A2AMethod } from '../model/operations.js';
import type { ResponseOf } from '../bindings/transport.js';
import { openStream, streamReply } from '../client/interceptor.js';
import type { StreamResponse } from '../model/schema.js';
import { checkExchange, restMethodOf, type WireProblem } from './wire-check.js';

/** One SSE event or gRPC stream message inside an exchange. */
export interface WireEvent {
  /** Milliseconds since the epoch when it arrived. */
  at: number;
  /** The event's data (SSE) or the message as JSON (gRPC). */
  data: string;
}

/** One request and its response, as sent and received. */
export interface WireExchange {
  /** Increasing number of the exchange in this inspector run. */
  seq: number;
  /** The connection (page session) that made it. */
  session: string;
  /** `JSONRPC`, `HTTP+JSON`, `GRPC`, or `CARD` for the card fetch. */
  binding: string;
  /** The A2A operation when known (`SendMessage`...). */
  method?: string;
  startedAt: number;
  request: { method: string; url: string; headers: Record<string, string>; body: string };
  response?: {
    status: number;
    headers: Record<string, string>;
    body: string;
    /** Bytes received, even when the body kept here was truncated. */
    size: number;
  };
  /** SSE events (or gRPC messages) of a streaming response, in order of arrival. */
  events: WireEvent[];
  /** Events dropped past the per-exchange caps (count, or characters: four bodies' worth). */
  droppedEvents: number;
  /** Characters of event data kept so far. */
  eventChars: number;
  /** Set when the exchange failed without a response, or the stream broke. */
  error?: string;
  endedAt?: number;
  /** Spec violations found in the response, each with the rule it breaks. */
  problems: WireProblem[];
}

/** Caps of a {@link WireLog}. */
export interface WireLogLimits {
  /** Exchanges kept; the oldest go first. @default 500 */
  maxExchanges?: number;
  /** Characters of a body kept. @default 262144 */
  maxBodyChars?: number;
  /** Events kept per exchange. @default 2000 */
  maxEvents?: number;
}

/** The marker appended to a body cut at the cap. */
export const TRUNCATED_MARKER = '\n…[truncated by the inspector]';

/** A bounded ring of exchanges with listeners for new and updated ones. */
export class WireLog {
  private readonly ring: WireExchange[] = [];
  private seq = 0;
  private readonly listeners = new Set<(exchange: WireExchange) => void>();
  readonly maxBodyChars: number;
  readonly maxEvents: number;
  private readonly maxExchanges: number;

  constructor(limits: WireLogLimits = {}) {
    this.maxExchanges = limits.maxExchanges ?? 500;
    this.maxBodyChars = limits.maxBodyChars ?? 262_144;
    this.maxEvents = limits.maxEvents ?? 2000;
  }

  /** Starts recording an exchange. */
  open(fields: Pick<WireExchange, 'session' | 'binding' | 'method' | 'request'>): WireExchange {
    const exchange: WireExchange = {
      ...fields,
      seq: ++this.seq,
      startedAt: Date.now(),
      events: [],
      droppedEvents: 0,
      eventChars: 0,
      problems: [],
    };
    this.ring.push(exchange);
    if (this.ring.length > this.maxExchanges) this.ring.shift();
    this.changed(exchange);
    return exchange;
  }

  /** Tells the listeners that `exchange` changed. */
  changed(exchange: WireExchange): void {
    for (const listener of this.listeners) listener(exchange);
  }

  /** Adds an event to a streaming exchange, within the cap. */
  addEvent(exchange: WireExchange, data: string): void {
    const kept = this.cut(data);
    if (
      exchange.events.length >= this.maxEvents ||
      exchange.eventChars + kept.length > this.maxBodyChars * 4
    ) {
      exchange.droppedEvents++;
      return;
    }
    exchange.eventChars += kept.length;
    exchange.events.push({ at: Date.now(), data: kept });
  }

  /** Ends an exchange: checks the response against the spec and notifies. */
  close(exchange: WireExchange, error?: string): void {
    if (exchange.endedAt !== undefined) return;
    exchange.endedAt = Date.now();
    if (error) exchange.error = error;
    exchange.problems = checkExchange(exchange);
    this.changed(exchange);
  }

  /** `text` cut to the body cap, with the marker when cut. */
  cut(text: string): string {
    return text.length > this.maxBodyChars ? text.slice(0, this.maxBodyChars) + TRUNCATED_MARKER : text;
  }

  /** The exchanges kept, oldest first, optionally after sequence number `after`. */
  list(after = 0, session?: string): WireExchange[] {
    return this.ring.filter((e) => e.seq > after && (!session || e.session === session));
  }

  /** One exchange by its sequence number. */
  get(seq: number): WireExchange | undefined {
    return this.ring.find((e) => e.seq === seq);
  }

  /** Calls `listener` for each new or changed exchange until the returned function is called. */
  subscribe(listener: (exchange: WireExchange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

function headersOf(h: Headers | Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!h) return out;
  if (h instanceof Headers) h.forEach((v, k) => (out[k] = v));
  else for (const [k, v] of Object.entries(h)) out[k.toLowerCase()] = v;
  return out;
}

function bodyText(body: RequestInit['body']): string {
  if (body === undefined || body === null) return '';
  if (typeof body === 'string') return body;
  if (body instanceof URLSearchParams) return body.toString();
  if (body instanceof Uint8Array) return new TextDecoder().decode(body);
  return '[a body the inspector cannot show]';
}

/** Which A2A operation a JSON-RPC body calls, when it is one. */
function jsonRpcMethodOf(body: string): string | undefined {
  try {
    const value = JSON.parse(body) as { method?: unknown };
    return typeof value.method === 'string' ? value.method : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A `fetch` that records each exchange in `log`: the request as sent, the response headers at
 * once, the body as it streams through (cut at the cap), and each SSE event as it arrives.
 */
export function capturingFetch(
  log: WireLog,
  session: string,
  bindingOf: (url: string, body: string) => string,
  inner: typeof fetch = globalThis.fetch,
): typeof fetch {
  return async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.toString() : input.url;
    const body = bodyText(init?.body);
    const binding = bindingOf(url, body);
    const exchange = log.open({
      session,
      binding,
      method:
        binding === 'JSONRPC'
          ? jsonRpcMethodOf(body)
          : binding === 'HTTP+JSON'
            ? restMethodOf(init?.method ?? 'GET', url)
            : undefined,
      request: {
        method: init?.method ?? 'GET',
        url,
        headers: headersOf(init?.headers as Headers | Record<string, string> | undefined),
        body: log.cut(body),
      },
    });
    let response: Response;
    try {
      response = await inner(input, init);
    } catch (error) {
      log.close(exchange, error instanceof Error ? `${error.message}${causeOf(error)}` : String(error));
      throw error;
    }
    exchange.response = { status: response.status, headers: headersOf(response.headers), body: '', size: 0 };
    log.changed(exchange);
    if (!response.body) {
      log.close(exchange);
      return response;
    }
    const isSse = (response.headers.get('content-type') ?? '').includes('text/event-stream');
    const parser = isSse ? createParser({ onEvent: (e) => log.addEvent(exchange, e.data) }) : undefined;
    const decoder = new TextDecoder();
    const record = exchange.response;
    let kept = '';
    const tap = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        record.size += chunk.byteLength;
        const text = decoder.decode(chunk, { stream: true });
        if (kept.length < log.maxBodyChars) kept += text;
        parser?.feed(text);
        if (isSse) log.changed(exchange);
        controller.enqueue(chunk);
      },
      flush() {
        record.body = log.cut(kept);
        log.close(exchange);
      },
    });
    const piped = response.body.pipeThrough(tap);
    // A body the reader abandons, or that breaks, still closes the exchange.
    const wrapped = new Response(
      watchCancel(piped, () => closeBroken(log, exchange, kept)),
      {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      },
    );
    return wrapped;
  };
}

function closeBroken(log: WireLog, exchange: WireExchange, kept: string): void {
  if (exchange.endedAt !== undefined || !exchange.response) return;
  exchange.response.body = log.cut(kept);
  log.close(exchange, 'the reader stopped or the stream broke before its end');
}

/** `stream`, calling `onEnd` when its reader cancels it or it errors. */
function watchCancel(stream: ReadableStream<Uint8Array>, onEnd: () => void): ReadableStream<Uint8Array> {
  const reader = stream.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        onEnd();
        controller.error(error);
      }
    },
    async cancel(reason) {
      onEnd();
      await reader.cancel(reason);
    },
  });
}

function causeOf(error: Error): string {
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? ` (${cause.message})` : '';
}

/**
 * A client interceptor recording gRPC calls (no fetch is involved there): the request
 * message and metadata, then the response message or each stream message.
 */
export function grpcRecorder(log: WireLog, session: string): ClientInterceptor {
  return (next) =>
    async <M extends A2AMethod>(call: ClientCall<M>): Promise<ResponseOf<M>> => {
      if (call.transport.binding !== 'GRPC') return next(call);
      const exchange = log.open({
        session,
        binding: 'GRPC',
        method: call.method,
        request: {
          method: 'POST',
          url: `grpc: lf.a2a.v1.A2AService/${call.method}`,
          headers: headersOf(call.options.headers),
          body: log.cut(JSON.stringify(call.request, null, 2)),
        },
      });
      let reply: ResponseOf<M>;
      try {
        reply = await next(call);
      } catch (error) {
        log.close(exchange, error instanceof Error ? error.message : String(error));
        throw error;
      }
      exchange.response = { status: 0, headers: {}, body: '', size: 0 };
      if (!call.operation.streaming) {
        const text = JSON.stringify(reply ?? {}, null, 2);
        exchange.response.body = log.cut(text);
        exchange.response.size = text.length;
        log.close(exchange);
        return reply;
      }
      const events = await openStream<M>(Promise.resolve(reply));
      async function* recorded(): AsyncGenerator<StreamResponse, void, undefined> {
        try {
          for await (const event of events) {
            log.addEvent(exchange, JSON.stringify(event));
            log.changed(exchange);
            yield event;
          }
          log.close(exchange);
        } catch (error) {
          log.close(exchange, error instanceof Error ? error.message : String(error));
          throw error;
        } finally {
          log.close(exchange, 'the reader stopped before the stream ended');
        }
      }
      return streamReply<M>(recorded());
    };
}
