/**
 * @vus/service — the service kit: one definition per service (name, implementation, migrations,
 * config, consumers, background jobs); the kit owns boot, health, internal auth, shutdown, and
 * the cluster (one process from env) and embedded (in-process) ways to run it.
 */
export * from './define';
export * from './start';
export * from './jobs';
export { SERVICE_REGISTRY, serviceEntry, type GrpcServiceName, type ServiceEntry, type ServiceName } from '@vus/grpc';
