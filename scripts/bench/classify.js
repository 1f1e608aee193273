#!/usr/bin/env node
/**
 * Classify benchmark (issue 18): bulk classification of an index of 1,000 synthetic videos into
 * 5 classes × 3 prompts through the gateway — the latency of the first page and the time to read
 * every page — and whether the videos that show a class's object are classified, top class first.
 *
 * index-service, search-service, classify-service and the gateway run in this process on
 * loopback, each on a throwaway database of the local PostgreSQL (TEST_DATABASE_URL, default
 * postgres://postgres@127.0.0.1:5432/postgres), all dropped at the end. Videos (60 s each) are
 * created on index-service and their segments ingested on search-service: six 10 s scenes
 * labelled with one or two COCO classes, three on-screen words and three transcript lines, drawn
 * by a seeded generator. Requests are sequential (one connection): bounded, a few seconds of load.
 *
 *   npm run build && node scripts/bench/classify.js [--videos 1000] [--runs 3] [--page-limit 10] [--seed 1]
 */
'use strict';
const { performance } = require('node:perf_hooks');
const { parseArgs } = require('node:util');
const { createLogger, newId } = require('@vus/core');
const { createIndexClient, createSearchClient } = require('@vus/clients');
const { startIndexService } = require('@vus/index-service');
const { startSearchService } = require('@vus/search-service');
const { startClassifyService } = require('@vus/classify-service');
const { startGateway } = require('@vus/gateway');
const { benchRun, percentile, seededRandom } = require('./lib');

const { values: args } = parseArgs({
  options: {
    videos: { type: 'string', default: '1000' },
    runs: { type: 'string', default: '3' },
    'page-limit': { type: 'string', default: '10' },
    seed: { type: 'string', default: '1' },
  },
});
const VIDEOS = Number(args.videos);
const RUNS = Number(args.runs);
const PAGE_LIMIT = Number(args['page-limit']);
const logger = createLogger({ service: 'bench', level: process.env.BENCH_LOG_LEVEL ?? 'silent' });

/** 5 classes × 3 prompts, each prompt a COCO class the scenes are labelled with. */
const CLASSES = [
  { name: 'Animals', prompts: ['cat', 'dog', 'horse'] },
  { name: 'Vehicles', prompts: ['car', 'bus', 'bicycle'] },
  { name: 'Food', prompts: ['pizza', 'banana', 'cake'] },
  { name: 'Sports', prompts: ['skateboard', 'surfboard', 'kite'] },
  { name: 'Electronics', prompts: ['laptop', 'cell phone', 'keyboard'] },
];
/** What scenes show: the classes' objects and as many others that match no prompt. */
const LABELS = [
  ...CLASSES.flatMap((c) => c.prompts),
  'chair',
  'couch',
  'bed',
  'bottle',
  'cup',
  'book',
  'clock',
  'vase',
  'umbrella',
  'bench',
  'potted plant',
  'sink',
  'oven',
  'toilet',
  'tie',
];
const WORDS = ['SALE', 'WELCOME', 'OPEN', 'NEWS', 'LIVE', 'EXIT', 'MENU', 'TODAY', 'SUMMER', 'CITY'];
const LINES = ['we are here today', 'thank you for watching', 'look at this', 'see you next time', 'let us begin', 'that is all for now'];

/** One video: its segments and the classes its scenes show (the truth the answer is checked against). */
function syntheticVideo(random) {
  const pick = (list) => list[Math.floor(random() * list.length)];
  const segment = (start, end, modality, text, labels = []) => ({
    start,
    end,
    modality,
    text,
    labels,
    vector: [],
    vector_model: '',
    thumbnail_key: '',
  });
  const segments = [];
  const shown = new Set();
  for (let i = 0; i < 6; i++) {
    const labels = [...new Set([pick(LABELS), ...(random() < 0.5 ? [pick(LABELS)] : [])])];
    for (const label of labels) for (const c of CLASSES) if (c.prompts.includes(label)) shown.add(c.name);
    segments.push(segment(i * 10, i * 10 + 10, 'visual', '', labels));
  }
  for (let i = 0; i < 3; i++) segments.push(segment(i * 20, i * 20 + 4, 'text_in_video', pick(WORDS)));
  for (let i = 0; i < 3; i++) segments.push(segment(i * 20 + 5, i * 20 + 9, 'conversation', pick(LINES)));
  return { segments, shown, duration: 60 };
}

