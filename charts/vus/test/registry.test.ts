/**
 * The service registry (libs/grpc/src/registry.ts) is the one list of services; docker-compose and
 * the Helm chart are written by hand but must agree with it. This suite fails when they do not:
 * a service missing from either, a wrong port, database, health name or peer address.
 */
import { SERVICE_REGISTRY, type ServiceEntry } from '@vus/grpc';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { valuesKeyOf } from './registry-rules';

const ROOT = path.resolve(__dirname, '../../..');
type Obj = Record<string, any>;

const compose = parse(readFileSync(path.join(ROOT, 'deploy/docker-compose.yml'), 'utf8'), { merge: true }) as Obj;
const postgresInit = readFileSync(path.join(ROOT, 'deploy/postgres-init.sql'), 'utf8');
const chartValues = parse(readFileSync(path.join(ROOT, 'charts/vus/values.yaml'), 'utf8')) as Obj;
const chartSchema = JSON.parse(readFileSync(path.join(ROOT, 'charts/vus/values.schema.json'), 'utf8')) as Obj;
const templateOf = (name: string) => path.join(ROOT, 'charts/vus/templates', `${name}.yaml`);

const grpcServices: readonly ServiceEntry[] = SERVICE_REGISTRY.filter((entry: ServiceEntry) => entry.protoService);
/** The compose services that run one of ours (node services/<name>/dist/main.js). */
const composeRunning = Object.entries(compose.services as Obj).flatMap(([service, spec]) => {
  // The script: node's first argument after its flags (search-service's command has one).
  const script = ((spec.command ?? []) as string[]).slice(1).find((word) => !word.startsWith('--'));
  const match = /^services\/([^/]+)\/dist\/main\.js$/.exec(script ?? '');
  return match ? [{ service, folder: match[1]!, spec: spec as Obj }] : [];
});

describe('the service registry', () => {
  it('names each service once, each port and database once, and only folders that exist', () => {
    for (const key of ['name', 'port', 'envPrefix', 'database'] as const) {
      const column = SERVICE_REGISTRY.map((entry) => entry[key]);
      expect(new Set(column).size).toBe(column.length);
    }
    for (const entry of SERVICE_REGISTRY) expect(existsSync(path.join(ROOT, 'services', entry.name, 'src/main.ts'))).toBe(true);
  });

  describe('deploy/docker-compose.yml', () => {
    it('runs exactly the registered services, each under its own name', () => {
      expect(composeRunning.map((c) => c.folder).sort()).toEqual(SERVICE_REGISTRY.map((entry) => entry.name).sort());
      for (const { service, folder } of composeRunning) expect(service).toBe(folder);
    });

    it.each(SERVICE_REGISTRY.map((entry) => [entry.name, entry] as const))(
      'gives %s its database, and the internal secret',
      (name, entry) => {
        const env = compose.services[name].environment as Obj;
        expect(env.DATABASE_URL).toMatch(new RegExp(`/${entry.database}$`));
        expect(postgresInit).toMatch(new RegExp(`^CREATE DATABASE ${entry.database};$`, 'm'));
        expect(String(env.INTERNAL_GRPC_SECRET ?? '').length).toBeGreaterThanOrEqual(32);
      },
    );

    it.each(grpcServices.map((entry) => [entry.name, entry] as const))(
      'binds %s on its port, publishes it and health-checks its gRPC name',
      (name, entry) => {
        const spec = compose.services[name] as Obj;
        expect(spec.environment.GRPC_BIND).toBe(`0.0.0.0:${entry.port}`);
        expect(spec.ports).toEqual([`${entry.port}:${entry.port}`]);
        expect(spec.healthcheck.test.join(' ')).toContain(`checkHealth('127.0.0.1:${entry.port}', '${entry.protoService}')`);
      },
    );

    it('serves the gateway on its port', () => {
      const gateway = SERVICE_REGISTRY.find((entry) => entry.name === 'gateway')!;
      expect(compose.services.gateway.environment.PORT).toBe(String(gateway.port));
    });

    it('points every <PREFIX>_ADDR at that service on its registered port', () => {
      const addresses = composeRunning.flatMap(({ spec }) =>
        Object.entries(spec.environment as Obj).filter(([variable]) => variable.endsWith('_ADDR')),
      );
      expect(addresses.length).toBeGreaterThan(0);
      for (const [variable, value] of addresses) {
        const entry = grpcServices.find((e) => `${e.envPrefix}_ADDR` === variable);
        expect({ variable, value }).toEqual({ variable, value: entry && `${entry.name}:${entry.port}` });
      }
    });
  });

  describe('charts/vus', () => {
    it('has a template per registered service and none for an unregistered one', () => {
      const serviceTemplates = readdirSync(path.join(ROOT, 'charts/vus/templates')).filter((file) =>
        /-service\.yaml$|^gateway\.yaml$/.test(file),
      );
      expect(serviceTemplates.map((file) => file.replace(/\.yaml$/, '')).sort()).toEqual(
        SERVICE_REGISTRY.map((entry) => entry.name).sort(),
      );
    });

    it.each(SERVICE_REGISTRY.map((entry) => [entry.name, entry] as const))(
      'has a values block and schema entry for %s, with its database Secret',
      (name, entry) => {
        const key = valuesKeyOf(name);
        expect(chartValues[key]).toMatchObject({ enabled: true, databaseUrl: { secretName: `vus-${name}-database` } });
        expect(chartSchema.properties[key]).toBeDefined();
        expect(entry.database).toBe(name === 'gateway' ? 'gateway' : name.replace(/-/g, '_'));
      },
    );

    it.each(grpcServices.map((entry) => [entry.name, entry] as const))('probes %s with its registered gRPC name', (name, entry) => {
      expect(readFileSync(templateOf(name), 'utf8')).toContain(`"healthService" "${entry.protoService}"`);
    });
  });
});
