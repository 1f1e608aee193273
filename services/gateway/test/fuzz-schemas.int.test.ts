/**
 * Fuzz suite for JSON schemas (issue 28): arbitrary and hostile `response_format` schemas — deep
 * nesting, `$ref` graphs and cycles, huge minItems/minLength/maxItems, patterns with nested
 * quantifiers and a `const` that makes them backtrack, `$id` collisions across two organizations,
 * `const`/`enum` extremes — sent to every route that takes response_format (v1.3's /analyze,
 * /summarize and /generate), against an indexed video with evidence, so that the filler runs too.
 *
 * Every answer must be a 2xx or a 4xx in the API's error format, `/healthz` must answer from a
 * second connection while the case runs (a generous bound, not a timing), and the work each case
 * caused must stay within the budgets analyze-service exports: the filler's (FILL_LIMITS, watched
 * through its FillUsage) and the compiled schema's patterns and checks (PATTERN_LIMITS,
 * CHECK_LIMITS, the same schema compiled here and checked against the value the filler produced).
 *
 * CI runs FUZZ_RUNS cases (default 60); `npm run fuzz` runs more and prints the worst event-loop
 * block and the largest heap growth any one case caused (every service runs in this process, so
 * the loop the cases block is this one). FUZZ_SEED=<seed> reruns a failure.
 */
import fc from 'fast-check';
import { request as httpRequest } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import {
  CHECK_LIMITS,
  compileResponseSchema,
  ExtractiveProvider,
  FILL_LIMITS,
  fillSchema,
  noFillUsage,
  PATTERN_LIMITS,
  type FillUsage,
} from '@vus/analyze-service';
import { openWordNet } from '@vus/wordnet';
import { startIndexingStack, type IndexingStack } from './indexing-stack';
import { workerClient } from './videos-worker';

const RUNS = Number(process.env.FUZZ_RUNS ?? 60);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
/** `npm run fuzz` (FUZZ_RUNS set) measures and prints; CI's bounded run only asserts. */
const MEASURE = process.env.FUZZ_RUNS !== undefined;
/** No answer, and no /healthz while a case runs, may take longer (a hang, not a timing). */
const HANG_BOUND_MS = 15_000;
/** A fresh pair of organizations every so many cases (the plan's analyze limits would turn later cases into 429s). */
const CASES_PER_ORG = 25;

/** The filler as the stack's analyze-service runs it, keeping each fill's usage and value. */
class WatchedProvider extends ExtractiveProvider {
  fills: { usage: FillUsage; value?: unknown }[] = [];
  override async fillSchema(...[timeline, prompt, schema]: Parameters<ExtractiveProvider['fillSchema']>): Promise<unknown> {
    const fill: { usage: FillUsage; value?: unknown } = { usage: noFillUsage() };
    this.fills.push(fill);
    fill.value = fillSchema(schema, await this.schemaContext(timeline, prompt), fill.usage);
    return fill.value;
  }
}

// ---------------------------------------------------------------- schemas

/** A hostile schema case: as a value, or as JSON text (too deep to build as a value and stringify). */
type SchemaCase = { kind: 'value'; schema: object; asOrg?: 'a' | 'b' } | { kind: 'text'; text: string };

