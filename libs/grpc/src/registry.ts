import type * as grpc from '@grpc/grpc-js';
import { createClient } from './client';
import { loadProto } from './proto';

/**
 * The one table of services. The embedded runner, the clients, deploy/docker-compose.yml and the
 * Helm chart are derived from it or checked against it (charts/vus/test/registry.test.ts).
 * Adding a service: its proto, its folder, one row here.
 */
export interface ServiceEntry {
  /** Folder under services/, compose service and chart component name. */
  readonly name: string;
  /** Port of its development address (compose) and its default bind. */
  readonly port: number;
  /** Prefix of its peers' address variable: `<envPrefix>_ADDR`. */
  readonly envPrefix: string;
  /** Fully qualified gRPC service (also its health-check name); absent for the HTTP gateway. */
  readonly protoService?: string;
  /** Its own PostgreSQL database (postgres-init.sql); embedded mode names its PGlite folder after `name`. */
  readonly database: string;
}

export const SERVICE_REGISTRY = [
  { name: 'index-service', port: 50051, envPrefix: 'INDEX_SERVICE', protoService: 'vus.index.v1.IndexService', database: 'index_service' },
  { name: 'task-service', port: 50052, envPrefix: 'TASK_SERVICE', protoService: 'vus.task.v1.TaskService', database: 'task_service' },
  {
    name: 'search-service',
    port: 50053,
    envPrefix: 'SEARCH_SERVICE',
    protoService: 'vus.search.v1.SearchService',
    database: 'search_service',
  },
  {
    name: 'billing-service',
    port: 50058,
    envPrefix: 'BILLING_SERVICE',
    protoService: 'vus.billing.v1.BillingService',
    database: 'billing_service',
  },
  { name: 'gateway', port: 8080, envPrefix: 'GATEWAY', database: 'gateway' },
  {
    name: 'analyze-service',
    port: 50056,
    envPrefix: 'ANALYZE_SERVICE',
    protoService: 'vus.analyze.v1.AnalyzeService',
    database: 'analyze_service',
  },
  {
    name: 'classify-service',
    port: 50055,
    envPrefix: 'CLASSIFY_SERVICE',
    protoService: 'vus.classify.v1.ClassifyService',
    database: 'classify_service',
  },
  { name: 'embed-service', port: 50057, envPrefix: 'EMBED_SERVICE', protoService: 'vus.embed.v1.EmbedService', database: 'embed_service' },
] as const satisfies readonly ServiceEntry[];

export type ServiceName = (typeof SERVICE_REGISTRY)[number]['name'];
export type GrpcServiceName = Extract<(typeof SERVICE_REGISTRY)[number], { protoService: string }>['name'];

export function serviceEntry(name: ServiceName): ServiceEntry {
  return SERVICE_REGISTRY.find((entry) => entry.name === name)!;
}

/** The fully qualified gRPC service of a registered service. */
export function protoServiceOf(name: GrpcServiceName): string {
  return serviceEntry(name).protoService!;
}

/** The loaded client constructor of a fully qualified name (vus.index.v1.IndexService). */
function serviceConstructor(protoService: string): grpc.ServiceClientConstructor {
  let node: unknown = loadProto().proto;
  for (const part of protoService.split('.')) node = (node as Record<string, unknown> | undefined)?.[part];
  const constructor = node as grpc.ServiceClientConstructor | undefined;
  if (typeof constructor !== 'function' || !constructor.service) throw new Error(`no gRPC service ${protoService} in the proto contract`);
  return constructor;
}

/** The loaded service definition of a fully qualified name (vus.index.v1.IndexService). */
export function serviceDefinition(protoService: string): grpc.ServiceDefinition {
  return serviceConstructor(protoService).service;
}

/**
 * A client of a registered service, typed by the caller with its generated client interface
 * (`createServiceClient<IndexServiceClient>('index-service', address)`).
 */
export function createServiceClient<C>(name: GrpcServiceName, address: string): C {
  return createClient(
    serviceConstructor(protoServiceOf(name)) as unknown as new (...args: ConstructorParameters<grpc.ServiceClientConstructor>) => C,
    address,
  );
}
