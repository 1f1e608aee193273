/**
 * The OpenTelemetry Node SDK for one process, configured by the standard OTEL_* variables
 * (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_TRACES_EXPORTER, OTEL_SERVICE_NAME …). Off unless an exporter
 * is configured: the project's spans are then no-ops that pass trace context on unchanged.
 */
import type * as HttpInstrumentationModule from '@opentelemetry/instrumentation-http';
import type * as PgInstrumentationModule from '@opentelemetry/instrumentation-pg';
import type * as RedisInstrumentationModule from '@opentelemetry/instrumentation-redis';
import type * as SdkModule from '@opentelemetry/sdk-node';

type Env = Readonly<Record<string, string | undefined>>;

/** True when this environment asks for traces: an exporter named (not `none`) or an OTLP endpoint. */
export function tracingConfigured(env: Env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = env.OTEL_TRACES_EXPORTER?.split(',').map((name) => name.trim()).filter(Boolean) ?? [];
  if (exporters.length > 0) return !exporters.every((name) => name === 'none');
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

export interface Telemetry {
  /** Flushes what is buffered and stops exporting. */
  stop(): Promise<void>;
}

/**
 * Starts the SDK when `env` (the process's) asks for it. Call it before the modules it instruments are loaded (pg, the
 * Redis client, http): `node --require @vus/telemetry/register` does. gRPC, the event bus, jobs and
 * the gateway's routes make their own spans (libs/grpc, libs/events, libs/jobs); incoming HTTP is
 * left to the gateway's route spans, outgoing HTTP (webhooks, model providers) is instrumented here.
 */
export function startTelemetry(env: Env, serviceName?: string): Telemetry {
  if (!tracingConfigured(env)) return { stop: async () => undefined };
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded only when tracing is on */
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof SdkModule;
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http') as typeof HttpInstrumentationModule;
  const { PgInstrumentation } = require('@opentelemetry/instrumentation-pg') as typeof PgInstrumentationModule;
  const { RedisInstrumentation } = require('@opentelemetry/instrumentation-redis') as typeof RedisInstrumentationModule;
  /* eslint-enable @typescript-eslint/no-require-imports */
  const sdk = new NodeSDK({
    ...(serviceName && !env.OTEL_SERVICE_NAME ? { serviceName } : {}),
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: () => true }),
      new PgInstrumentation({ requireParentSpan: true }),
      new RedisInstrumentation({ requireParentSpan: true }),
    ],
  });
  sdk.start();
  return { stop: () => sdk.shutdown() };
}
