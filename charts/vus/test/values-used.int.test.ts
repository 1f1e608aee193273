/**
 * values.yaml documents nothing the templates ignore, and the templates read nothing values.yaml
 * does not document (issue 34). Each setting in values.yaml is changed alone, over a few base
 * installs that switch the optional parts on, and `helm template` must render something different
 * in at least one of them: a key no template reads (or reads under another name) renders the same
 * everywhere and is named. The other way, every `.Values.…` path a template names must be in
 * values.yaml, as must every field the shared component helper reads from a service's block.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';

const ROOT = path.resolve(__dirname, '../../..');
const CHART = path.join(ROOT, 'charts/vus');
const TEMPLATES = path.join(CHART, 'templates');
const HELM = path.join(ROOT, 'node_modules/.bin/helm');
const KUBE_VERSION = '1.29.0';
/** helm is mostly start-up and waiting: a few at once. */
const RENDERS_AT_ONCE = 4;

type Obj = Record<string, unknown>;
type Path = readonly string[];

const isObject = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value);
const DEFAULTS = parse(readFileSync(path.join(CHART, 'values.yaml'), 'utf8')) as Obj;

/**
 * The settings of values.yaml: every scalar, every list, and every map that is empty by default
 * (free-form: env, podAnnotations, nodeSelector, affinity, a service's image override …).
 */
export function settingsOf(values: Obj, prefix: Path = []): Path[] {
  return Object.entries(values).flatMap(([key, value]) =>
    isObject(value) && Object.keys(value).length > 0 ? settingsOf(value, [...prefix, key]) : [[...prefix, key]],
  );
}

function valueAt(values: Obj, at: Path): unknown {
  return at.reduce<unknown>((node, key) => (isObject(node) ? node[key] : undefined), values);
}

/** `values` with `at` set to `value` (a deep copy; missing maps on the way are made). */
function withValue(values: Obj, at: Path, value: unknown): Obj {
  const copy = structuredClone(values);
  let node = copy;
  for (const key of at.slice(0, -1)) {
    if (!isObject(node[key])) node[key] = {};
    node = node[key] as Obj;
  }
  node[at[at.length - 1]!] = value;
  return copy;
}

/** Another value of the same kind that the schema accepts. */
function changed(at: Path, value: unknown): unknown {
  const key = at[at.length - 1]!;
  const enums: Record<string, [string, string]> = {
    pullPolicy: ['IfNotPresent', 'Always'],
    logLevel: ['info', 'debug'],
    accessMode: ['ReadWriteMany', 'ReadWriteOnce'],
    type: ['ClusterIP', 'NodePort'],
  };
  if (key in enums && typeof value === 'string') {
    const [a, b] = enums[key]!;
    return value === a ? b : a;
  }
  if (key === 'image' && isObject(value)) return { repository: 'registry.example.com/probe', tag: 'probe' };
  if (typeof value === 'boolean') return !value;
  if (typeof value === 'number') return value + 1;
  if (typeof value === 'string') {
    if (value === '' && key === 'brokers') return 'probe.example:9092';
    if (value === '') return /Endpoint$|Address$/.test(key) ? 'http://probe.example:4318' : 'probe-value';
    if (/^https?:\/\//.test(value)) return `${value.replace(/\/$/, '')}/probe`;
    if (/^[^,:\s/]+:\d+(,|$)/.test(value)) return 'probe.example:9093';
    const quantity = /^(\d+)([A-Za-z]*)$/.exec(value);
    if (quantity) return `${Number(quantity[1]) + 1}${quantity[2]}`;
    return `${value}-probe`;
  }
  if (Array.isArray(value)) {
    if (key === 'nodeArgs') return [...value, '--stack-size=2048'];
    if (value.length > 0 && value.every((item) => typeof item === 'string')) return [...value, 'NET_RAW'];
    return [...value, key === 'imagePullSecrets' ? { name: 'probe' } : { podSelector: { matchLabels: { probe: 'probe' } } }];
  }
  if (isObject(value)) return key === 'affinity' ? { podAffinity: { probe: 'probe' } } : { PROBE: 'probe' };
  throw new Error(`no other value for ${at.join('.')}`);
}

/** Base installs: the defaults, then the optional parts on (every feature, a secret named wherever one may be). */
function baseInstalls(): Obj[] {
  const on: [Path, unknown][] = [
    [['global', 'telemetry', 'otlpEndpoint'], 'http://otel-collector:4318'],
    [['global', 'telemetry', 'metrics', 'enabled'], true],
    [['global', 'telemetry', 'serviceMonitor', 'enabled'], true],
    [['global', 'models', 'existingClaim'], 'vus-models'],
    [['global', 'kafka', 'brokers'], 'kafka:9092'],
    [['gateway', 'adminToken', 'secretName'], 'vus-admin'],
    [['gateway', 'redisUrl', 'secretName'], 'vus-redis'],
    [['gateway', 'urlSigningSecret', 'secretName'], 'vus-url-signing'],
    [['billingService', 'smtpUrl', 'secretName'], 'vus-smtp'],
    [['taskService', 'webhookSecretKey', 'secretName'], 'vus-webhook-key'],
  ];
  const allOn = on.reduce((values, [at, value]) => withValue(values, at, value), DEFAULTS);
  const worker = (values: Obj, enabled: boolean, autoscaling: boolean, keda: boolean) =>
    withValue(
      withValue(
        withValue(values, ['taskService', 'worker', 'enabled'], enabled),
        ['taskService', 'worker', 'autoscaling', 'enabled'],
        autoscaling,
      ),
      ['taskService', 'worker', 'autoscaling', 'keda', 'enabled'],
      keda,
    );
  return [
    DEFAULTS,
    worker(allOn, true, true, true),
    worker(allOn, true, true, false),
    worker(allOn, true, false, false),
    worker(allOn, false, false, false),
  ];
}

let folder: string;
let written = 0;

/**
 * `helm template` of `values` (or what a template's `fail` said); the internal Secret's random value
 * is blanked (it differs on every render).
 */
function render(values: Obj): Promise<string> {
  const file = path.join(folder, `values-${written++}.yaml`);
  writeFileSync(file, JSON.stringify(values));
  return new Promise((resolve, reject) => {
    const child = spawn(HELM, ['template', 'vus', CHART, '--kube-version', KUBE_VERSION, '-f', file], { cwd: ROOT });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      rmSync(file, { force: true });
      // A template's own `fail` (a combination it refuses) is an answer to the value; the schema refusing it is this test's mistake.
      if (code !== 0 && /meet the specifications of the schema/.test(err)) reject(new Error(`helm template failed:\n${err}`));
      else if (code !== 0) resolve(`refused: ${err}`);
      else resolve(out.replace(/^(\s+secret: )[A-Za-z0-9+/=]{40,}$/gm, '$1<random>'));
    });
  });
}

