/**
 * @jest-environment ./libs/models/test/helpers/onnx-environment.js
 */
/*
 * Entity search's faces through the worker's frame pass (issue 32 §1), on real photographs: a video
 * composed of faces cut from @vladmandic/face-api's demo group photo (three women), embedded by the
 * bundled face models as indexing does (BlazeFace finds faces, face-api's recogniser embeds them),
 * joined into face tracks; an entity's reference image embedded as task-service does
 * (referenceFace). The person is matched where she is on screen, altered as footage alters her
 * (smaller, mirrored, recompressed), and the other woman is not.
 */
import { runFfmpeg, probe } from '@vus/media';
import {
  blazeFaceProvider,
  closestFace,
  faceRecognitionProvider,
  ModelRegistry,
  type Box,
  type EmbeddedFace,
  type FaceEmbedder,
} from '@vus/models';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import sharp from 'sharp';
import { referenceFace } from '../src/entities/reference-faces';
import { faceTracks, type FaceTrack } from '../src/worker/extract/face-tracks';
import { analyseFrames } from '../src/worker/extract/frames';

jest.setTimeout(240_000);

const PHOTO = join(dirname(require.resolve('@vladmandic/face-api/package.json')), 'demo', 'sample1.jpg');
const [W, H] = [960, 540];

/** The photo cut around a face: its box grown by `grow` of its size on each side, clipped to the photo. */
async function around(box: Box, grow: number): Promise<sharp.Sharp> {
  const { width, height } = await sharp(PHOTO).metadata();
  const left = Math.max(0, Math.round(box.x - box.width * grow));
  const top = Math.max(0, Math.round(box.y - box.height * grow));
  const right = Math.min(width!, Math.round(box.x + box.width * (1 + grow)));
  const bottom = Math.min(height!, Math.round(box.y + box.height * (1 + grow)));
  return sharp(PHOTO).extract({ left, top, width: right - left, height: bottom - top });
}

/** A 960×540 frame: a grey background with the image at (x, y). */
async function frame(image: Buffer, x: number, y: number): Promise<Buffer> {
  return sharp({ create: { width: W, height: H, channels: 3, background: { r: 90, g: 96, b: 104 } } })
    .composite([{ input: image, left: x, top: y }])
    .png()
    .toBuffer();
}

/** Still scenes of 4 s each, cut together as an H.264 video at 25 fps. */
async function compose(dir: string, scenes: Buffer[]): Promise<string> {
  const inputs = scenes.flatMap((png, i) => {
    const file = join(dir, `scene${i}.png`);
    writeFileSync(file, png);
    return ['-loop', '1', '-framerate', '25', '-t', '4', '-i', file];
  });
  const out = join(dir, 'faces.mp4');
  const streams = scenes.map((_, i) => `[${i}:v]`).join('');
  await runFfmpeg([
    ...inputs,
    '-filter_complex',
    `${streams}concat=n=${scenes.length}:v=1:a=0,format=yuv420p[v]`,
    '-map',
    '[v]',
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-crf',
    '28',
    out,
  ]);
  return out;
}

describe('face tracks through the frame pass, on real faces', () => {
  const registry = new ModelRegistry([blazeFaceProvider(), faceRecognitionProvider()]);
  const dir = mkdtempSync(join(tmpdir(), 'vus-face-tracks-'));
  let embedder: FaceEmbedder;
  let photoFaces: EmbeddedFace[];
  let tracks: FaceTrack[];
  let reference: { her: Float32Array; other: Float32Array };

  beforeAll(async () => {
    embedder = await registry.get('face_embedder');
    const faceDetector = await registry.get('face_detector');
    // The photo's three women, left to right; she is the first, the other woman the second.
    photoFaces = (await embedder.embedFaces(PHOTO)).sort((a, b) => a.box.x - b.box.x);
    expect(photoFaces).toHaveLength(3);
    const [her, other] = [photoFaces[0]!, photoFaces[1]!];
    // Reference images as a user would give them: a portrait of each, embedded as task-service does.
    const portrait = async (face: EmbeddedFace) => (await around(face.box, 0.6)).jpeg({ quality: 90 }).toBuffer();
    reference = {
      her: referenceFace(await embedder.embedFaces(await portrait(her)))!.embedding,
      other: referenceFace(await embedder.embedFaces(await portrait(other)))!.embedding,
    };
    // The video: her (face about 120 px wide), the other woman, her again mirrored, smaller (about
    // 80 px) and recompressed hard, as footage shows a person.
    // A cut around a face grown by its size on each side is about three faces wide.
    const sized = async (face: EmbeddedFace, faceWidth: number) =>
      (await around(face.box, 1))
        .resize(3 * faceWidth)
        .png()
        .toBuffer();
    const mirroredSmall = await sharp(await (await around(her.box, 1)).flop().resize(240).jpeg({ quality: 20 }).toBuffer())
      .png()
      .toBuffer();
    const video = await compose(dir, [
      await frame(await sized(her, 120), 120, 80),
      await frame(await sized(other, 120), 500, 100),
      await frame(mirroredSmall, 600, 200),
    ]);
    const probed = await probe(video);
    const frames = await analyseFrames(video, probed, { faceDetector, faceEmbedder: embedder }, { fps: 1, width: W, maxThumbnails: 2 });
    tracks = faceTracks(frames.faces, { step: frames.step, durationSec: probed.durationSec });
  });

  afterAll(async () => {
    await registry.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  const matched = (face: Float32Array) =>
    tracks.filter((t) => closestFace([face], t.embedding)?.match).map((t) => [Math.round(t.startSec), Math.round(t.endSec)]);

  it('makes one track per person on screen, each as long as the scene', () => {
    expect(tracks.map((t) => [Math.round(t.startSec), Math.round(t.endSec)])).toEqual([
      [0, 4],
      [4, 8],
      [8, 12],
    ]);
  });

  it('matches her reference face where she is on screen, mirrored, smaller and recompressed too', () => {
    expect(matched(reference.her)).toEqual([
      [0, 4],
      [8, 12],
    ]);
  });

  it('matches the other woman only where she is, never her', () => {
    expect(matched(reference.other)).toEqual([[4, 8]]);
  });

  it('matches none of the video with the third woman of the photo, who is never on screen', () => {
    expect(matched(photoFaces[2]!.embedding)).toEqual([]);
  });
});
