import * as grpc from '@grpc/grpc-js';
import { ReflectionService } from '@grpc/reflection';
import { withCaller, type Logger } from '@vus/core';
import { SpanKind, inSpan, recordRpc, traceparentOf } from '@vus/telemetry';
import { HealthImplementation } from 'grpc-health-check';
import { readCallContext, type CallContext } from './context';
import { toServiceError } from './errors';
import { internalAuthInterceptor, internalSecret } from './internal-auth';
import { loadProto } from './proto';
import { rpcSpanOf } from './tracing';

export type UnaryHandler<Req, Res> = (request: Req, ctx: CallContext) => Promise<Res>;

/** The async handlers of a service, keyed like the generated `<Service>Handlers` interface. */
export type AsyncHandlers<H> = {
  // `string extends K` drops the index signature that the generated interfaces inherit.
  [K in keyof H as string extends K ? never : K]?: H[K] extends grpc.handleUnaryCall<infer Req, infer Res> ? UnaryHandler<Req, Res> : never;
};

/**
 * Adapts async handlers to grpc-js callbacks: reads the call context, runs the handler on the
 * caller's behalf (its own calls and events inherit the request id and deadline) inside a server
 * span that continues the caller's trace, maps thrown
 * errors through the one error table. Methods without a handler answer UNIMPLEMENTED (grpc-js default).
 */
export function implement<H extends grpc.UntypedServiceImplementation>(
  handlers: AsyncHandlers<H>,
  logger: Logger,
): grpc.UntypedServiceImplementation {
  const implementation: grpc.UntypedServiceImplementation = {};
  for (const [method, handler] of Object.entries(handlers) as [string, UnaryHandler<unknown, unknown>][]) {
    implementation[method] = (call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      const ctx = readCallContext(call, logger);
      const { attributes } = rpcSpanOf(call.getPath());
      const started = process.hrtime.bigint();
      const measure = (code: grpc.status) =>
        recordRpc('server', attributes['rpc.service'], attributes['rpc.method'], code, Number(process.hrtime.bigint() - started) / 1e9);
      handleOnBehalf(call, ctx, () => handler(call.request, ctx)).then(
        (response) => {
          measure(grpc.status.OK);
          callback(null, response);
        },
        (error: unknown) => {
          const serviceError = toServiceError(error, ctx.logger);
          measure(serviceError.code ?? grpc.status.UNKNOWN);
          callback(serviceError);
        },
      );
    };
  }
  return implementation;
}

/**
 * Runs a call's handler on its caller's behalf (request id, deadline) inside the call's server span,
 * which continues the client's trace; what the handler calls and writes continues it. Unary calls
 * go through `implement`; a streaming handler calls this itself.
 */
export function handleOnBehalf<T>(call: { getPath(): string }, ctx: CallContext, run: () => Promise<T>): Promise<T> {
  const { name, attributes } = rpcSpanOf(call.getPath());
  return inSpan(name, { kind: SpanKind.SERVER, attributes, parent: ctx.traceparent ?? null }, (span) =>
    withCaller({ requestId: ctx.requestId, deadline: ctx.deadline, traceparent: traceparentOf(span) ?? ctx.traceparent }, run),
  );
}

export interface ServiceRegistration {
  /** Fully qualified name, e.g. vus.index.v1.IndexService; also its health-check name. */
  name: string;
  definition: grpc.ServiceDefinition;
  implementation: grpc.UntypedServiceImplementation;
}

export interface RunningGrpcServer {
  readonly address: string;
  readonly port: number;
  readonly health: HealthImplementation;
  /** Marks every registered service ready or not (liveness, the "" entry, is left alone). */
  setServing(serving: boolean): void;
  stop(graceMs?: number): Promise<void>;
}

/**
 * Starts a gRPC server with the given services plus the standard health service (and reflection
 * when asked). Every call but health checks must carry the internal secret. Named services start
 * NOT_SERVING; the service's main marks them ready once its dependencies are.
 */
export async function startGrpcServer(options: {
  bind: string;
  services: ServiceRegistration[];
  logger: Logger;
  /** The secret callers must present; default: this process's (internalSecret()). */
  internalSecret?: string | undefined;
  /** Serves grpc.reflection (grpcurl without protos); it lists the whole contract, so off by default. */
  reflection?: boolean | undefined;
}): Promise<RunningGrpcServer> {
  const server = new grpc.Server({
    'grpc.max_receive_message_length': 64 * 1024 * 1024,
    interceptors: [internalAuthInterceptor(options.internalSecret ?? internalSecret())],
  });
  const names = options.services.map((s) => s.name);
  // "" (the whole server) answers liveness: serving while the process runs. The named services
  // answer readiness and start NOT_SERVING until their dependencies are ready.
  const health = new HealthImplementation({ '': 'SERVING', ...Object.fromEntries(names.map((n) => [n, 'NOT_SERVING'])) });
  health.addToServer(server);
  if (options.reflection) new ReflectionService(loadProto().packageDefinition).addToServer(server);
  for (const service of options.services) server.addService(service.definition, service.implementation);

  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(options.bind, grpc.ServerCredentials.createInsecure(), (error, boundPort) =>
      error ? reject(error) : resolve(boundPort),
    );
  });
  const host = options.bind.slice(0, options.bind.lastIndexOf(':'));
  const address = `${host}:${port}`;
  options.logger.info({ address, services: names }, 'gRPC server listening');

  return {
    address,
    port,
    health,
    setServing(serving) {
      for (const name of names) health.setStatus(name, serving ? 'SERVING' : 'NOT_SERVING');
    },
    stop(graceMs = 5000) {
      return new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        force.unref();
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      });
    },
  };
}

/**
 * Keeps a server's health in step with its dependencies (a database ping, say): liveness stays
 * with the process, readiness follows `check`. Returns a function that stops watching.
 */
export function watchReadiness(server: RunningGrpcServer, check: () => Promise<boolean>, intervalMs = 5000): () => void {
  let last: boolean | undefined;
  const probe = async () => {
    const ready = await check().catch(() => false);
    if (ready !== last) server.setServing(ready);
    last = ready;
  };
  void probe();
  const timer = setInterval(() => void probe(), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
