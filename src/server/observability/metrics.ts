/**
 * Metrics through `@opentelemetry/api`: no-op unless the application installs a MeterProvider
 * (before creating the server: instruments are made when the server is).
 */
import {
  createNoopMeter,
  metrics,
  type Counter,
  type Histogram,
  type UpDownCounter,
} from '@opentelemetry/api';
import type { ServerInterceptor } from '../../core/handler/interceptor.js';
import type { StreamResponse } from '../../model/schema.js';
import { bindingOf, errorCodeOf, watchStream } from './call-facts.js';

/** The instrumentation scope name of every a2a-kit span and metric. */
export const INSTRUMENTATION_SCOPE = 'a2a-kit';

/** The server's instruments (docs/observability.md lists names and attributes). */
export interface ServerInstruments {
  /** `a2a.server.requests`: operations served, by `a2a.operation`, `a2a.binding`, `a2a.outcome`. */
  readonly requests: Counter;
  /** `a2a.server.request.duration` (s): time to the response (streams: to their end). */
  readonly requestDuration: Histogram;
  /** `a2a.server.active_streams`: open SendStreamingMessage / SubscribeToTask streams. */
  readonly activeStreams: UpDownCounter;
  /** `a2a.agent.executions.running`: agent `execute()` calls in progress. */
  readonly runningExecutions: UpDownCounter;
  /** `a2a.agent.executions`: finished `execute()` calls, by `a2a.outcome` (`ok`, `error`). */
  readonly executions: Counter;
  /** `a2a.tasks.active`: non-terminal tasks this process is running, by `a2a.task.state`. */
  readonly activeTasks: UpDownCounter;
  /** `a2a.task.transitions`: task state changes, by the new `a2a.task.state`. */
  readonly taskTransitions: Counter;
}

/** The push worker's instruments. */
export interface PushInstruments {
  /** `a2a.push.deliveries`: finished deliveries, by `a2a.outcome` (`delivered`, `failed`). */
  readonly deliveries: Counter;
  /** `a2a.push.retries`: delivery attempts after the first. */
  readonly retries: Counter;
  /** `a2a.push.delivery.duration` (s): one attempt's time. */
  readonly deliveryDuration: Histogram;
}

/**
 * Whether a MeterProvider is installed. Instruments are bound when made (the metrics API has no
 * proxy), so one installed later is not used by a server made before: the metric wrappers are
 * left out altogether when this is false at the server's creation.
 */
export function metricsAreLive(): boolean {
  return metrics.getMeter(INSTRUMENTATION_SCOPE) !== createNoopMeter();
}

/** Creates the server instruments on the global MeterProvider (no-op when none is installed). */
export function serverInstruments(): ServerInstruments {
  const meter = metrics.getMeter(INSTRUMENTATION_SCOPE);
  return {
    requests: meter.createCounter('a2a.server.requests', { description: 'A2A operations served' }),
    requestDuration: meter.createHistogram('a2a.server.request.duration', {
      description: 'Duration of A2A operations (streams: until they end)',
      unit: 's',
    }),
    activeStreams: meter.createUpDownCounter('a2a.server.active_streams', {
      description: 'Open A2A event streams',
    }),
    runningExecutions: meter.createUpDownCounter('a2a.agent.executions.running', {
      description: 'Agent executions in progress',
    }),
    executions: meter.createCounter('a2a.agent.executions', { description: 'Finished agent executions' }),
    activeTasks: meter.createUpDownCounter('a2a.tasks.active', {
      description: 'Non-terminal tasks by state',
    }),
    taskTransitions: meter.createCounter('a2a.task.transitions', { description: 'Task state changes' }),
  };
}

/** Creates the push worker's instruments on the global MeterProvider. */
export function pushInstruments(): PushInstruments {
  const meter = metrics.getMeter(INSTRUMENTATION_SCOPE);
  return {
    deliveries: meter.createCounter('a2a.push.deliveries', { description: 'Push notification deliveries' }),
    retries: meter.createCounter('a2a.push.retries', { description: 'Push delivery retries' }),
    deliveryDuration: meter.createHistogram('a2a.push.delivery.duration', {
      description: 'Duration of one push delivery attempt',
      unit: 's',
    }),
  };
}

/** Counts and times every operation; tracks open streams. */
export function metricsInterceptor(instruments: ServerInstruments): ServerInterceptor {
  const { requests, requestDuration, activeStreams } = instruments;
  return (next) => (call) => {
    const started = performance.now();
    const binding = bindingOf(call.ctx);
    const base = binding
      ? { 'a2a.operation': call.method, 'a2a.binding': binding }
      : { 'a2a.operation': call.method };
    const record = (outcome: string): void => {
      const attributes = { ...base, 'a2a.outcome': outcome };
      requests.add(1, attributes);
      requestDuration.record((performance.now() - started) / 1000, attributes);
    };
    return next(call).then(
      (result) => {
        if (!call.streaming) {
          record('ok');
          return result;
        }
        activeStreams.add(1, base);
        return watchStream(
          result as AsyncIterable<StreamResponse>,
          () => undefined,
          (error, failed) => {
            activeStreams.add(-1, base);
            record(failed ? errorCodeOf(error) : 'ok');
          },
        );
      },
      (error: unknown) => {
        record(errorCodeOf(error));
        throw error;
      },
    );
  };
}
