#!/usr/bin/env node
/**
 * True and false match rates of the face matcher (libs/models face-recognition.ts + face-match.ts)
 * on real faces, over a sweep of thresholds, to choose FACE_MATCH_THRESHOLD.
 *
 *   npx tsc -b libs/models && node scripts/bench/face-match.js [threshold…]
 *
 * Faces: the six group photographs shipped in @vladmandic/face-api's demo folder (MIT package;
 * 21 faces of 21 people found by BlazeFace, whose faces face-recognition.ts embeds). Each face in its
 * full photo is a person's reference image. True matches: that face altered as footage alters it — scaled down, cropped differently,
 * blurred, recompressed hard, mirrored, rotated in plane, squeezed sideways (a crude stand-in for a
 * partly turned head: a photo cannot be turned) and pasted small into a 1280×720 frame recompressed
 * as video — each compared with the reference. A variant whose face the detector misses counts as
 * a missed true match. False matches: every other person's reference and variants. Faces of one
 * photo are surely different people; the photos carry no identity labels, so a person could recur
 * across photos: cross-photo pairs are printed separately, and the closest ones named, to check by eye.
 * Rates are deterministic (same images, same weights); the timing line is the machine's (load shown).
 */
'use strict';

const os = require('node:os');
const path = require('node:path');
const sharp = require('sharp');
const { FaceRecognition, faceDistance, FACE_MATCH_THRESHOLD } = require('../../libs/models/dist');

const PHOTOS = [1, 2, 3, 4, 5, 6].map((n) =>
  path.join(path.dirname(require.resolve('@vladmandic/face-api/package.json')), 'demo', `sample${n}.jpg`),
);
const SWEEP = process.argv.slice(2).map(Number).filter(Number.isFinite);
const THRESHOLDS = SWEEP.length ? SWEEP : [0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7];

/** A crop around the face: the box grown by `grow` of its size on each side, clipped to the photo. */
function around(box, grow, photo) {
  const left = Math.max(0, Math.round(box.x - box.width * grow));
  const top = Math.max(0, Math.round(box.y - box.height * grow));
  const right = Math.min(photo.width, Math.round(box.x + box.width * (1 + grow)));
  const bottom = Math.min(photo.height, Math.round(box.y + box.height * (1 + grow)));
  return { left, top, width: right - left, height: bottom - top };
}

const jpeg = (image, quality) => image.jpeg({ quality }).toBuffer();

/**
 * The altered copies of one face: [name, image bytes, where the face's centre is in them (0–1 of
 * width and height), since a crop may also hold part of a neighbour's face].
 */
async function variants(file, box, photo) {
  const crop = around(box, 0.6, photo);
  const centre = { x: (box.x + box.width / 2 - crop.left) / crop.width, y: (box.y + box.height / 2 - crop.top) / crop.height };
  const base = () => sharp(file).extract(crop);
  const png = await base().png().toBuffer();
  const out = [];
  const add = async (name, bytes, at = centre) => out.push([name, await bytes, at]);
  const faceSide = (scale) => Math.max(8, Math.round(crop.width * scale));
  // Scaled so the face is about 60 and 40 pixels wide.
  await add('scaled-60px', jpeg(sharp(png).resize(faceSide(60 / box.width)), 90));
  await add('scaled-40px', jpeg(sharp(png).resize(faceSide(40 / box.width)), 90));
  // A tighter crop (face plus 15 %) and one shifted so the face sits off centre.
  const tight = around(box, 0.15, photo);
  await add('cropped-tight', jpeg(sharp(file).extract(tight), 90), {
    x: (box.x + box.width / 2 - tight.left) / tight.width,
    y: (box.y + box.height / 2 - tight.top) / tight.height,
  });
  await add('blur-2', jpeg(sharp(png).blur(2), 90));
  await add('blur-4', jpeg(sharp(png).blur(4), 90));
  await add('jpeg-q10', jpeg(sharp(png), 10));
  await add('mirrored', jpeg(sharp(png).flop(), 90), { x: 1 - centre.x, y: centre.y });
  // In-plane rotation about the crop's centre (the face's centre moves with it; close enough for the nearest-face pick).
  await add('rotated-15', jpeg(sharp(png).rotate(15, { background: '#808080' }), 90), { x: 0.5, y: 0.5 });
  await add('squeezed-75', jpeg(sharp(png).resize(Math.round(crop.width * 0.75), crop.height, { fit: 'fill' }), 90));
  // Pasted into a 720p frame so the face is ~70 px wide, downscaled again and recompressed as video is.
  const face70 = await sharp(png)
    .resize(faceSide(70 / box.width))
    .toBuffer();
  const meta = await sharp(face70).metadata();
  const frame = sharp({ create: { width: 1280, height: 720, channels: 3, background: '#5a6470' } })
    .composite([{ input: face70, left: 400, top: 200 }])
    .jpeg({ quality: 35 });
  await add('in-frame-70px', frame.toBuffer(), { x: (400 + centre.x * meta.width) / 1280, y: (200 + centre.y * meta.height) / 720 });
  return out;
}