/** Runs `tasks` with at most `limit` at once, in order of results. */
async function limited<T>(tasks: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  const lane = async () => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await tasks[index]!();
    }
  };
  await Promise.all(Array.from({ length: limit }, lane));
  return results;
}

beforeAll(() => {
  folder = mkdtempSync(path.join(tmpdir(), 'vus-chart-values-'));
});
afterAll(() => {
  if (folder) rmSync(folder, { recursive: true, force: true });
});

test('the settings are found the way the test reads values.yaml', () => {
  const settings = settingsOf(DEFAULTS).map((at) => at.join('.'));
  expect(settings).toEqual(
    expect.arrayContaining([
      'global.image.tag',
      'global.env',
      'gateway.env.BODY_LIMIT_BYTES',
      'taskService.worker.autoscaling.keda.enabled',
    ]),
  );
  expect(settings).not.toContain('global.image');
});

test('every setting in values.yaml changes what the chart renders, in at least one base install', async () => {
  const bases = baseInstalls();
  const baseOutputs = await limited(
    bases.map((values) => () => render(values)),
    RENDERS_AT_ONCE,
  );
  // A render is stable: the same values give the same output.
  expect(await render(bases[1]!)).toBe(baseOutputs[1]);
  const unused = await limited(
    settingsOf(DEFAULTS).map((at) => async () => {
      for (const [i, base] of bases.entries()) {
        const output = await render(withValue(base, at, changed(at, valueAt(base, at)))).catch(
          (error: Error) => `${at.join('.')}: ${error.message}`,
        );
        if (output.startsWith(`${at.join('.')}: `)) return output;
        if (output !== baseOutputs[i]) return undefined;
      }
      return `${at.join('.')}: renders the same in every base install`;
    }),
    RENDERS_AT_ONCE,
  );
  expect(unused.filter(Boolean)).toEqual([]);
}, 600_000);

/** Every `.Values.a.b.c` a template names. */
function valuesPathsInTemplates(): { file: string; at: string[] }[] {
  return readdirSync(TEMPLATES).flatMap((file) =>
    [...readFileSync(path.join(TEMPLATES, file), 'utf8').matchAll(/\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)/g)].map((match) => ({
      file,
      at: match[1]!.slice(1).split('.'),
    })),
  );
}

test('every .Values path a template names is in values.yaml', () => {
  const found = valuesPathsInTemplates();
  expect(found.length).toBeGreaterThan(30);
  const missing = found.filter(({ at }) => valueAt(DEFAULTS, at) === undefined).map(({ file, at }) => `${file}: .Values.${at.join('.')}`);
  expect(missing).toEqual([]);
});

test("every field the component helper reads from a service's block is in each service's block", () => {
  const helpers = readFileSync(path.join(TEMPLATES, '_helpers.tpl'), 'utf8');
  // The component helper gets a service's block as .values, and names it $v.
  const fields = new Set([...helpers.matchAll(/(?:\.values|\$v)\.([A-Za-z_][A-Za-z0-9_]*)/g)].map((match) => match[1]!));
  expect(fields.size).toBeGreaterThan(5);
  const services = readdirSync(TEMPLATES).flatMap((file) =>
    [...readFileSync(path.join(TEMPLATES, file), 'utf8').matchAll(/"values" \.Values\.([A-Za-z]+)/g)].map((match) => match[1]!),
  );
  expect(services.length).toBeGreaterThanOrEqual(8);
  // Optional per service: the component helper reads these only when present.
  const optional = new Set(['service']);
  const missing = services.flatMap((service) =>
    [...fields]
      .filter((field) => !optional.has(field) && valueAt(DEFAULTS, [service, field]) === undefined)
      .map((field) => `${service}.${field}`),
  );
  expect(missing).toEqual([]);
});
