#!/usr/bin/env node
/**
 * The bundled concept embedding: cross-modal cosines on generated fixtures, then texts and images
 * embedded per second, and the scene descriptor (the visual vectors without CLIP) per second (one
 * process; the machine has 2 cores). Uses the built libs:
 *
 *   npx tsc -b libs/models libs/testing libs/media && node scripts/bench/embed.js
 *
 * Video is embedded as embed-service's tasks do it: a frame every 2 s through the detector and OCR,
 * clips as the union of their frames.
 */
'use strict';
const { join } = require('node:path');
const { readFile } = require('node:fs/promises');
const sharp = require('sharp');

const root = join(__dirname, '../..');
const models = require(join(root, 'libs/models/dist'));
const { openWordNet } = require(join(root, 'libs/wordnet/dist'));
const { photoPath, textScenesVideo } = require(join(root, 'libs/testing/dist'));
const { sampleFrames } = require(join(root, 'libs/media/dist'));

async function textFrame(text) {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="640" height="360"><rect width="100%" height="100%" fill="#f4f1ea"/><text x="60" y="200" font-family="DejaVu Sans" font-size="80" fill="#111">${text}</text></svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 90 }).toBuffer();
}

async function main() {
  const registry = new models.ModelRegistry([models.cocoDetectorProvider(), models.paddleOcrProvider()]);
  const wordnet = openWordNet();
  const vectors = models.openWordVectors();
  let started = process.hrtime.bigint();
  const embedder = new models.ConceptEmbedder(wordnet, vectors, {
    detector: await registry.get('object_detector'),
    textReader: await registry.get('text_reader'),
  });
  const text = (t) => embedder.embed(embedder.textConcepts(t), 1024);
  text('warm');
  console.log(
    `first use (word vector scan, WordNet, detector, OCR load): ${(Number(process.hrtime.bigint() - started) / 1e6).toFixed(0)} ms`,
  );
  const image = async (bytes) => embedder.embed(await embedder.imageConcepts(bytes), 1024);
  const inputs = {
    'cat photo': await image(await readFile(await photoPath('cat'))),
    'people photo': await image(await readFile(await photoPath('people'))),
    'phone photo': await image(await readFile(await photoPath('phone'))),
    'frame reading MOTORBIKE': await image(await textFrame('MOTORBIKE')),
    'cells photo (no object)': await image(await readFile(await photoPath('cells'))),
    // The detector's concepts of a motorcycle, as it reports them (no motorcycle photo ships in an npm package here).
    'label motorcycle 0.6': embedder.embed(
      models.labelConcepts('motorcycle', 0.6, wordnet, (w) => vectors.has(w)),
      1024,
    ),
  };
  const queries = ['motorcycle', 'motorbike', 'cat', 'animal', 'people', 'telephone', 'fish'];
  console.log(`\ncosine(text query, input) — 1024 dimensions`);
  console.log(''.padEnd(26) + queries.map((q) => q.padStart(11)).join(''));
  for (const [name, vector] of Object.entries(inputs)) {
    console.log(name.padEnd(26) + queries.map((q) => models.cosine(text(q), vector).toFixed(3).padStart(11)).join(''));
  }

  const words = ['a man riding a motorcycle', 'sardines in a tin', 'two kittens playing', 'a red car on the street', 'people talking'];
  started = process.hrtime.bigint();
  let n = 0;
  for (; n < 2000; n += 1) text(`${words[n % words.length]} ${n}`);
  const textSec = Number(process.hrtime.bigint() - started) / 1e9;
  const frame = await readFile(await photoPath('people'));
  started = process.hrtime.bigint();
  let m = 0;
  for (; m < 10; m += 1) await image(frame);
  const imageSec = Number(process.hrtime.bigint() - started) / 1e9;
  console.log(
    `\ntexts per second: ${(n / textSec).toFixed(0)}   images per second (detector + OCR + colour): ${(m / imageSec).toFixed(2)}`,
  );
  // The visual model without CLIP (embed-service's `scene`): one vector per keyframe and per query image.
  started = process.hrtime.bigint();
  let k = 0;
  for (; k < 100; k += 1) await models.sceneDescriptor(frame);
  const sceneSec = Number(process.hrtime.bigint() - started) / 1e9;
  console.log(`scene descriptors per second (${frame.length} byte JPEG): ${(k / sceneSec).toFixed(0)}`);

  const video = await textScenesVideo();
  started = process.hrtime.bigint();
  const bags = [];
  for await (const frame of sampleFrames(video.path, { fps: 0.5, width: 640 })) bags.push(await embedder.imageConcepts(frame.data));
  for (let at = 0; at < bags.length; at += 3) embedder.embed(models.unionOfFrames(bags.slice(at, at + 3)), 1024);
  const videoSec = Number(process.hrtime.bigint() - started) / 1e9;
  console.log(
    `seconds of video embedded per second of wall time (${video.truth.durationSec} s, 6 s clips): ${(video.truth.durationSec / videoSec).toFixed(2)}`,
  );
  await registry.dispose();
  wordnet.close();
  vectors.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
