/**
 * `node --require @vus/telemetry/register main.js`: starts the SDK (when OTEL_* asks for it)
 * before the service's modules load, so that pg, Redis and http are instrumented. The service is
 * named by OTEL_SERVICE_NAME. What is buffered is flushed once the service has stopped.
 */
import { beforeProcessExit } from '@vus/core';
import { startTelemetry } from './sdk';

const telemetry = startTelemetry(process.env);
beforeProcessExit(() => telemetry.stop());
