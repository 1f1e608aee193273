import { access } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { runFfmpeg } from '@vus/media';
import { cachedFixture } from './cache';

interface PhotoSource {
  /** The npm package that ships the photograph (a dependency of @vus/testing). */
  package: string;
  /** Its path inside the package. */
  file: string;
  /** The part of the picture used (pixels), when the object is small in a larger photo. */
  crop?: { left: number; top: number; width: number; height: number };
  /** COCO labels the bundled detector finds in it, also inside a 960 px video frame (past its calibrated minimum scores). */
  labels: readonly string[];
}

/**
 * Real photographs from npm packages, so no test reads the OS's files: the demo pictures of
 * `@vladmandic/face-api` and the test images of `ij-test` (image-js). No registry package was found
 * that ships a photo of a motorcycle or a cup (scikit-image's, used before, came from Debian), hence
 * people, a phone and a cat, and a picture with no COCO object at all.
 */
export const PHOTOS = {
  /** Four women standing in a room (detector: person 0.75; 0.67 in a frame). */
  people: { package: '@vladmandic/face-api', file: 'demo/sample6.jpg', labels: ['person'] },
  /** Stained cells under a microscope: a real photo in which the detector finds nothing (its best guess, bed 0.53, is under bed's minimum). */
  cells: { package: 'ij-test', file: 'img/cells.jpg', labels: [] },
  /** A kitten among leaves, its head and chest (detector: cat 0.43; 0.60 in a frame; 0.48 on the whole picture). */
  cat: { package: 'ij-test', file: 'img/cat.jpg', crop: { left: 100, top: 0, width: 400, height: 400 }, labels: ['cat'] },
  /** A smartphone lying on a sofa, cut from a group photo (detector: cell phone 0.55; 0.64 in a frame). */
  phone: {
    package: '@vladmandic/face-api',
    file: 'demo/sample2.jpg',
    crop: { left: 0, top: 1150, width: 400, height: 217 },
    labels: ['cell phone'],
  },
} as const satisfies Record<string, PhotoSource>;

export type PhotoName = keyof typeof PHOTOS;

/**
 * The absolute path of a sample photo (a JPEG or PNG): the package's file, or its crop, cut once
 * with ffmpeg into the fixture cache.
 */
export async function photoPath(name: PhotoName): Promise<string> {
  const photo: PhotoSource = PHOTOS[name];
  const source = join(packageDir(photo.package), photo.file);
  await access(source);
  const { crop } = photo;
  if (!crop) return source;
  return cachedFixture(`photo-${name}`, 'png', { source: photo.file, crop }, (out) =>
    runFfmpeg([
      '-i',
      source,
      '-vf',
      `crop=${crop.width}:${crop.height}:${crop.left}:${crop.top}`,
      '-frames:v',
      '1',
      '-f',
      'image2',
      '-c:v',
      'png',
      out,
    ]),
  );
}

function packageDir(name: string): string {
  try {
    return dirname(require.resolve(`${name}/package.json`));
  } catch {
    throw new Error(`Test photos come from the npm package ${name}, which is not installed: run npm install.`);
  }
}

/**
 * A bold sans font for drawtext: DejaVu Sans Bold from the npm package `dejavu-fonts-ttf` (the same
 * DejaVu 2.37 as Debian's fonts-dejavu-core), so no font has to be installed on the machine.
 */
export async function fontPath(): Promise<string> {
  const path = join(packageDir('dejavu-fonts-ttf'), 'ttf', 'DejaVuSans-Bold.ttf');
  await access(path);
  return path;
}
