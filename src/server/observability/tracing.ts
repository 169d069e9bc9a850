/**
 * OpenTelemetry traces through `@opentelemetry/api` only: a SERVER span per operation that
 * continues the caller's W3C trace (`traceparent` recorded by the binding), with the agent's
 * execution and store calls as children. No-op unless the application installs a
 * TracerProvider; child spans and outgoing propagation need a context manager too (the SDK's
 * NodeSDK / NodeTracerProvider.register() install one).
 */
import {
  ProxyTracerProvider,
  SpanKind,
  SpanStatusCode,
  context,
  propagation,
  trace,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { A2AError } from '../../errors/a2a-error.js';
import type { ServerInterceptor } from '../../core/handler/interceptor.js';
import { traceCarrierOf } from '../../core/trace-carrier.js';
import type { StreamResponse } from '../../model/schema.js';
import {
  bindingOf,
  eventFacts,
  eventKind,
  requestFacts,
  resultFacts,
  rpcSystemOf,
  watchStream,
  type TaskFacts,
} from './call-facts.js';
import { INSTRUMENTATION_SCOPE } from './metrics.js';
import { scrubText } from './redact.js';

/** The gRPC service name, used as `rpc.service` on every binding. */
export const RPC_SERVICE = 'lf.a2a.v1.A2AService';

/** The tracer of a2a-kit (a proxy: an SDK installed later is still used). */
export function a2aTracer(): Tracer {
  return trace.getTracer(INSTRUMENTATION_SCOPE);
}

/** What the API's global proxy delegates to while no SDK is installed. */
const NO_TRACER_PROVIDER = new ProxyTracerProvider().getDelegate();

/**
 * False while no TracerProvider is installed (every span would be a no-op): the wrappers then
 * call straight through, at the price of one property read per call. Read on every call, so an
 * SDK installed after the server starts is used from then on.
 */
export function tracingIsLive(): boolean {
  const provider = trace.getTracerProvider();
  // Another copy of the API (a different version) answers "live": the wrappers then do their work.
  return !(provider instanceof ProxyTracerProvider) || provider.getDelegate() !== NO_TRACER_PROVIDER;
}

/** The liveness test of a wrapper: always live with a tracer given, else {@link tracingIsLive}. */
export function liveness(tracer: Tracer | undefined): () => boolean {
  return tracer ? () => true : tracingIsLive;
}

function setFacts(span: Span, facts: TaskFacts): void {
  if (facts.taskId) span.setAttribute('a2a.task.id', facts.taskId);
  if (facts.contextId) span.setAttribute('a2a.context.id', facts.contextId);
  if (facts.status) span.setAttribute('a2a.task.state', facts.status);
}

/** Marks `span` failed by `error`: protocol errors by code, anything else with the exception. */
export function failSpan(span: Span, error: unknown): void {
  if (error instanceof A2AError) {
    span.setAttribute('a2a.error.code', error.code);
    span.setStatus({ code: SpanStatusCode.ERROR, message: `${error.code}: ${scrubText(error.message)}` });
    return;
  }
  const err = error instanceof Error ? error : new Error(String(error));
  span.recordException({
    name: err.name,
    message: scrubText(err.message),
    ...(err.stack ? { stack: scrubText(err.stack) } : {}),
  });
  span.setStatus({ code: SpanStatusCode.ERROR, message: scrubText(err.message) });
}

/**
 * One SERVER span per operation, named `lf.a2a.v1.A2AService/<Operation>`, with `rpc.system`,
 * `rpc.service`, `rpc.method`, `a2a.binding`, `a2a.task.id`, `a2a.context.id`,
 * `a2a.task.state`. The operation runs with the span active (so the agent's spans and calls
 * are its children). A stream's events become span events; the span ends with the stream.
 */
export function tracingInterceptor(given?: Tracer): ServerInterceptor {
  const tracer = given ?? a2aTracer();
  const live = liveness(given);
  return (next) => (call) => {
    if (!live()) return next(call);
    const carrier = traceCarrierOf(call.ctx);
    const active = context.active();
    const parent = carrier ? propagation.extract(active, carrier) : active;
    const span = tracer.startSpan(
      `${RPC_SERVICE}/${call.method}`,
      { kind: SpanKind.SERVER, attributes: { 'rpc.service': RPC_SERVICE, 'rpc.method': call.method } },
      parent,
    );
    // Nothing recorded and no caller's trace to continue: skip making the span active. (Activating
    // it costs a context switch on every promise of the call; the price is that an unsampled root
    // decision is not propagated to the agents this one calls, which then decide on their own.)
    if (!span.isRecording() && !carrier) return next(call);
    const binding = bindingOf(call.ctx);
    const system = rpcSystemOf(binding);
    if (system) span.setAttribute('rpc.system', system);
    if (binding) span.setAttribute('a2a.binding', binding);
    if (call.ctx.tenant) span.setAttribute('a2a.tenant', call.ctx.tenant);
    const facts = requestFacts(call);
    setFacts(span, facts);
    return context
      .with(trace.setSpan(parent, span), () => next(call))
      .then(
        (result) => {
          if (!call.streaming) {
            setFacts(span, resultFacts(call.method, result, facts));
            span.end();
            return result;
          }
          return watchStream(
            result as AsyncIterable<StreamResponse>,
            (event) => {
              eventFacts(event, facts);
              span.addEvent(eventKind(event), facts.status ? { 'a2a.task.state': facts.status } : undefined);
            },
            (error, failed) => {
              setFacts(span, facts);
              if (failed) failSpan(span, error);
              span.end();
            },
          );
        },
        (error: unknown) => {
          failSpan(span, error);
          span.end();
          throw error;
        },
      );
  };
}
