/**
 * W3C trace context on outgoing calls: the active OpenTelemetry context is injected into the
 * call's headers (`traceparent`, `tracestate`), which every binding sends (HTTP headers, gRPC
 * metadata), so the called agent's spans join the caller's trace. Through
 * `@opentelemetry/api` only: without an installed propagator and an active span nothing is added.
 */
import { context, propagation } from '@opentelemetry/api';
import type { ClientInterceptor } from './interceptor.js';

/** Adds the active trace context to `headers` (in place); headers already set win. */
export function injectTraceContext(headers: Record<string, string>): void {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  for (const key in carrier) {
    const value = carrier[key];
    if (value !== undefined && headers[key] === undefined) headers[key] = value;
  }
}

/** The client interceptor that adds the active trace context to every attempt of every call. */
export const traceContextInterceptor: ClientInterceptor = (next) => (call) => {
  const headers: Record<string, string> = { ...call.options.headers };
  injectTraceContext(headers);
  return next({ ...call, options: { ...call.options, headers } });
};
