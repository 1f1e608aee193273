/**
 * Fuzz suite (issue 15): property-based requests to every route the gateway serves, in every
 * version (the routes come from the running app, so a new route is covered without a list to
 * keep). Bodies are malformed JSON, the wrong content type, JSON of the wrong type, huge and
 * negative numbers, unknown and duplicate fields, broken and hostile media (truncated MP4,
 * playlists, empty files, images claiming huge dimensions, made here in a few bytes) and hostile
 * URLs. Every answer must be a 2xx or 4xx in the API's error format, within a deadline, without a
 * server path in its message, and the server must answer an ordinary request afterwards.
 *
 * CI runs FUZZ_RUNS cases (default 300, ~40 s with the stack's start on two cores); `npm run fuzz` runs 5,000. A failure prints fast-check's
 * seed and path: FUZZ_SEED=<seed> reruns it. Found cases become regular tests.
 */
import fc from 'fast-check';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveFiles, type FileServer } from '@vus/testing';
import { hostileMedia, type HostileMedia } from './hostile-media';
import { SERVED_VERSIONS } from '../src/versions';
import { startIndexingStack, type IndexingStack } from './indexing-stack';

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
/** No request may take longer (the stack answers the slowest ordinary request in well under a second). */
const ANSWER_WITHIN_MS = 10_000;
/** A fresh organization (index, task) every so many cases. */
const CASES_PER_ORG = 40;

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** Field names the endpoints read (and a few they do not), to put hostile values where they are looked at. */
const FIELDS = [
  'index_id',
  'index_name',
  'engines',
  'models',
  'engine_id',
  'index_options',
  'addons',
  'video_url',
  'video_file',
  'transcription_url',
  'language',
  'user_metadata',
  'enable_video_stream',
  'disable_video_stream',
  'query',
  'query_text',
  'query_media_type',
  'query_media_url',
  'search_options',
  'group_by',
  'threshold',
  'operator',
  'sort_option',
  'page_limit',
  'page',
  'filter',
  'adjust_confidence_level',
  'include_user_metadata',
  'conversation_option',
  'url',
  'event_types',
  'video_title',
  'metadata',
  'file',
  'object',
  'text',
  'input_type',
  'prompt',
  // POST /responses
  'knowledge_store_id',
  'input',
  'selections',
  'session_id',
  'include',
  'max_output_tokens',
  // Knowledge stores, their items and collections, and their search
  'name',
  'description',
  'ingestion_config',
  'asset_id',
  'asset_type',
  'item_ids',
  'page_size',
  'page_token',
  'include_metadata',
  '__proto__',
  'constructor',
] as const;
const QUERY_KEYS = [
  'page',
  'page_limit',
  'sort_by',
  'sort_option',
  'index_id',
  'status',
  'filename',
  'duration',
  'width',
  'created_at',
  '_id',
  'index_name',
  'engine_family',
  'include_user_metadata',
  'transcription',
  'start',
  'end',
] as const;

const hugeNumbers = fc.constantFrom(-1, 0, -2147483649, 2147483648, 2 ** 53 + 1, 1e308, -1e308, 5e-324, 1e21, 0.1);
const numberStrings = fc.constantFrom('-1', '0', '1e309', 'NaN', 'Infinity', '99999999999999999999999', '0x10', '1.5', '', ' ');

function hostileUrls(files: FileServer, media: HostileMedia): fc.Arbitrary<string> {
  return fc.constantFrom(
    'http://127.0.0.1:1/nothing-listens',
    'http://169.254.169.254/latest/meta-data/',
    'http://10.0.0.1/a.mp4',
    'http://[::1]/a.mp4',
    'http://[::ffff:127.0.0.1]:1/a.mp4',
    'http://[::127.0.0.1]/a.mp4',
    'http://0x7f000001/a.mp4',
    'http://2130706433/a.mp4',
    'http://localhost./a.mp4',
    'file:///etc/passwd',
    'gopher://127.0.0.1:6379/_INFO',
    'ftp://example.com/a.mp4',
    'data:video/mp4;base64,AAAA',
    'javascript:alert(1)',
    'http://user:pass@127.0.0.1:1/',
    `https://${'a'.repeat(300)}.example/`,
    `http://example.com/${'%'.repeat(50)}`,
    'http://',
    's3://bucket/key.mp4',
    's3://../../etc/passwd',
    'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
    ...Object.keys(media).map((name) => files.url(name)),
  );
}

/** A request as the fuzzer builds it, before it is sent. */
interface FuzzRequest {
  method: string;
  path: string;
  query: string;
  auth: 'key' | 'none' | 'garbage';
  body: FuzzBody;
}
type FuzzBody =
  | { kind: 'none' }
  | { kind: 'raw'; contentType: string | undefined; text: string }
  | { kind: 'json'; value: unknown }
  | { kind: 'multipart'; fields: [string, string][]; files: [string, string][] };