const hugeCounts = fc.constantFrom(0, 1, 3, 1000, 1001, 16_384, 16_385, 200_000_000, 2 ** 31, 1e308);
const names = fc.constantFrom(
  'title',
  'summary',
  'chapters',
  'highlights',
  'topics',
  'hashtags',
  'start',
  'end',
  'count',
  'mood',
  'x',
  '__proto__',
  'constructor',
);
const hostilePatterns = fc.constantFrom(
  '^(a+)+$',
  '^(a|a)*$',
  '^(a|aa)+$',
  '(x+x+)+y',
  '^(([a-z])+.)+[A-Z]([a-z])+$',
  '(.*a){1000}',
  '^(.*a){120}$',
  '(?=a)a',
  '(a)\\1',
  '(?<=a)b',
  '^\\d{1,2}:\\d{2}$',
  '\\p{L}+',
  '[',
  'x'.repeat(600),
);
const extremeConsts = fc.oneof(
  fc.constantFrom(`${'a'.repeat(31)}!`, 'a'.repeat(16_385), '', null, 1e308, -0, [], {}),
  fc.jsonValue({ maxDepth: 4 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
);

/** Any schema keyword with a hostile or plain value, and the subschemas around it (refs to d0..d7). */
const arbitrarySchema: fc.Arbitrary<object> = fc.letrec<{ schema: object }>((tie) => ({
  schema: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record(
      {
        type: fc.constantFrom('string', 'integer', 'number', 'boolean', 'null', 'object', 'array', ['string', 'null'], 'strng'),
        minLength: hugeCounts,
        maxLength: hugeCounts,
        pattern: hostilePatterns,
        const: extremeConsts,
        enum: fc.array(extremeConsts, { minLength: 1, maxLength: 5 }),
        minimum: fc.double(),
        exclusiveMaximum: fc.integer(),
        format: fc.constantFrom('date-time', 'email', 'regex', 'uri'),
      },
      { requiredKeys: [] },
    ),
    fc.constantFrom<object>(
      { $ref: '#' },
      { $ref: '#/definitions/d0' },
      { $ref: '#/definitions/d3' },
      { $ref: '#/definitions/nope' },
      { $ref: 'https://org-a.example/s.json' },
    ),
    fc.record(
      {
        type: fc.constant('object'),
        properties: fc.dictionary(names, tie('schema'), { maxKeys: 4 }),
        required: fc.array(names, { maxLength: 3 }),
        patternProperties: fc.dictionary(hostilePatterns, tie('schema'), { maxKeys: 2 }),
        additionalProperties: fc.boolean(),
        propertyNames: fc.record({ pattern: hostilePatterns }),
      },
      { requiredKeys: ['type'] },
    ),
    fc.record(
      { type: fc.constant('array'), items: tie('schema'), minItems: hugeCounts, maxItems: hugeCounts, uniqueItems: fc.boolean() },
      { requiredKeys: ['type', 'items'] },
    ),
    fc.record({ anyOf: fc.array(tie('schema'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ oneOf: fc.array(tie('schema'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ allOf: fc.array(tie('schema'), { minLength: 1, maxLength: 3 }) }),
    fc.constantFrom<object>({}, { not: {} }),
  ),
})).schema;

/** d0..d{n-1}, each an object whose two properties $ref the next: 2^n values to fill. */
function doublingChain(n: number): object {
  const definitions: Record<string, object> = {};
  for (let i = 0; i < n; i++) {
    const next = i + 1 < n ? { $ref: `#/definitions/d${i + 1}` } : { type: 'string' };
    definitions[`d${i}`] = { type: 'object', properties: { left: next, right: next } };
  }
  return { definitions, $ref: '#/definitions/d0' };
}

/** d0..d{n-1}, each anyOf three options that $ref the next: 3^n calls to check a value that fails at the bottom. */
function branchingChain(n: number): object {
  const definitions: Record<string, object> = {};
  for (let i = 0; i < n; i++) {
    const next = i + 1 < n ? { $ref: `#/definitions/d${i + 1}` } : { type: 'string', minLength: 16_000 };
    const option = (extra: object) => ({ type: 'object', properties: { a: next }, required: ['a'], ...extra });
    definitions[`d${i}`] = { anyOf: [option({}), option({ minProperties: 1 }), option({ maxProperties: 3 })] };
  }
  return { definitions, $ref: '#/definitions/d0' };
}

const schemaCases: fc.Arbitrary<SchemaCase> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .record({ root: arbitrarySchema, defs: fc.array(arbitrarySchema, { maxLength: 8 }) })
      .map(({ root, defs }): SchemaCase => ({
        kind: 'value',
        schema: { ...root, definitions: Object.fromEntries(defs.map((d, i) => [`d${i}`, d])) },
      })),
  },
  fc.integer({ min: 3, max: 40 }).map((n): SchemaCase => ({ kind: 'value', schema: doublingChain(n) })),
  fc.integer({ min: 3, max: 40 }).map((n): SchemaCase => ({ kind: 'value', schema: branchingChain(n) })),
  fc
    .integer({ min: 10, max: 20_000 })
    .map((levels): SchemaCase => ({ kind: 'text', text: `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}` })),
  fc.integer({ min: 5, max: 40 }).map((n): SchemaCase => ({
    kind: 'value',
    schema: { type: 'object', properties: { title: { type: 'string', const: `${'a'.repeat(n)}!`, pattern: '^(a+)+$' } } },
  })),
  fc.record({ count: hugeCounts, under: names }).map(({ count, under }): SchemaCase => ({
    kind: 'value',
    schema: {
      type: 'object',
      properties: {
        [under]: {
          type: 'array',
          minItems: count,
          items: { type: 'object', properties: { title: { type: 'string', minLength: Math.min(count, 1e9) } } },
        },
      },
    },
  })),
  fc.integer({ min: 100, max: 900 }).map((n): SchemaCase => ({
    kind: 'value',
    schema: {
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, { type: 'string', pattern: `^p${i}` }])),
    },
  })),
  // The same $id from both organizations; a $ref from one to the other's.
  fc.constantFrom<'a' | 'b'>('a', 'b').map((asOrg): SchemaCase => ({
    kind: 'value',
    asOrg,
    schema: { $id: 'https://org-a.example/s.json', type: 'object', properties: { title: { type: 'string' } } },
  })),
  fc.constant<SchemaCase>({
    kind: 'value',
    asOrg: 'b',
    schema: { type: 'object', properties: { title: { $ref: 'https://org-a.example/s.json' } } },
  }),
  fc.constant<SchemaCase>({
    kind: 'value',
    schema: { type: 'object', properties: { title: { type: 'string' }, child: { $ref: '#' } }, required: ['child'] },
  }),
);

