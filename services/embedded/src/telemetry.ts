/**
 * Tracing for `npm start`, from the standard variables (OTEL_TRACES_EXPORTER, OTEL_EXPORTER_OTLP_ENDPOINT,
 * OTEL_SERVICE_NAME …) with no NODE_OPTIONS: main.ts imports this module first, so the SDK starts
 * before pg, http and the rest are loaded. Only when main.js is the program: a test or a script that
 * imports startEmbedded keeps its own telemetry (or none).
 */
import { beforeProcessExit } from '@vus/core';
import { startTelemetry } from '@vus/telemetry/sdk';
import { join } from 'node:path';

/** The service name spans carry when OTEL_SERVICE_NAME does not say. */
export const EMBEDDED_SERVICE_NAME = 'vus-embedded';

if (require.main?.filename === join(__dirname, 'main.js')) {
  const telemetry = startTelemetry(process.env, EMBEDDED_SERVICE_NAME);
  beforeProcessExit(() => telemetry.stop());
}