/**
 * Resources of the fuzzing organization that paths and fields name, so that requests get past
 * "not found". Requests carry placeholders, replaced when sent: a request may delete the index,
 * and the next organization has its own.
 */
const PLACEHOLDERS = ['{index}', '{task}', '{video}'] as const;
type Known = Record<(typeof PLACEHOLDERS)[number], string>;
const withKnown = (text: string, known: Known) =>
  text.replace(
    /\{(index|task|video)\}|%7B(index|task|video)%7D/g,
    (_match, plain?: string, encoded?: string) => known[`{${plain ?? encoded}}` as keyof Known],
  );

/**
 * A body most endpoints would take (each reads its own fields and ignores the others'), for the
 * fuzzer to mutate: hostile values then reach the checks behind the first "not provided".
 */
function plausibleFields(files: FileServer): [string, unknown][] {
  return [
    ['index_id', '{index}'],
    ['index_name', 'fuzz-index'],
    ['models', [{ model_name: 'marengo2.7', model_options: ['visual', 'audio'] }]],
    ['engines', [{ engine_name: 'marengo2.6', engine_options: ['visual', 'conversation'] }]],
    ['search_options', ['visual']],
    ['query_text', 'a dog'],
    ['query_media_type', 'image'],
    ['video_url', files.url('random.mp4')],
    ['url', 'https://hooks.example.com/fuzz'],
  ];
}