// ---------------------------------------------------------------- sending

/** GET /healthz on a connection of its own (agent: false), resolving with its status. */
function healthzFromAnotherConnection(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}/healthz`, { agent: false, timeout: HANG_BOUND_MS }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy(new Error(`/healthz did not answer within ${HANG_BOUND_MS} ms`)));
    req.on('error', reject);
    req.end();
  });
}

interface Org {
  key: string;
  videoId: string;
}

describe('fuzz: hostile JSON schemas on every route that takes response_format', () => {
  const wordnet = openWordNet();
  const provider = new WatchedProvider(wordnet);
  let stack: IndexingStack;
  let orgs: { a: Org; b: Org };
  let routes: string[];
  let cases = 0;

  /** An organization with a generative index and one video with evidence (made as the worker would). */
  const newOrg = async (): Promise<Org> => {
    const { orgId, key } = await stack.newOrg();
    const index = await fetch(`${stack.url}/v1.3/indexes`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ index_name: 'schemas', models: [{ model_name: 'pegasus1.2', model_options: ['visual', 'audio'] }] }),
    });
    const indexId = ((await index.json()) as { _id: string })._id;
    const worker = workerClient(stack.indexService.address);
    try {
      const video = await worker.createVideo(orgId, indexId, { duration: 40 });
      await worker.putArtifacts(orgId, indexId, video.id, {
        transcription: [
          { start: 1, end: 4, value: 'Welcome to my kitchen.' },
          { start: 5, end: 9, value: 'Today we cook fresh tomato pasta.' },
          { start: 21, end: 25, value: 'Boil the pasta for ten minutes.' },
        ],
        text_in_video: [{ start: 0, end: 3, value: 'TOMATO PASTA' }],
        logo: [{ start: 30, end: 32, value: 'Acme' }],
      });
      return { key, videoId: video.id };
    } finally {
      worker.close();
    }
  };

  beforeAll(async () => {
    stack = await startIndexingStack({ analyze: true, analyzeProvider: provider });
    routes = stack.gateway.routes
      .filter((r) => r.method === 'post' && /^\/v1\.3\/(analyze|summarize|generate)$/.test(r.path))
      .map((r) => r.path);
    orgs = { a: await newOrg(), b: await newOrg() };
    // One plain request per route first: the first one loads and compiles code, which no schema caused.
    for (const route of routes) {
      await fetch(`${stack.url}${route}`, {
        method: 'POST',
        headers: { 'x-api-key': orgs.b.key, 'content-type': 'application/json' },
        body: JSON.stringify({
          video_id: orgs.b.videoId,
          prompt: 'Describe it',
          stream: false,
          type: 'summary',
          response_format: {
            type: 'json_schema',
            json_schema: { type: 'object', properties: { title: { type: 'string', pattern: '^\\w' } } },
          },
        }),
      });
    }
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    wordnet.close();
  });

  it('finds the routes that take response_format', () => {
    expect(routes.sort()).toEqual(['/v1.3/analyze', '/v1.3/generate', '/v1.3/summarize']);
  });

  it(
    'answers each with a 2xx or 4xx in the error format, keeps /healthz answering, and stays within the budgets',
    async () => {
      const loopDelay = monitorEventLoopDelay({ resolution: 10 });
      loopDelay.enable();
      // Wall-clock figures include time this process waited for a core; CPU time is the work itself.
      const worst = { blockMs: 0, heapGrowthMiB: 0, cpuMs: 0, blockCase: '', heapCase: '', cpuCase: '' };
      const statuses = new Map<number, number>();
      let filled = 0;
      await fc.assert(
        fc.asyncProperty(schemaCases, fc.constantFrom(...routes), async (schemaCase, route) => {
          if (++cases % CASES_PER_ORG === 0) orgs = { a: await newOrg(), b: await newOrg() };
          const org = schemaCase.kind === 'value' && schemaCase.asOrg === 'b' ? orgs.b : orgs.a;
          const schemaText = schemaCase.kind === 'text' ? schemaCase.text : JSON.stringify(schemaCase.schema);
          const fields = `"video_id":${JSON.stringify(org.videoId)},"prompt":"Describe it","stream":false,"type":"summary"`;
          const body = `{${fields},"response_format":{"type":"json_schema","json_schema":${schemaText}}}`;

          provider.fills = [];
          const heapBefore = process.memoryUsage().heapUsed;
          let heapPeak = heapBefore;
          const sampler = setInterval(() => (heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed)), 5);
          const cpuBefore = process.cpuUsage();
          loopDelay.reset();
          const [response, healthz] = await Promise.all([
            fetch(`${stack.url}${route}`, {
              method: 'POST',
              headers: { 'x-api-key': org.key, 'content-type': 'application/json' },
              body,
              signal: AbortSignal.timeout(HANG_BOUND_MS),
            }),
            healthzFromAnotherConnection(stack.url),
          ]);
          const text = await response.text();
          clearInterval(sampler);
          heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
          const blockMs = loopDelay.max / 1e6;
          const growthMiB = (heapPeak - heapBefore) / 2 ** 20;
          const cpu = process.cpuUsage(cpuBefore);
          const cpuMs = (cpu.user + cpu.system) / 1000;

          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          filled += provider.fills.length;
          expect(healthz).toBe(200);
          expect(response.status < 500).toBe(true);
          if (response.status >= 400) {
            const error = JSON.parse(text) as { code?: unknown; message?: unknown };
            expect({ code: typeof error.code, message: typeof error.message }).toEqual({ code: 'string', message: 'string' });
            expect(error.message).not.toMatch(/\/tmp\/|node_modules|at [\w.]+ \(/);
          }

          // The budgets, by their counters: the filler's as the stack ran it, the compiled schema's on its value.
          for (const fill of provider.fills) {
            for (const counter of ['steps', 'nodes', 'depth', 'outputChars', 'questions'] as const) {
              expect(fill.usage[counter]).toBeLessThanOrEqual(FILL_LIMITS[counter]);
            }
            if (fill.value === undefined) continue;
            const compiled = compileResponseSchema(schemaText);
            try {
              compiled.check(fill.value);
            } catch {
              // Refused or not, the check stays within its budgets.
            }
            expect(compiled.usage.compiledSize).toBeLessThanOrEqual(PATTERN_LIMITS.totalSize);
            expect(compiled.usage.matchSteps).toBeLessThanOrEqual(PATTERN_LIMITS.matchSteps);
            expect(compiled.usage.checkSteps).toBeLessThanOrEqual(CHECK_LIMITS.steps);
          }

          const label = `${route} ${schemaText.slice(0, 80)}`;
          if (blockMs > worst.blockMs) Object.assign(worst, { blockMs, blockCase: label });
          if (growthMiB > worst.heapGrowthMiB) Object.assign(worst, { heapGrowthMiB: growthMiB, heapCase: label });
          if (cpuMs > worst.cpuMs) Object.assign(worst, { cpuMs, cpuCase: label });
        }),
        { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) },
      );
      loopDelay.disable();
      if (MEASURE) {
        console.log(
          `fuzz-schemas: ${RUNS} cases (statuses ${JSON.stringify(Object.fromEntries(statuses))}, ${filled} reached the filler); worst event-loop block ${worst.blockMs.toFixed(1)} ms (${worst.blockCase}); ` +
            `largest heap growth in one case ${worst.heapGrowthMiB.toFixed(1)} MiB (${worst.heapCase}); ` +
            `most CPU in one case (all services and the request) ${worst.cpuMs.toFixed(0)} ms (${worst.cpuCase})`,
        );
      }
    },
    Math.max(120_000, RUNS * 2_000),
  );
});
