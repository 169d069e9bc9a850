/**
 * Installs the OpenTelemetry SDK pieces the observability tests read: an in-memory span
 * exporter, an in-memory metric reader, the AsyncLocalStorage context manager and the W3C
 * propagator. Global (once per test process: node's runner gives each file its own).
 */
import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';

export const spans = new InMemorySpanExporter();
export const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
export const metricReader = new PeriodicExportingMetricReader({
  exporter: metricExporter,
  exportIntervalMillis: 3_600_000,
});
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
const meterProvider = new MeterProvider({ readers: [metricReader] });

context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
trace.setGlobalTracerProvider(tracerProvider);
metrics.setGlobalMeterProvider(meterProvider);

/** Shuts the providers down (call from the file's `after`). */
export async function shutdownTelemetry(): Promise<void> {
  await tracerProvider.shutdown();
  await meterProvider.shutdown();
}
