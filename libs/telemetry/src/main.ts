/**
 * `node --require @vus/telemetry/register main.js` (or NODE_OPTIONS): starts the SDK (when OTEL_*
 * asks for it) before the service's modules load, so that pg, Redis and http are instrumented, and
 * the metrics (Prometheus on METRICS_PORT, OTLP when configured). The service is named by
 * OTEL_SERVICE_NAME. What is buffered is flushed once the service has stopped.
 *
 * Only for a script: `node -e` (a container's health check, which inherits NODE_OPTIONS) starts
 * nothing, so it neither traces nor competes for the metrics port.
 */
import { beforeProcessExit } from '@vus/core';
import { metricsEndpointOf, otlpMetricsConfigured, startMetrics, startTelemetry } from './sdk';

if (process.argv[1]) {
  const telemetry = startTelemetry(process.env);
  beforeProcessExit(() => telemetry.stop());
  startMetrics({ prometheus: metricsEndpointOf(process.env), otlp: otlpMetricsConfigured(process.env) }).then(
    (endpoint) => beforeProcessExit(() => endpoint.stop()),
    (error: unknown) => {
      process.stderr.write(`metrics endpoint could not start: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