function fuzzRequests(
  routes: readonly { method: string; path: string }[],
  files: FileServer,
  media: HostileMedia,
): fc.Arbitrary<FuzzRequest> {
  const ids = PLACEHOLDERS;
  const urls = hostileUrls(files, media);
  const text = fc.oneof(
    { weight: 3, arbitrary: fc.string({ maxLength: 30 }) },
    fc.string({ unit: 'binary', maxLength: 30 }),
    fc.constantFrom(...ids),
    urls,
    numberStrings,
    fc.constantFrom(
      'visual',
      'audio',
      'conversation',
      'marengo2.7',
      'pegasus1.2',
      'clip',
      'image',
      'true',
      '{"a":1}',
      '[1,2]',
      '{"$and":[{"text":"a"}]}',
    ),
    fc.constant('word '.repeat(1_200)),
    fc.constant('\u0000\uFFFF\uD800'),
  );
  const scalar = fc.oneof(text, hugeNumbers, fc.boolean(), fc.constant(null));
  const value: fc.Arbitrary<unknown> = fc.oneof(
    { weight: 4, arbitrary: scalar },
    fc.array(scalar, { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.constantFrom(...FIELDS), fc.string({ maxLength: 8 })), scalar, { maxKeys: 4 }),
    fc.jsonValue({ maxDepth: 3 }),
    fc.constant({ $and: [{ text: 'a' }, { $or: [{ text: 'b' }, { text: 'c' }] }] }),
    fc.constant([{ model_name: 'marengo2.7', model_options: ['visual'] }]),
  );
  const hostileFields = fc.array(
    fc.tuple(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...FIELDS) }, fc.string({ maxLength: 8 })), value),
    { maxLength: 8 },
  );
  // Half the time the fields start from a plausible body and hostile ones replace or join them.
  const fields = fc
    .tuple(fc.boolean(), hostileFields)
    .map(([plausible, hostile]) => (plausible ? [...plausibleFields(files), ...hostile] : hostile));
  const asText = (v: unknown) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));
  const body: fc.Arbitrary<FuzzBody> = fc.oneof(
    fc.constant<FuzzBody>({ kind: 'none' }),
    fields.map((f): FuzzBody => ({ kind: 'json', value: Object.fromEntries(f) })),
    fc.oneof(value, fc.jsonValue()).map((v): FuzzBody => ({ kind: 'json', value: v })),
    // Duplicate keys: JSON.parse keeps the last one; a field's checks must hold for whichever wins.
    fields.map((f): FuzzBody => ({
      kind: 'raw',
      contentType: 'application/json',
      text: `{${[...f, ...f].map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? 'null'}`).join(',')}}`,
    })),
    fc
      .tuple(
        fc.constantFrom(
          'application/json',
          'application/json; charset=utf-7',
          'text/plain',
          'application/xml',
          'multipart/form-data',
          'multipart/form-data; boundary=',
          'application/x-www-form-urlencoded',
          'application/octet-stream',
          undefined,
          ';;;',
          'application/vnd.api+json',
        ),
        fc.oneof(
          fc.constantFrom(
            '{',
            '{"a":',
            '[',
            'nul',
            '\u0000',
            '{"a":1}x',
            '"\\ud800"',
            '{"__proto__":{"x":1}}',
            'a=1&a=2&b[c]=3',
            '--x\r\n\r\n--x--',
            '',
          ),
          fc.string({ maxLength: 60 }),
        ),
      )
      .map(([contentType, raw]): FuzzBody => ({ kind: 'raw', contentType, text: raw })),
    fc
      .tuple(
        // Multipart has no arrays: a list is a repeated field (API-CONTRACT §2.2).
        fields.map((f) =>
          f.flatMap(([k, v]): [string, string][] =>
            Array.isArray(v) && v.every((x) => typeof x === 'string') ? v.map((x) => [k, x]) : [[k, asText(v)]],
          ),
        ),
        fc.array(
          fc.tuple(
            fc.constantFrom('video_file', 'query_media_file', 'transcription_file', 'file', 'video_url', 'dummy', '_'),
            fc.constantFrom(...Object.keys(media)),
          ),
          { maxLength: 3 },
        ),
      )
      .map(([f, parts]): FuzzBody => ({ kind: 'multipart', fields: f, files: parts })),
  );
  const segment = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...ids) },
    fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 24, maxLength: 24 }),
    fc.string({ minLength: 1, maxLength: 20 }).map(encodeURIComponent),
    fc.constantFrom(
      '..',
      '%2e%2e',
      '%2F',
      '%00',
      '%zz',
      '-1',
      '99999999999999999999',
      'a'.repeat(600),
      'thumbnail.jpg',
      'index.m3u8',
      'segment_000.ts',
    ),
  );
  // Endpoints not built here (router.all, answered 501 whatever comes) are tried less often.
  const route = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...routes.filter((r) => r.method !== 'all')) },
    { weight: 1, arbitrary: fc.constantFrom(...routes.filter((r) => r.method === 'all')) },
  );
  const query = fc.oneof(
    fc.constant(''),
    fc
      .array(fc.tuple(fc.constantFrom(...QUERY_KEYS), fc.oneof(numberStrings, fc.string({ maxLength: 20 }), fc.constantFrom(...ids))), {
        maxLength: 4,
      })
      .map((pairs) => `?${new URLSearchParams(pairs).toString()}`),
    fc.constantFrom('?page=%zz', '?page[]=1&page[]=2', '?&&=&', '?page_limit=1e400', '?filter={"a":', '?a[b][c]=1'),
  );
  return fc
    .record({
      route,
      method: fc.constantFrom(...METHODS),
      params: fc.array(segment, { minLength: 4, maxLength: 4 }),
      rest: fc.array(segment, { minLength: 1, maxLength: 3 }),
      query,
      auth: fc.oneof(
        { weight: 12, arbitrary: fc.constant<FuzzRequest['auth']>('key') },
        fc.constantFrom<FuzzRequest['auth']>('none', 'garbage'),
      ),
      body,
    })
    .map(({ route: r, method, params, rest, query: q, auth, body: b }): FuzzRequest => {
      let i = 0;
      const path = r.path
        .split('/')
        .map((part) => (part.startsWith(':') ? params[i++ % params.length]! : part.startsWith('*') ? rest.join('/') : part))
        .join('/');
      return { method: r.method === 'all' ? method : r.method.toUpperCase(), path, query: q, auth, body: b };
    });
}

async function send(baseUrl: string, key: string, known: Known, request: FuzzRequest, media: HostileMedia): Promise<Response> {
  const headers: Record<string, string> = {};
  if (request.auth === 'key') headers['x-api-key'] = key;
  if (request.auth === 'garbage') headers['x-api-key'] = 'tlk_\u00ff garbage';
  let body: string | FormData | undefined;
  const b = request.body;
  if (b.kind === 'raw') {
    body = withKnown(b.text, known);
    if (b.contentType !== undefined) headers['content-type'] = b.contentType;
  } else if (b.kind === 'json') {
    body = withKnown(JSON.stringify(b.value) ?? 'null', known);
    headers['content-type'] = 'application/json';
  } else if (b.kind === 'multipart') {
    const form = new FormData();
    for (const [name, value] of b.fields) form.append(name, withKnown(value, known));
    for (const [name, file] of b.files) form.append(name, new Blob([media[file]!]), file);
    body = form;
  }
  const withBody = body !== undefined && request.method !== 'GET';
  return fetch(`${baseUrl}${withKnown(request.path, known)}${withKnown(request.query, known)}`, {
    method: request.method,
    headers,
    ...(withBody ? { body } : {}),
    signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
  });
}

/** 5xx answers that are the design, not a failure: endpoints not built here, and external providers this sandbox cannot reach. */
function expectedServerAnswer(request: FuzzRequest, status: number, code: unknown): boolean {
  if (status === 501 && code === 'not_implemented') return true;
  return status === 503 && code === 'service_unavailable' && /\/tasks\/(external-provider|transfers)\/?$/.test(request.path);
}

describe('fuzz: every route of every served version', () => {
  let stack: IndexingStack;
  let files: FileServer;
  let mediaDir: string;
  let media: HostileMedia;
  let key: string;
  let known: Known;
  let cases = 0;

  beforeAll(async () => {
    // With analyze-service and embed-service, so that text generation and embeddings are fuzzed behind their 501s.
    stack = await startIndexingStack({ uploadMaxBytes: 1024 * 1024, bodyLimitBytes: 64 * 1024, analyze: true, embed: true });
    media = hostileMedia();
    mediaDir = mkdtempSync(join(tmpdir(), 'vus-fuzz-media-'));
    const paths: Record<string, string> = {};
    for (const [name, bytes] of Object.entries(media)) {
      paths[name] = join(mediaDir, name);
      writeFileSync(paths[name], bytes);
    }
    files = await serveFiles(paths);
    await newOrganization();
  });
  /** A fresh organization with an index and a task (the Free plan's 60 index requests a minute would otherwise turn later cases into 429s). */
  const newOrganization = async () => {
    key = (await stack.newOrg()).key;
    const headers = { 'x-api-key': key, 'content-type': 'application/json' };
    const index = await fetch(`${stack.url}/v1.3/indexes`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ index_name: 'fuzz', models: [{ model_name: 'marengo2.7', model_options: ['visual', 'audio'] }] }),
    });
    const indexId = ((await index.json()) as { _id: string })._id;
    const task = await fetch(`${stack.url}/v1.3/tasks`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ index_id: indexId, video_url: files.url('truncated.mp4') }),
    });
    const { _id: taskId, video_id: videoId } = (await task.json()) as { _id: string; video_id: string };
    known = { '{index}': indexId, '{task}': taskId, '{video}': videoId };
  };
  afterAll(async () => {
    await files?.close();
    await stack?.stop();
    if (mediaDir) rmSync(mediaDir, { recursive: true, force: true });
  });

  it('lists the routes of every served version, the not-built ones and the file routes', () => {
    const paths = stack.gateway.routes.map((r) => `${r.method} ${r.path}`);
    expect(paths).toEqual(
      expect.arrayContaining(['post /v1.2/tasks', 'post /v1.3/search', 'post /p/v1.3/search', 'get /v1.2/indexes/:indexId']),
    );
    for (const version of SERVED_VERSIONS) expect(paths.some((p) => p.includes(` /${version}/`))).toBe(true);
    expect(paths.some((p) => p.startsWith('all '))).toBe(true); // the not-built endpoints (501)
    expect(paths.some((p) => p.startsWith('get /healthz'))).toBe(true);
  });

  it(
    'answers every request with a 2xx or 4xx in the error format, promptly, and keeps serving',
    async () => {
      const routes = stack.gateway.routes;
      await fc.assert(
        fc.asyncProperty(fuzzRequests(routes, files, media), async (request) => {
          if (++cases % CASES_PER_ORG === 0) await newOrganization();
          const response = await send(stack.url, key, known, request, media);
          if (request.method === 'DELETE' && response.ok) await newOrganization();
          const text = await response.text();
          const json = (() => {
            try {
              return JSON.parse(text) as Record<string, any>;
            } catch {
              return undefined;
            }
          })();
          const error = json?.error && typeof json.error === 'object' ? json.error : json; // v1.3 /embed-v2's form
          // v1's form is {error_code, message}, its error_code a number where v1 had one (versions/v1.ts).
          const code: unknown = error?.code ?? (typeof error?.error_code === 'number' ? String(error.error_code) : error?.error_code);
          if (response.status >= 400) {
            expect({ status: response.status, code: typeof code, message: typeof error?.message }).toEqual({
              status: response.status,
              code: 'string',
              message: 'string',
            });
            expect(response.status < 500 || expectedServerAnswer(request, response.status, code as string)).toBe(true);
            expect(error.message).not.toContain(stack.blobDir);
            expect(error.message).not.toMatch(/uploads\/[0-9a-f]{24}|\/tmp\/|node_modules|at [\w.]+ \(/);
          }
          const ordinary = await fetch(`${stack.url}/v1.3/indexes`, {
            headers: { 'x-api-key': key },
            signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
          });
          expect(ordinary.status).toBe(200);
        }),
        { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) },
      );
    },
    Math.max(60_000, RUNS * 1_000),
  );
});