/** The detected face nearest to `at` (0–1), or undefined. */
function nearest(faces, at, size) {
  let best;
  for (const face of faces) {
    const dx = (face.box.x + face.box.width / 2) / size.width - at.x;
    const dy = (face.box.y + face.box.height / 2) / size.height - at.y;
    const d = Math.hypot(dx, dy);
    if (d < 0.25 && (!best || d < best.d)) best = { face, d };
  }
  return best?.face;
}

async function main() {
  const started = performance.now();
  const model = await FaceRecognition.load();
  const loadMs = performance.now() - started;
  const people = [];
  const embedMs = [];
  const timed = async (image) => {
    const t = performance.now();
    const faces = await model.embedFaces(image);
    embedMs.push(performance.now() - t);
    return faces;
  };
  for (const [photoIndex, file] of PHOTOS.entries()) {
    const photo = await sharp(file).metadata();
    const faces = await timed(file);
    for (const [faceIndex, face] of faces.entries()) {
      people.push({
        id: `p${photoIndex + 1}f${faceIndex + 1}`,
        photo: photoIndex,
        reference: face.embedding,
        box: face.box,
        file,
        size: photo,
        variants: [],
      });
    }
  }
  const misses = [];
  for (const person of people) {
    for (const [name, bytes, at] of await variants(person.file, person.box, person.size)) {
      const size = await sharp(bytes).metadata();
      const face = nearest(await timed(bytes), at, size);
      if (face) person.variants.push({ name, embedding: face.embedding });
      else misses.push(`${person.id}/${name}`);
    }
  }

  const truePairs = people.flatMap((p) => p.variants.map((v) => ({ name: v.name, d: faceDistance(p.reference, v.embedding) })));
  const attempted = truePairs.length + misses.length;
  const falseWithin = [];
  const falseAcross = [];
  for (const a of people) {
    for (const b of people) {
      if (a === b) continue;
      const list = a.photo === b.photo ? falseWithin : falseAcross;
      // a's reference against b's own photo face (once per unordered pair) and all of b's variants.
      if (a.id < b.id) list.push({ pair: `${a.id}~${b.id}`, d: faceDistance(a.reference, b.reference) });
      for (const v of b.variants) list.push({ pair: `${a.id}~${b.id}/${v.name}`, d: faceDistance(a.reference, v.embedding) });
    }
  }

  const pct = (n, of) => `${((100 * n) / of).toFixed(1)} %`.padStart(7);
  console.log(
    `face-match bench  ${new Date().toISOString()}  load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}  (${os.cpus().length} cores)`,
  );
  console.log(
    `people (faces found in ${PHOTOS.length} photos): ${people.length}; variants per face: 10; detector missed ${misses.length} of ${attempted} variants`,
  );
  if (misses.length) console.log(`  missed: ${misses.join(' ')}`);
  console.log(
    `pairs: true ${attempted} (misses count as non-matches), false within a photo ${falseWithin.length}, false across photos ${falseAcross.length}`,
  );
  console.log('threshold  true match (all variants, of detected)   false match (same photo)   false match (across photos)');
  for (const t of THRESHOLDS) {
    const tm = truePairs.filter((p) => p.d < t).length;
    const detected = `${pct(tm, truePairs.length)} ${`${tm}/${truePairs.length}`.padStart(8)}`;
    const fw = falseWithin.filter((p) => p.d < t).length;
    const fa = falseAcross.filter((p) => p.d < t).length;
    const mark = t === FACE_MATCH_THRESHOLD ? '  <- FACE_MATCH_THRESHOLD' : '';
    console.log(
      `${t.toFixed(2).padStart(9)}  ${pct(tm, attempted)} ${`${tm}/${attempted}`.padStart(8)}  ${detected}      ${pct(fw, falseWithin.length)} ${`${fw}/${falseWithin.length}`.padStart(10)}   ${pct(fa, falseAcross.length)} ${`${fa}/${falseAcross.length}`.padStart(10)}${mark}`,
    );
  }
  const byVariant = new Map();
  for (const p of truePairs) byVariant.set(p.name, [...(byVariant.get(p.name) ?? []), p.d]);
  console.log(`true-match distance by alteration (max / mean; matched at ${FACE_MATCH_THRESHOLD}):`);
  for (const [name, ds] of byVariant) {
    const mean = ds.reduce((s, d) => s + d, 0) / ds.length;
    const matched = ds.filter((d) => d < FACE_MATCH_THRESHOLD).length;
    console.log(`  ${name.padEnd(14)} max ${Math.max(...ds).toFixed(3)}  mean ${mean.toFixed(3)}  matched ${matched}/${ds.length}`);
  }
  const closest = (list) =>
    [...list]
      .sort((x, y) => x.d - y.d)
      .slice(0, 5)
      .map((p) => `${p.pair} ${p.d.toFixed(3)}`)
      .join(', ');
  console.log(`closest false pairs, same photo: ${closest(falseWithin)}`);
  console.log(`closest false pairs, across photos: ${closest(falseAcross)}`);
  const sorted = [...embedMs].sort((a, b) => a - b);
  console.log(
    `timing: model load ${loadMs.toFixed(0)} ms; embedFaces ${embedMs.length} images, p50 ${sorted[Math.floor(sorted.length / 2)].toFixed(0)} ms, max ${sorted[sorted.length - 1].toFixed(0)} ms; total ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  await model.dispose();
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
