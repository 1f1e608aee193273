/**
 * The README's cluster-mode section is what a new operator follows: it must name every variable each
 * process reads (read from the processes' own environment schemas), one entry per registered service
 * plus the indexing worker, each service's registered port, and nothing compose sets that its process
 * does not read. A variable added to a process without a word in the README fails here.
 */
import { analyzeService } from '@vus/analyze-service';
import { billingService } from '@vus/billing-service';
import { classifyService } from '@vus/classify-service';
import { embedService } from '@vus/embed-service';
import { gatewayEnv } from '@vus/gateway';
import { indexService } from '@vus/index-service';
import { searchService } from '@vus/search-service';
import { SERVICE_REGISTRY, serviceEnvOf, workerEnvOf, type ServiceEntry } from '@vus/service';
import { taskService } from '@vus/task-service';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
// The worker process's definition is its own entry point (node services/task-service/dist/worker/main.js), not a package export.
// eslint-disable-next-line no-restricted-imports
import { indexingWorker } from '../../../services/task-service/src/worker/main';
import { commandOf, readmeClusterSection, ROOT, variablesNamed, WORKER } from './readme-cluster';

const REGISTRY: readonly ServiceEntry[] = SERVICE_REGISTRY;
type Obj = Record<string, any>;

/** Every variable each process reads in cluster mode, from the schemas its main parses. */
const readBy: Record<string, readonly string[]> = {
  ...Object.fromEntries(
    [indexService, billingService, embedService, searchService, analyzeService, classifyService, taskService].map((definition) => [
      definition.name,
      Object.keys(serviceEnvOf(definition as Parameters<typeof serviceEnvOf>[0])),
    ]),
  ),
  [WORKER]: Object.keys(workerEnvOf(indexingWorker as Parameters<typeof workerEnvOf>[0])),
  gateway: Object.keys(gatewayEnv.shape),
};

/** Variables outside the processes' schemas, documented with tracing and metrics (Observability) and media. */
const AMBIENT = /^(NODE_OPTIONS|OTEL_[A-Z_]+|METRICS_PORT|METRICS_HOST|FFMPEG_PATH|FFPROBE_PATH)$/;

const section = readmeClusterSection();
const { preamble, entries } = section;
const common = variablesNamed(preamble);
const compose = parse(readFileSync(path.join(ROOT, 'deploy/docker-compose.yml'), 'utf8'), { merge: true }) as Obj;

describe("the README's cluster-mode section", () => {
  it('parses: a preamble and an entry per process', () => {
    expect(common.has('INTERNAL_GRPC_SECRET')).toBe(true);
    expect([...entries.keys()].sort()).toEqual(Object.keys(readBy).sort());
  });

  it.each(Object.keys(readBy))('says how %s starts: node and the built form of one of its sources', (name) => {
    const [node, main, ...rest] = commandOf(section, name);
    expect([node, rest]).toEqual(['node', []]);
    const source = main!.replace(/\/dist\//, '/src/').replace(/\.js$/, '.ts');
    expect({ name, main, source: existsSync(path.join(ROOT, source)) }).toEqual({ name, main, source: true });
  });

  it('has an entry per registered service, with its registered port', () => {
    for (const entry of REGISTRY) {
      expect({ service: entry.name, documented: entries.has(entry.name) }).toEqual({ service: entry.name, documented: true });
      const address = entry.protoService ? `127.0.0.1:${entry.port}` : `${entry.port}`;
      expect({ service: entry.name, port: entries.get(entry.name)!.includes(address) }).toEqual({ service: entry.name, port: true });
    }
  });

  it.each(Object.entries(readBy))('names every variable %s reads', (name, variables) => {
    const named = new Set([...variablesNamed(entries.get(name) ?? ''), ...common]);
    expect(variables.filter((variable) => !named.has(variable))).toEqual([]);
  });

  it('names no variable that no process reads', () => {
    const read = new Set(Object.values(readBy).flat());
    const named = [...common, ...[...entries.values()].flatMap((text) => [...variablesNamed(text)])];
    expect(named.filter((variable) => !read.has(variable) && !AMBIENT.test(variable))).toEqual([]);
  });

  it('says the gateway needs the address of every service it calls, and the URL signing secret', () => {
    const gateway = variablesNamed(entries.get('gateway')!);
    for (const entry of REGISTRY.filter((e) => e.protoService)) expect(gateway).toContain(`${entry.envPrefix}_ADDR`);
    expect(gateway).toContain('URL_SIGNING_SECRET');
  });
});

describe('deploy/docker-compose.yml', () => {
  /** Compose's service of each README entry: the registry's names, and `worker` for the indexing worker. */
  const composeServiceOf = (name: string) => (name === WORKER ? 'worker' : name);

  it('encrypts webhook signing secrets: task-service gets a 32-byte WEBHOOK_SECRET_KEY unless one is given', () => {
    const value = String(compose.services['task-service'].environment.WEBHOOK_SECRET_KEY);
    const fallback = /^\$\{WEBHOOK_SECRET_KEY:-([^}]+)\}$/.exec(value)?.[1];
    expect(Buffer.from(fallback ?? '', 'base64')).toHaveLength(32);
  });

  it.each(Object.entries(readBy))('sets only variables %s reads', (name, variables) => {
    const env = Object.keys(compose.services[composeServiceOf(name)].environment as Obj);
    expect(env.filter((variable) => !variables.includes(variable) && !AMBIENT.test(variable))).toEqual([]);
  });
});
