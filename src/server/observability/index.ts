/**
 * Observability of a server: structured logs (pino), OpenTelemetry traces and metrics. The
 * hosting code calls {@link createObservability} once per server, wraps the handler's parts
 * ({@link Observability.parts}) and the handler itself ({@link Observability.handler}).
 */
import type { Logger } from 'pino';
import type { AgentExecutor } from '../../core/executor.js';
import type { EventBus } from '../../core/event-bus/event-bus.js';
import { interceptHandler, type ServerInterceptor } from '../../core/handler/interceptor.js';
import type { RequestHandler } from '../../core/handler/request-handler.js';
import type { TaskStore } from '../../core/stores/task-store.js';
import { observeExecutor } from './agent.js';
import { loggingInterceptor, pushLogger, type PushLogger } from './logging.js';
import { metricsAreLive, metricsInterceptor, serverInstruments, type ServerInstruments } from './metrics.js';
import { traceTaskStore } from './store-tracing.js';
import { observeEventBus } from './task-events.js';
import { tracingInterceptor } from './tracing.js';

export { createLogger, loggingInterceptor, pushLogger } from './logging.js';
export type { Logger, LoggerOptions, PushDeliveryOutcome, PushLogger } from './logging.js';
export { formatPretty } from './pretty.js';
export { errorField, redactValue, safeUrl, scrubText } from './redact.js';
export { tracingInterceptor, RPC_SERVICE } from './tracing.js';
export { traceTaskStore } from './store-tracing.js';
export { INSTRUMENTATION_SCOPE, metricsInterceptor, pushInstruments, serverInstruments } from './metrics.js';
export type { PushInstruments, ServerInstruments } from './metrics.js';
export { observeExecutor } from './agent.js';
export { observeEventBus } from './task-events.js';

/** Observability settings of a server (the `logger` and `redact` options of createA2AServer). */
export interface ObservabilityOptions {
  /** A pino logger, or `false`/undefined for no logs. */
  logger?: Logger | false | undefined;
  /** Exact secret values to mask wherever they appear in a log line (e.g. configured API keys). */
  secrets?: Iterable<string>;
}

/** One server's observability: its logger, instruments and wrappers. */
export interface Observability {
  /** The logger, when logging is on. */
  readonly logger: Logger | undefined;
  /** The exact values masked in log lines. */
  readonly secrets: ReadonlySet<string> | undefined;
  /** The server's metric instruments. */
  readonly instruments: ServerInstruments;
  /** The logger the push worker reports deliveries through. */
  readonly push: PushLogger;
  /** The logging, tracing and metrics interceptors (outermost first). */
  readonly interceptors: readonly ServerInterceptor[];
  /** The handler's parts wrapped: the agent, the task store, the event bus. */
  parts(parts: { executor: AgentExecutor; taskStore: TaskStore; eventBus: EventBus }): {
    executor: AgentExecutor;
    taskStore: TaskStore;
    eventBus: EventBus;
  };
  /** `handler` behind the interceptors. */
  handler(handler: RequestHandler): RequestHandler;
}

/** Builds a server's observability (instruments on the global MeterProvider, made now). */
export function createObservability(options: ObservabilityOptions = {}): Observability {
  const logger = options.logger || undefined;
  const secrets = options.secrets ? new Set(options.secrets) : undefined;
  const instruments = serverInstruments();
  // Without a MeterProvider the instruments are no-ops for good: leave their wrappers out.
  const metricsLive = metricsAreLive();
  const interceptors: ServerInterceptor[] = [
    ...(logger ? [loggingInterceptor(logger, secrets)] : []),
    tracingInterceptor(),
    ...(metricsLive ? [metricsInterceptor(instruments)] : []),
  ];
  return {
    logger,
    secrets,
    instruments,
    push: pushLogger(logger, secrets),
    interceptors,
    parts: ({ executor, taskStore, eventBus }) => ({
      executor: observeExecutor(executor, {
        logger,
        instruments,
        metricsLive,
        ...(secrets ? { secrets } : {}),
      }),
      taskStore: traceTaskStore(taskStore),
      // Task states are logged at debug only: at info without metrics the watch would do work
      // nobody sees (a map entry and no-op instruments per event). The level is read here, once.
      eventBus:
        metricsLive || logger?.isLevelEnabled('debug')
          ? observeEventBus(eventBus, { logger, instruments })
          : eventBus,
    }),
    handler: (handler) => withClose(interceptHandler(handler, interceptors), handler),
  };
}

/**
 * `wrapped` with `inner`'s optional `close()` (the server calls it on shutdown to abort
 * running agents); interceptHandler's wrapper carries only the operations.
 */
function withClose(wrapped: RequestHandler, inner: RequestHandler): RequestHandler {
  const close = (inner as { close?: () => Promise<void> }).close;
  if (wrapped === inner || typeof close !== 'function') return wrapped;
  return Object.assign(wrapped, { close: () => close.call(inner) });
}
