#!/usr/bin/env node
/**
 * Search quality benchmark (issue 23): labelled queries over generated fixtures and the official
 * SDK's example video, answered by search-service; prints recall@1, recall@5 and the mean clip
 * length per group of queries and overall.
 *
 * recall@k is the moment-retrieval convention: the share of queries for which one of the first k
 * clips overlaps a labelled moment (by more than 0.1 s). Labels are where the answer is, by
 * construction (generated fixtures: their ground truth) or by watching (example.mp4: the SDK's 160 s
 * news clip, labelled on 2026-11-25 from a frame every 5 s and fixtures/speech-labels.json). Mean clip
 * length is over the first five clips of every query: a search that answered with whole videos would
 * reach every label and say nothing, so the two are read together.
 *
 * 1. Indexing, once: index-service, search-service and task-service with its worker (the bundled
 *    detector, OCR and PocketSphinx when installed; no CLIP) index each fixture; its segments, as
 *    search-service lists them (without vectors), are cached in the fixture folder. `--reindex`
 *    indexes again (after a change to an extractor). Cached segments make before/after runs of a
 *    search change compare the same index.
 * 2. Searching: the cached segments are ingested into a fresh index and every labelled query runs
 *    through search-service's Search RPC with the options it names and the default threshold (low).
 *
 *   npx tsc -b services/search-service services/task-service libs/testing && node scripts/bench/search-quality.js [--reindex] [--verbose] [--fixtures topics,objects]
 */
'use strict';
const { readFile, writeFile, mkdtemp, rm } = require('node:fs/promises');
const { createReadStream } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { parseArgs } = require('node:util');
const { createLogger, newId } = require('@vus/core');
const { createThrowawayDatabase } = require('@vus/db/testing');
const { InProcessEventBus } = require('@vus/events');
const { FileBlobStore } = require('@vus/blob');
const { createIndexClient, createSearchClient } = require('@vus/clients');
const { callUnary, createClient, loadProto } = require('@vus/grpc');
const { createModelRegistry, missingPocketSphinx, POCKETSPHINX_DEFAULTS } = require('@vus/models');
const { startIndexService } = require('@vus/index-service');
const { startSearchService } = require('@vus/search-service');
const { startTaskService } = require('@vus/task-service');
const { cachedFixture, objectsVideo, speechFixture, topicsVideo, wordsAndSubtitlesVideo } = require('@vus/testing');

