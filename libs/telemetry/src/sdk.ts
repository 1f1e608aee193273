/**
 * The OpenTelemetry Node SDK for one process, configured by the standard OTEL_* variables
 * (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_TRACES_EXPORTER, OTEL_SERVICE_NAME …). Off unless an exporter
 * is configured: the project's spans are then no-ops that pass trace context on unchanged.
 */
import type * as HttpInstrumentationModule from '@opentelemetry/instrumentation-http';
import type * as PgInstrumentationModule from '@opentelemetry/instrumentation-pg';
import type * as RedisInstrumentationModule from '@opentelemetry/instrumentation-redis';
import type * as SdkModule from '@opentelemetry/sdk-node';
import type * as PrometheusModule from '@opentelemetry/exporter-prometheus';
import type * as OtlpMetricsModule from '@opentelemetry/exporter-metrics-otlp-http';
import type * as MetricsSdkModule from '@opentelemetry/sdk-metrics';
import { metrics } from '@opentelemetry/api';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

type Env = Readonly<Record<string, string | undefined>>;

/** True when this environment asks for traces: an exporter named (not `none`) or an OTLP endpoint. */
export function tracingConfigured(env: Env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters =
    env.OTEL_TRACES_EXPORTER?.split(',')
      .map((name) => name.trim())
      .filter(Boolean) ?? [];
  if (exporters.length > 0) return !exporters.every((name) => name === 'none');
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/** True when this environment asks for metrics over OTLP: named in OTEL_METRICS_EXPORTER, or an endpoint with none named. */
export function otlpMetricsConfigured(env: Env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters =
    env.OTEL_METRICS_EXPORTER?.split(',')
      .map((name) => name.trim())
      .filter(Boolean) ?? [];
  if (exporters.length > 0) return exporters.includes('otlp') && !exporters.includes('none');
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT?.trim());
}

/**
 * Where a process serves Prometheus's `/metrics`: METRICS_PORT (off when unset; never the
 * gateway's public port), on METRICS_HOST (loopback unless the deployment opens it). A bad value
 * is refused rather than ignored.
 */
export function metricsEndpointOf(env: Env): { host: string; port: number } | undefined {
  const raw = env.METRICS_PORT?.trim();
  if (!raw) return undefined;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new Error(`METRICS_PORT must be a port number (0-65535), not ${JSON.stringify(raw)}`);
  return { host: env.METRICS_HOST?.trim() || '127.0.0.1', port };
}

export interface MetricsEndpoint {
  /** http://host:port/metrics */
  readonly url: string | undefined;
  stop(): Promise<void>;
}

/**
 * Registers the global meter provider with a Prometheus reader served at `prometheus` (its own
 * small HTTP server: GET /metrics, 404 otherwise) and/or an OTLP reader. Nothing when neither.
 */
export async function startMetrics(options: {
  prometheus?: { host: string; port: number } | undefined;
  otlp?: boolean;
}): Promise<MetricsEndpoint> {
  if (!options.prometheus && !options.otlp) return { url: undefined, stop: async () => undefined };
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded only when metrics are on */
  const { MeterProvider, PeriodicExportingMetricReader } = require('@opentelemetry/sdk-metrics') as typeof MetricsSdkModule;
  const { PrometheusExporter } = require('@opentelemetry/exporter-prometheus') as typeof PrometheusModule;
  /* eslint-enable @typescript-eslint/no-require-imports */
  const readers: MetricsSdkModule.IMetricReader[] = [];
  let url: string | undefined;
  let closeServer = async () => undefined as void;
  if (options.prometheus) {
    const exporter = new PrometheusExporter({ preventServerStart: true });
    readers.push(exporter);
    const server = createServer((req, res) => {
      if (req.method === 'GET' && (req.url ?? '').split('?')[0] === '/metrics') return exporter.getMetricsRequestHandler(req, res);
      res.statusCode = 404;
      res.end();
    });
    const { host, port } = options.prometheus;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    url = `http://${host.includes(':') ? `[${host}]` : host}:${(server.address() as AddressInfo).port}/metrics`;
    closeServer = () => new Promise<void>((resolve) => server.close(() => resolve()));
  }
  if (options.otlp) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when exporting
    const { OTLPMetricExporter } = require('@opentelemetry/exporter-metrics-otlp-http') as typeof OtlpMetricsModule;
    readers.push(new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter() }));
  }
  const provider = new MeterProvider({ readers });
  metrics.setGlobalMeterProvider(provider);
  return {
    url,
    async stop() {
      await closeServer();
      await provider.shutdown();
      metrics.disable();
    },
  };
}

/** Whether this process's SDK has been started (a second would instrument everything twice). */
let started = false;

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
  // Once per process: `npm start` starts it itself, and NODE_OPTIONS=--require @vus/telemetry/register may have already.
  if (started || !tracingConfigured(env)) return { stop: async () => undefined };
  started = true;
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded only when tracing is on */
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof SdkModule;
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http') as typeof HttpInstrumentationModule;
  const { PgInstrumentation } = require('@opentelemetry/instrumentation-pg') as typeof PgInstrumentationModule;
  const { RedisInstrumentation } = require('@opentelemetry/instrumentation-redis') as typeof RedisInstrumentationModule;
  /* eslint-enable @typescript-eslint/no-require-imports */
  const sdk = new NodeSDK({
    ...(serviceName && !env.OTEL_SERVICE_NAME ? { serviceName } : {}),
    // Metrics are startMetrics's (Prometheus and OTLP readers); logs go through pino.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      // Incoming requests are not patched at all: an ignored one (ignoreIncomingRequestHook) runs its
      // handler with tracing suppressed, and every span under the gateway's own then came out empty.
      new HttpInstrumentation({ disableIncomingRequestInstrumentation: true }),
      new PgInstrumentation({ requireParentSpan: true }),
      new RedisInstrumentation({ requireParentSpan: true }),
    ],
  });
  sdk.start();
  return { stop: () => sdk.shutdown() };
}
