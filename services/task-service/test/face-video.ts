/**
 * A video composed from real faces for entity search's tests (issue 32 §1): faces cut from
 * @vladmandic/face-api's demo group photo of three women (MIT), one 4 s still scene each: her (face
 * about 120 px wide), the second woman, her again mirrored, smaller (about 80 px) and recompressed
 * hard, as footage alters a person. Portraits of each are reference images as a user gives them.
 */
import { runFfmpeg } from '@vus/media';
import type { Box, EmbeddedFace, FaceEmbedder } from '@vus/models';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import sharp from 'sharp';

const PHOTO = join(dirname(require.resolve('@vladmandic/face-api/package.json')), 'demo', 'sample1.jpg');
export const [FRAME_WIDTH, FRAME_HEIGHT] = [960, 540];

/** The photo cut around a face: its box grown by `grow` of its size on each side, clipped to the photo. */
async function around(box: Box, grow: number): Promise<sharp.Sharp> {
  const { width, height } = await sharp(PHOTO).metadata();
  const left = Math.max(0, Math.round(box.x - box.width * grow));
  const top = Math.max(0, Math.round(box.y - box.height * grow));
  const right = Math.min(width!, Math.round(box.x + box.width * (1 + grow)));
  const bottom = Math.min(height!, Math.round(box.y + box.height * (1 + grow)));
  return sharp(PHOTO).extract({ left, top, width: right - left, height: bottom - top });
}

/** A frame: a grey background with the image at (x, y). */
function frame(image: Buffer, x: number, y: number): Promise<Buffer> {
  return sharp({ create: { width: FRAME_WIDTH, height: FRAME_HEIGHT, channels: 3, background: { r: 90, g: 96, b: 104 } } })
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
  const filter = `${streams}concat=n=${scenes.length}:v=1:a=0,format=yuv420p[v]`;
  await runFfmpeg([...inputs, '-filter_complex', filter, '-map', '[v]', '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '28', out]);
  return out;
}

export interface FaceVideo {
  /** The video: her 0–4 s, the second woman 4–8 s, her again (mirrored, small, recompressed) 8–12 s. */
  path: string;
  /** The photo's three women, left to right: she is the first; the third is never on screen. */
  faces: [EmbeddedFace, EmbeddedFace, EmbeddedFace];
  /** JPEG portraits (a face and its surroundings) of her and of the second woman. */
  portraits: { her: Buffer; other: Buffer };
}

export async function faceVideo(dir: string, embedder: FaceEmbedder): Promise<FaceVideo> {
  const found = (await embedder.embedFaces(PHOTO)).sort((a, b) => a.box.x - b.box.x);
  if (found.length !== 3) throw new Error(`the demo photo should show 3 faces, found ${found.length}`);
  const [her, other] = [found[0]!, found[1]!];
  const portrait = async (face: EmbeddedFace) => (await around(face.box, 0.6)).jpeg({ quality: 90 }).toBuffer();
  // A cut around a face grown by its size on each side is about three faces wide.
  const sized = async (face: EmbeddedFace, faceWidth: number) =>
    (await around(face.box, 1))
      .resize(3 * faceWidth)
      .png()
      .toBuffer();
  const mirroredSmall = await sharp(await (await around(her.box, 1)).flop().resize(240).jpeg({ quality: 20 }).toBuffer())
    .png()
    .toBuffer();
  const path = await compose(dir, [
    await frame(await sized(her, 120), 120, 80),
    await frame(await sized(other, 120), 500, 100),
    await frame(mirroredSmall, 600, 200),
  ]);
  return { path, faces: [found[0]!, found[1]!, found[2]!], portraits: { her: await portrait(her), other: await portrait(other) } };
}