async function main() {
  const bench = benchRun();
  try {
    const index = await startIndexService({ bind: '127.0.0.1:0', database: await bench.postgres('index'), logger });
    bench.onStop(() => index.stop());
    const search = await startSearchService({
      bind: '127.0.0.1:0',
      database: await bench.postgres('search'),
      indexServiceAddress: index.address,
      logger,
    });
    bench.onStop(() => search.stop());
    const classify = await startClassifyService({
      bind: '127.0.0.1:0',
      database: await bench.postgres('classify'),
      indexServiceAddress: index.address,
      searchServiceAddress: search.address,
      logger,
    });
    bench.onStop(() => classify.stop());
    const gateway = await startGateway({
      host: '127.0.0.1',
      port: 0,
      database: await bench.postgres('gateway'),
      indexServiceAddress: index.address,
      searchServiceAddress: search.address,
      classifyServiceAddress: classify.address,
      logger,
    });
    bench.onStop(() => gateway.stop());
    const org = await gateway.keys.createOrganization('bench-classify');
    const { secret: key } = await gateway.keys.createKey(org.id, 'bench');

    const indexes = createIndexClient(index.address);
    const segments = createSearchClient(search.address);
    bench.onStop(() => (indexes.close(), segments.close()));
    const ctx = () => ({ orgId: org.id, deadline: new Date(Date.now() + 120_000) });
    const created = await indexes.createIndex(ctx(), {
      name: 'bench',
      models: [{ name: 'marengo2.7', options: ['visual', 'conversation', 'text_in_video'] }],
      addons: [],
    });

    const random = seededRandom(Number(args.seed));
    const truth = new Map();
    const loadStarted = performance.now();
    for (let n = 0; n < VIDEOS; n++) {
      const videoId = newId();
      const video = syntheticVideo(random);
      truth.set(videoId, video.shown);
      // CreateVideo one at a time (concurrent ones in one index contend for its row), segments beside it.
      await Promise.all([
        indexes.createVideo(ctx(), {
          index_id: created.id,
          video_id: videoId,
          system_metadata: { filename: `v${n}.mp4`, duration: video.duration, fps: 25, width: 1280, height: 720, size: 1_000_000 },
          extractors_run: ['visual', 'conversation', 'text_in_video'],
        }),
        segments.ingestSegments(ctx(), { index_id: created.id, video_id: videoId, segments: video.segments }),
      ]);
    }
    const showing = [...truth.values()].filter((shown) => shown.size > 0).length;
    console.log(
      `loaded ${VIDEOS} videos (${(VIDEOS * 12).toLocaleString('en')} segments) in ${((performance.now() - loadStarted) / 1000).toFixed(1)} s; ${showing} show an object of some class`,
    );

    const post = (path, body) =>
      fetch(`${gateway.url}/v1.2${path}`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const get = (path) => fetch(`${gateway.url}/v1.2${path}`, { headers: { 'x-api-key': key } });
    const body = {
      index_id: created.id,
      classes: CLASSES,
      options: ['visual', 'conversation', 'text_in_video'],
      page_limit: PAGE_LIMIT,
      include_clips: true,
      show_detailed_score: true,
    };

    const runs = [];
    for (let run = 0; run < RUNS; run++) {
      const started = performance.now();
      const first = await post('/classify/bulk', body);
      if (first.status !== 200) throw new Error(`classify/bulk answered ${first.status}: ${await first.text()}`);
      let page = await first.json();
      const firstMs = performance.now() - started;
      const classified = new Map();
      let pages = 1;
      for (;;) {
        for (const video of page.data) classified.set(video.video_id, video.classes);
        const token = page.page_info.next_page_token;
        if (!token) break;
        const next = await get(`/classify/${token}`);
        if (next.status !== 200) throw new Error(`page ${pages + 1} answered ${next.status}`);
        page = await next.json();
        pages++;
      }
      const totalMs = performance.now() - started;
      const topShown = [...classified].filter(([id, classes]) => truth.get(id).has(classes[0].name)).length;
      const unshown = [...classified].flatMap(([id, classes]) => classes.filter((c) => !truth.get(id).has(c.name)));
      runs.push({ firstMs, totalMs });
      console.log(
        `run ${run + 1}: first page ${firstMs.toFixed(0)} ms, all ${pages} pages ${totalMs.toFixed(0)} ms; ${classified.size} of the ${showing} videos that show a class classified, ` +
          `top class shown in ${topShown}; ${unshown.length} lower classes not shown (best score ${Math.max(0, ...unshown.map((c) => c.score))}: WordNet near-matches)`,
      );
    }
    console.log(
      `\np50 over ${RUNS} runs: first page ${percentile(
        runs.map((r) => r.firstMs),
        50,
      ).toFixed(0)} ms, every page ${percentile(
        runs.map((r) => r.totalMs),
        50,
      ).toFixed(0)} ms`,
    );
    console.log(
      `peak RSS of this process (gateway and services; PostgreSQL not counted): ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`,
    );
  } finally {
    await bench.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
