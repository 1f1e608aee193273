#!/usr/bin/env node
/**
 * Text generation benchmark (issue 17): time to the first streamed event and to the full summary,
 * for a 10-minute indexed video, bundled extractive provider, through the gateway.
 *
 * index-service, search-service, analyze-service and the gateway run in this process on loopback,
 * each on a throwaway database of the local PostgreSQL (TEST_DATABASE_URL), dropped at the end.
 * The video's evidence is written as the indexing worker writes it (CreateVideo, PutVideoArtifacts,
 * IngestSegments) rather than indexed from media, so that only generation is measured: a transcript
 * line every 4 s, on-screen text read once a second for 3 s every 20 s, a logo now and then, and a
 * scene every 8 s labelled with COCO classes (a seeded generator makes runs comparable).
 *
 * Measured over HTTP (node:http) after one authenticated request (the key's first check is a password
 * hash): the first request for the video (its evidence is read from index-service and search-service,
 * over connections opened then; WordNet was read when analyze-service started) and then `--runs`
 * warm requests (the timeline is cached per video version), each for
 *   - POST /v1.3/analyze (stream): until the first event line (stream_start), the first
 *     text_generation line, and stream_end;
 *   - POST /v1.3/summarize (summary): until the whole JSON answer.
 *
 *   npm run build && node scripts/bench/analyze.js [--minutes 10] [--runs 20] [--seed 1]
 *
 * Target on this 2-core machine: first event under 300 ms.
 */
'use strict';
const { request } = require('node:http');
const { performance } = require('node:perf_hooks');
const { parseArgs } = require('node:util');
const { createLogger, newId } = require('@vus/core');
const { createIndexClient, createSearchClient } = require('@vus/clients');
const { startIndexService } = require('@vus/index-service');
const { startSearchService } = require('@vus/search-service');
const { startAnalyzeService } = require('@vus/analyze-service');
const { startGateway } = require('@vus/gateway');
const { benchRun, percentile, seededRandom } = require('./lib');

const { values: args } = parseArgs({
  options: { minutes: { type: 'string', default: '10' }, runs: { type: 'string', default: '20' }, seed: { type: 'string', default: '1' } },
});
const minutes = Number(args.minutes);
const runs = Number(args.runs);

const SUBJECTS = ['the chef', 'our guide', 'the team', 'the driver', 'the teacher', 'this machine', 'the city', 'the garden'];
const VERBS = ['prepares', 'explains', 'shows', 'builds', 'cleans', 'visits', 'repairs', 'paints'];
const OBJECTS = [
  'a tomato sauce',
  'the old bridge',
  'a wooden table',
  'the river bank',
  'a red bicycle',
  'the market square',
  'fresh bread',
  'the engine',
];
const CAPTIONS = ['STEP ONE', 'INGREDIENTS', 'THE OLD TOWN', 'SAFETY FIRST', 'CHAPTER TWO', 'THANK YOU', 'MARKET DAY', 'TOOLS'];
const LABELS = ['person', 'car', 'bicycle', 'dog', 'bowl', 'cup', 'chair', 'dining table', 'bottle', 'potted plant', 'truck', 'bench'];
const LOGOS = ['Acme', 'Globex', 'Initech'];

function evidence(durationSec, random) {
  const pick = (list) => list[Math.floor(random() * list.length)];
  const transcription = [];
  for (let t = 1; t + 3 < durationSec; t += 4)
    transcription.push({ start: t, end: t + 3, value: `Now ${pick(SUBJECTS)} ${pick(VERBS)} ${pick(OBJECTS)}.` });
  const textInVideo = [];
  for (let t = 0; t + 3 <= durationSec; t += 20) {
    const caption = pick(CAPTIONS);
    for (let s = 0; s < 3; s += 1) textInVideo.push({ start: t + s, end: t + s + 1, value: caption });
  }
  const logo = [];
  for (let t = 45; t < durationSec; t += 90) logo.push({ start: t, end: t + 2, value: pick(LOGOS) });
  const segments = [];
  for (let t = 0; t < durationSec; t += 8) {
    segments.push({
      start: t,
      end: Math.min(durationSec, t + 8),
      modality: 'visual',
      labels: [...new Set([pick(LABELS), pick(LABELS), pick(LABELS)])],
    });
  }
  return { transcription, textInVideo, logo, segments };
}

