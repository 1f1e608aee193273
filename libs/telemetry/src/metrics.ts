import { metrics, type Attributes, type Counter, type Gauge, type Histogram, type Meter, type MeterProvider } from '@opentelemetry/api';

/**
 * The project's metrics, by name, in one place: what an operator's dashboard reads. Recorded
 * through the global meter provider (a no-op until one is registered: sdk.ts's startMetrics, or a
 * test's), so recording costs next to nothing when nothing collects.
 *
 * RED per route and per gRPC method (counts, error status and durations from one histogram),
 * rate-limit rejections per category, durations of the worker's stages, model latency per
 * provider, job queue depth and age, Kafka consumer lag.
 */
export const METRIC = {
  httpDuration: 'http.server.request.duration',
  rpcServerDuration: 'rpc.server.duration',
  rpcClientDuration: 'rpc.client.duration',
  rateLimitRejections: 'vus.rate_limit.rejections',
  stageDuration: 'vus.task.stage.duration',
  modelDuration: 'vus.model.duration',
  jobsQueued: 'vus.jobs.queue.depth',
  jobsOldestAge: 'vus.jobs.queue.oldest_age',
  consumerLag: 'vus.kafka.consumer.lag',
} as const;

/** Seconds, as the semantic conventions want durations; boundaries from 1 ms to 10 min. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

interface Instruments {
  provider: MeterProvider;
  meter: Meter;
  http: Histogram;
  rpcServer: Histogram;
  rpcClient: Histogram;
  rejections: Counter;
  stage: Histogram;
  model: Histogram;
  lag: Gauge;
}

let cached: Instruments | undefined;

/** The instruments of the current global provider (made again when a provider is registered). */
function instruments(): Instruments {
  const provider = metrics.getMeterProvider();
  if (cached?.provider === provider) return cached;
  const meter = provider.getMeter('vus');
  const duration = (name: string, description: string) =>
    meter.createHistogram(name, { unit: 's', description, advice: { explicitBucketBoundaries: DURATION_BUCKETS } });
  cached = {
    provider,
    meter,
    http: duration(METRIC.httpDuration, 'HTTP requests served by the gateway, by route and status'),
    rpcServer: duration(METRIC.rpcServerDuration, 'gRPC calls served, by service, method and status'),
    rpcClient: duration(METRIC.rpcClientDuration, 'gRPC calls made, by service, method and status'),
    rejections: meter.createCounter(METRIC.rateLimitRejections, {
      description: 'Requests refused with 429, by rate-limit category and dimension',
    }),
    stage: duration(METRIC.stageDuration, "The indexing worker's stages, by stage and outcome"),
    model: duration(METRIC.modelDuration, 'Model calls, by provider and task'),
    lag: meter.createGauge(METRIC.consumerLag, { description: 'Messages behind the end of a partition, per consumer group' }),
  };
  return cached;
}

export function recordHttpRequest(method: string, route: string | undefined, status: number, seconds: number): void {
  instruments().http.record(seconds, {
    'http.request.method': method,
    'http.route': route ?? 'unmatched',
    'http.response.status_code': status,
  });
}

export function recordRpc(side: 'server' | 'client', service: string, method: string, grpcStatus: number, seconds: number): void {
  const attributes = { 'rpc.system': 'grpc', 'rpc.service': service, 'rpc.method': method, 'rpc.grpc.status_code': grpcStatus };
  (side === 'server' ? instruments().rpcServer : instruments().rpcClient).record(seconds, attributes);
}

export function countRateLimitRejection(category: string, dimension: string): void {
  instruments().rejections.add(1, { 'vus.rate_limit.category': category, 'vus.rate_limit.dimension': dimension });
}

export function recordStage(stage: string, outcome: 'ok' | 'error', seconds: number): void {
  instruments().stage.record(seconds, { 'vus.stage': stage, 'vus.outcome': outcome });
}

export function recordModelCall(provider: string, task: string, outcome: 'ok' | 'error', seconds: number): void {
  instruments().model.record(seconds, { 'vus.model.provider': provider, 'vus.model.task': task, 'vus.outcome': outcome });
}

export function recordConsumerLag(group: string, topic: string, partition: number, lag: number): void {
  instruments().lag.record(Math.max(0, lag), {
    'messaging.consumer.group.name': group,
    'messaging.destination.name': topic,
    'messaging.destination.partition.id': String(partition),
  });
}

/** One row of a job queue's state, as observed at collection time. */
export interface QueueObservation {
  kind: string;
  state: string;
  count: number;
  /** Seconds since the oldest job in this state became due (queued) or was claimed (running). */
  oldestAgeSeconds: number;
}

/**
 * Reports a job queue's depth and age whenever metrics are collected (`observe` reads the
 * database then). Returns a function that stops reporting.
 */
export function observeJobQueue(observe: () => Promise<readonly QueueObservation[]>): () => void {
  const { meter } = instruments();
  const depth = meter.createObservableGauge(METRIC.jobsQueued, { description: 'Jobs not finished, by kind and state' });
  const age = meter.createObservableGauge(METRIC.jobsOldestAge, {
    unit: 's',
    description: 'Age of the oldest unfinished job, by kind and state',
  });
  const callback = async (result: { observe(observable: typeof depth, value: number, attributes?: Attributes): void }) => {
    for (const row of await observe()) {
      const attributes = { 'vus.job.kind': row.kind, 'vus.job.state': row.state };
      result.observe(depth, row.count, attributes);
      result.observe(age, row.oldestAgeSeconds, attributes);
    }
  };
  meter.addBatchObservableCallback(callback, [depth, age]);
  return () => meter.removeBatchObservableCallback(callback, [depth, age]);
}

/** Times `fn` and hands the seconds and outcome to `record`. */
export async function timed<T>(record: (outcome: 'ok' | 'error', seconds: number) => void, fn: () => Promise<T>): Promise<T> {
  const started = process.hrtime.bigint();
  const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
  try {
    const result = await fn();
    record('ok', seconds());
    return result;
  } catch (error) {
    record('error', seconds());
    throw error;
  }
}