const { values: args } = parseArgs({
  options: {
    reindex: { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
    fixtures: { type: 'string' },
  },
});
const logger = createLogger({ service: 'bench', level: process.env.BENCH_LOG_LEVEL ?? 'silent' });
const ALL_OPTIONS = ['visual', 'conversation', 'text_in_video', 'logo'];
/** Speech labels are word onsets: a clip within this many seconds of one holds it (@vus/testing's tolerance). */
const SPEECH_TOLERANCE = 1.5;

const around = (time) => [time - SPEECH_TOLERANCE, time + SPEECH_TOLERANCE];

/** Fixtures, their files, and labelled queries: [query, options, moments ([start, end] in seconds)]. */
const FIXTURES = [
  {
    name: 'words-and-subtitles',
    file: async () => (await wordsAndSubtitlesVideo()).path,
    queries: [
      ['orange', ALL_OPTIONS, [[0, 4]]],
      ['garden', ALL_OPTIONS, [[6, 8]]],
      ['bicycle', ALL_OPTIONS, [[8, 12]]],
      ['quick brown fox', ALL_OPTIONS, [[0.5, 3]]],
      ['a fox jumping over a dog', ['conversation'], [[0.5, 3]]],
      ['video understanding', ['conversation'], [[3.5, 6]]],
      ['bike', ALL_OPTIONS, [[8, 12]]],
    ],
  },
  {
    name: 'objects',
    file: async () => (await objectsVideo()).path,
    queries: [
      ['people', ALL_OPTIONS, [[0, 3]]],
      ['a woman', ALL_OPTIONS, [[0, 3]]],
      ['a cat', ALL_OPTIONS, [[6, 9]]],
      ['kitten', ALL_OPTIONS, [[6, 9]]],
      ['mobile phone', ALL_OPTIONS, [[9, 12]]],
    ],
  },
  {
    name: 'topics',
    file: async () => (await topicsVideo()).path,
    queries: [
      ['fish', ALL_OPTIONS, [[0, 6]]],
      ['space', ALL_OPTIONS, [[6, 18]]],
      ['kitchen', ALL_OPTIONS, [[0, 6]]],
      ['athletes racing', ALL_OPTIONS, [[18, 24]]],
      ['spacecraft', ['conversation'], [[6, 18]]],
      [
        'cooking show sardines marathon launch',
        ALL_OPTIONS,
        [
          [0, 6],
          [6, 12],
          [18, 24],
        ],
      ],
      ['city vote', ALL_OPTIONS, [[24, 30]]],
    ],
  },
  {
    name: 'sdk-example',
    file: async () => speechFixture('twelvelabs-example').path,
    // Speech and objects: OCR over its 160 frames took longer than the worker's frame stage allows
    // on a loaded 2-core machine, so its on-screen text is not indexed here.
    indexOptions: ['visual', 'conversation'],
    queries: [
      ['A man talking', ALL_OPTIONS, [[30, 160.6]]],
      [
        'a woman',
        ALL_OPTIONS,
        [
          [0, 10],
          [25, 30],
        ],
      ],
      ['train crash', ['conversation'], [around(10.93)]],
      ['vinyl chloride', ['conversation'], [around(47.32)]],
      ['correspondent', ['conversation'], [around(25.83)]],
      ['class action lawsuits', ['conversation'], [around(103.14)]],
      ['people at a meeting', ALL_OPTIONS, [[90, 160.6]]],
      ['chemicals', ['conversation'], [[40, 60]]],
    ],
  },
];

async function startStack(withWorker) {
  const databases = [];
  const target = async () => {
    const database = await createThrowawayDatabase();
    databases.push(database);
    return { kind: 'postgres', url: database.url };
  };
  const dir = await mkdtemp(join(tmpdir(), 'vus-search-quality-'));
  const blobs = await FileBlobStore.open(join(dir, 'blobs'));
  const bus = new InProcessEventBus();
  const indexService = await startIndexService({ bind: '127.0.0.1:0', database: await target(), bus, logger, blobs });
  const pocketsphinx = missingPocketSphinx(POCKETSPHINX_DEFAULTS) ? undefined : POCKETSPHINX_DEFAULTS;
  const models = withWorker
    ? createModelRegistry({
        modelsDir: join(dir, 'no-models'),
        allowDownload: false,
        clipModel: 'none/clip',
        whisperModel: 'none/whisper',
        pocketsphinx,
      })
    : undefined;
  const searchService = await startSearchService({
    bind: '127.0.0.1:0',
    database: await target(),
    indexServiceAddress: indexService.address,
    bus,
    models,
    logger,
  });
  const taskService = withWorker
    ? await startTaskService({
        bind: '127.0.0.1:0',
        database: await target(),
        bus,
        logger,
        indexServiceAddress: indexService.address,
        blobs,
        worker: { blobs, models, workRoot: join(dir, 'work'), pollMs: 200, searchServiceAddress: searchService.address },
      })
    : undefined;
  const indexes = createIndexClient(indexService.address);
  const search = createSearchClient(searchService.address);
  return {
    blobs,
    indexes,
    search,
    taskService,
    pocketsphinx,
    async stop() {
      indexes.close();
      search.close();
      await taskService?.stop();
      await searchService.stop();
      await indexService.stop();
      await models?.dispose();
      await bus.close();
      for (const database of databases) await database.drop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function createIndex(stack, ctx, name, options = ALL_OPTIONS) {
  return stack.indexes.createIndex(ctx, { name, models: [{ name: 'marengo2.7', options }], addons: [] });
}

/** Indexes one file with the real worker and returns its segments as search-service lists them. */
async function indexSegments(file, name, options) {
  const stack = await startStack(true);
  try {
    const ctx = { orgId: newId() };
    const index = await createIndex(stack, ctx, `quality-${name}`, options);
    const { proto } = loadProto();
    const tasks = createClient(proto.vus.task.v1.TaskService, stack.taskService.address);
    const key = `uploads/quality/${name}`;
    await stack.blobs.put(key, createReadStream(file));
    const started = Date.now();
    const created = await callUnary(
      (md, opts, cb) => tasks.CreateTask({ index_id: index.id, video_blob_key: key, filename: `${name}.mp4` }, md, opts, cb),
      ctx,
    );
    let task;
    do {
      await new Promise((r) => setTimeout(r, 500));
      task = await callUnary((md, opts, cb) => tasks.GetTask({ task_id: created.id }, md, opts, cb), ctx);
    } while (task.status !== 'ready' && task.status !== 'failed');
    tasks.close();
    if (task.status === 'failed') throw new Error(`indexing ${name} failed: ${task.failure.message}`);
    console.error(`indexed ${name} in ${((Date.now() - started) / 1000).toFixed(0)} s (ran: ${task.extractors_run.join(', ')})`);
    const { segments } = await stack.search.listVideoSegments(ctx, index.id, task.video_id);
    return segments;
  } finally {
    await stack.stop();
  }
}

async function segmentsOf(fixture) {
  const file = await fixture.file();
  const options = fixture.indexOptions ?? ALL_OPTIONS;
  const make = async (out) => writeFile(out, JSON.stringify(await indexSegments(file, fixture.name, options)));
  const key = { file, options, version: 1, reindex: args.reindex ? Date.now() : 0 };
  return JSON.parse(await readFile(await cachedFixture(`search-quality-${fixture.name}`, 'json', key, make), 'utf8'));
}

const overlaps = (clip, [start, end]) => Math.min(clip.end, end) - Math.max(clip.start, start) > 0.1;

/**
 * The fixtures named by `--fixtures a,b` (all when absent). Every chosen fixture shares one index,
 * so the others are distractors: compare runs only over the same selection.
 */
function chosenFixtures() {
  if (args.fixtures === undefined) return FIXTURES;
  const names = args.fixtures.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !FIXTURES.some((f) => f.name === name));
  if (unknown.length > 0) throw new Error(`unknown fixtures: ${unknown.join(', ')} (known: ${FIXTURES.map((f) => f.name).join(', ')})`);
  return FIXTURES.filter((f) => names.includes(f.name));
}

async function main() {
  const fixtures = chosenFixtures();
  const segmentsByFixture = new Map();
  for (const fixture of fixtures) segmentsByFixture.set(fixture.name, await segmentsOf(fixture));

  const stack = await startStack(false);
  const rows = [];
  /** Per confidence, how many of the first five clips of every query hold a labelled moment: what `high` means here. */
  const calibration = {};
  try {
    const ctx = { orgId: newId() };
    const index = await createIndex(stack, ctx, 'quality');
    const videoIds = new Map();
    for (const fixture of fixtures) {
      // Fixed ids (by place in FIXTURES): ties between videos are broken by id, and runs must compare.
      const videoId = `6700000000000000000000${String(FIXTURES.indexOf(fixture)).padStart(2, '0')}`;
      videoIds.set(fixture.name, videoId);
      const segments = segmentsByFixture.get(fixture.name).map((s) => ({ ...s, vector: [], vector_model: '' }));
      await stack.search.ingestSegments(ctx, { index_id: index.id, video_id: videoId, segments });
    }
    for (const fixture of fixtures) {
      const videoId = videoIds.get(fixture.name);
      for (const [query, options, moments] of fixture.queries) {
        const page = await stack.search.search(ctx, {
          index_id: index.id,
          query_text: query,
          search_options: options,
          page_limit: 50,
        });
        const clips = page.clips.map((c) => ({
          videoId: c.video_id,
          start: c.start,
          end: c.end,
          score: c.score,
          confidence: c.confidence,
        }));
        const hitAt = clips.findIndex((c) => c.videoId === videoId && moments.some((m) => overlaps(c, m)));
        const first5 = clips.slice(0, 5);
        for (const c of first5) {
          const relevant = c.videoId === videoId && moments.some((m) => overlaps(c, m));
          const tally = (calibration[c.confidence] ??= { relevant: 0, other: 0 });
          tally[relevant ? 'relevant' : 'other'] += 1;
        }
        rows.push({
          group: fixture.name,
          query,
          r1: hitAt === 0 ? 1 : 0,
          r5: hitAt >= 0 && hitAt < 5 ? 1 : 0,
          lengths: first5.map((c) => c.end - c.start),
          clips: clips.length,
        });
        if (args.verbose) {
          const shown = first5.map(
            (c) => `${c.videoId === videoId ? '' : '(other) '}${c.start.toFixed(1)}–${c.end.toFixed(1)} ${c.score} ${c.confidence}`,
          );
          console.log(
            `${fixture.name} "${query}" [${options.join(',')}]: hit at ${hitAt + 1 || '-'}; ${clips.length} clips; ${shown.join(' | ')}`,
          );
        }
      }
    }
  } finally {
    await stack.stop();
  }

  const table = (name, list) => {
    const lengths = list.flatMap((r) => r.lengths);
    const mean = (xs) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
    return {
      group: name,
      queries: list.length,
      'recall@1': mean(list.map((r) => r.r1)).toFixed(2),
      'recall@5': mean(list.map((r) => r.r5)).toFixed(2),
      'mean clip s': mean(lengths).toFixed(1),
      answered: list.filter((r) => r.clips > 0).length,
    };
  };
  const groups = [...new Set(rows.map((r) => r.group))];
  console.table([
    ...groups.map((g) =>
      table(
        g,
        rows.filter((r) => r.group === g),
      ),
    ),
    table('all', rows),
  ]);
  console.log('first five clips of each query, by confidence: how many hold a labelled moment');
  console.table(
    ['high', 'medium', 'low', 'none'].map((confidence) => {
      const { relevant = 0, other = 0 } = calibration[confidence] ?? {};
      return {
        confidence,
        clips: relevant + other,
        relevant,
        precision: relevant + other ? (relevant / (relevant + other)).toFixed(2) : '-',
      };
    }),
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