/** POST as JSON; resolves when `until(line)` says so for a streamed line, or at the end. */
function post(url, key, body, marks) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const times = {};
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key } }, (res) => {
      let buffered = '';
      res.on('data', (chunk) => {
        buffered += chunk.toString();
        for (const [name, pattern] of Object.entries(marks))
          if (times[name] === undefined && pattern.test(buffered)) times[name] = performance.now() - started;
      });
      res.on('end', () => {
        times.end = performance.now() - started;
        if (res.statusCode !== 200) reject(new Error(`${url} answered ${res.statusCode}: ${buffered}`));
        else resolve(times);
      });
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const ms = (value) => `${value.toFixed(1)} ms`;

async function main() {
  const logger = createLogger({ service: 'bench', level: process.env.BENCH_LOG_LEVEL ?? 'silent' });
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
    const analyze = await startAnalyzeService({
      bind: '127.0.0.1:0',
      database: await bench.postgres('analyze'),
      indexServiceAddress: index.address,
      searchServiceAddress: search.address,
      logger,
    });
    bench.onStop(() => analyze.stop());
    const gateway = await startGateway({
      host: '127.0.0.1',
      port: 0,
      database: await bench.postgres('gateway'),
      indexServiceAddress: index.address,
      searchServiceAddress: search.address,
      analyzeServiceAddress: analyze.address,
      logger,
    });
    bench.onStop(() => gateway.stop());

    const org = await gateway.keys.createOrganization('bench-analyze');
    const { secret: key } = await gateway.keys.createKey(org.id, 'bench');
    const ctx = { orgId: org.id };
    const indexClient = createIndexClient(index.address);
    const searchClient = createSearchClient(search.address);
    bench.onStop(() => (indexClient.close(), searchClient.close()));
    const created = await indexClient.createIndex(ctx, {
      name: 'bench',
      models: [
        { name: 'marengo2.7', options: ['visual', 'conversation', 'text_in_video', 'logo'] },
        { name: 'pegasus1.2', options: ['visual', 'conversation'] },
      ],
      addons: [],
    });
    const durationSec = minutes * 60;
    const videoId = newId();
    const found = evidence(durationSec, seededRandom(Number(args.seed)));
    await indexClient.createVideo(ctx, {
      index_id: created.id,
      video_id: videoId,
      system_metadata: { filename: 'bench.mp4', duration: durationSec, fps: 25, width: 1280, height: 720, size: 1 },
      extractors_run: ['visual', 'conversation', 'text_in_video', 'logo'],
      media_blob_key: '',
    });
    await indexClient.putVideoArtifacts(ctx, {
      index_id: created.id,
      video_id: videoId,
      artifacts: { transcription: found.transcription, text_in_video: found.textInVideo, logo: found.logo, thumbnails: [] },
    });
    await searchClient.ingestSegments(ctx, { index_id: created.id, video_id: videoId, segments: found.segments });
    console.log(
      `${minutes}-minute video: ${found.transcription.length} transcript lines, ${found.textInVideo.length} on-screen text reads, ` +
        `${found.logo.length} logos, ${found.segments.length} scenes`,
    );

    const analyzeOnce = () =>
      post(
        `${gateway.url}/v1.3/analyze`,
        key,
        { video_id: videoId, prompt: 'What does the chef prepare?' },
        { firstEvent: /\n/, firstText: /"text_generation"/ },
      );
    const summarizeOnce = () => post(`${gateway.url}/v1.3/summarize`, key, { video_id: videoId, type: 'summary' }, {});

    // The key's first check (a password hash) and the gateway's first connections are not generation.
    const started = performance.now();
    await new Promise((resolve, reject) =>
      request(`${gateway.url}/v1.3/indexes`, { headers: { 'x-api-key': key } }, (res) => res.resume().on('end', resolve))
        .on('error', reject)
        .end(),
    );
    console.log(`first authenticated request (GET /v1.3/indexes): ${ms(performance.now() - started)}`);
    const cold = await analyzeOnce();
    console.log(
      `first analyze of the video (its evidence read, first service connections): first event ${ms(cold.firstEvent)}, first text ${ms(cold.firstText)}, end ${ms(cold.end)}`,
    );
    const coldSummary = await summarizeOnce();
    console.log(`first summary: ${ms(coldSummary.end)}`);
    const warm = [];
    const summaries = [];
    for (let i = 0; i < runs; i += 1) {
      warm.push(await analyzeOnce());
      summaries.push(await summarizeOnce());
    }
    const column = (list, name) => list.map((t) => t[name]);
    console.log(
      `warm analyze, ${runs} runs: first event p50 ${ms(percentile(column(warm, 'firstEvent'), 50))} p95 ${ms(percentile(column(warm, 'firstEvent'), 95))}; ` +
        `first text p50 ${ms(percentile(column(warm, 'firstText'), 50))}; end p50 ${ms(percentile(column(warm, 'end'), 50))}`,
    );
    console.log(
      `warm summary, ${runs} runs: p50 ${ms(percentile(column(summaries, 'end'), 50))} p95 ${ms(percentile(column(summaries, 'end'), 95))}`,
    );
  } finally {
    await bench.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
