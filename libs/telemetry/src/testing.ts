/**
 * Spans and metrics recorded in memory, for tests: each registers its provider (spans also the
 * async-hooks context manager, as the Node SDK would) globally for this test file until `stop`.
 */
import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';

/** A recorded span (the SDK's type, so that tests need not depend on the SDK themselves). */
export type { ReadableSpan, ResourceMetrics };

export interface RecordedSpans {
  /** Every span ended so far. */
  spans(): ReadableSpan[];
  reset(): void;
  stop(): Promise<void>;
}

export function recordSpans(): RecordedSpans {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  trace.setGlobalTracerProvider(provider);
  return {
    spans: () => exporter.getFinishedSpans(),
    reset: () => exporter.reset(),
    async stop() {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

export interface RecordedMetrics {
  /** What was measured since the last call (cumulative points), exported now. */
  collect(): Promise<ResourceMetrics[]>;
  stop(): Promise<void>;
}

/** Metrics recorded in memory, for tests: registers a meter provider globally until `stop`. */
export function recordMetrics(): RecordedMetrics {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  // Exported when collected, not on a timer.
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 60_000 });
  const provider = new MeterProvider({ readers: [reader] });
  metrics.setGlobalMeterProvider(provider);
  return {
    async collect() {
      await reader.forceFlush();
      const collected = exporter.getMetrics();
      exporter.reset();
      return collected;
    },
    async stop() {
      await provider.shutdown();
      metrics.disable();
    },
  };
}
