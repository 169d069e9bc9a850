/**
 * The W3C trace headers (`traceparent`, `tracestate`) a request arrived with, kept beside its
 * call context so tracing can continue the caller's trace whatever the binding. The bindings
 * record them when present; nothing is stored for requests without them.
 */
import type { ServerCallContext } from './context.js';

/** Trace headers of one call, by their lowercase names. */
export type TraceCarrier = Readonly<Record<string, string>>;

const carriers = new WeakMap<ServerCallContext, TraceCarrier>();

/** Records the trace headers of `ctx`'s request; a call without `traceparent` records nothing. */
export function attachTraceCarrier(
  ctx: ServerCallContext,
  traceparent: string | undefined,
  tracestate: string | undefined,
): void {
  if (traceparent === undefined || traceparent === '') return;
  carriers.set(ctx, tracestate ? { traceparent, tracestate } : { traceparent });
}

/** The trace headers recorded for `ctx`, if any. */
export function traceCarrierOf(ctx: ServerCallContext): TraceCarrier | undefined {
  return carriers.get(ctx);
}
