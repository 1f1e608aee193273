import { access } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Real photographs from the Debian package `python3-skimage` (scikit-image's sample data), and the
 * COCO labels a detector should find in each. `.ci/run` installs the package.
 */
export const PHOTOS = {
  astronaut: { file: 'astronaut.png', labels: ['person'] },
  coffee: { file: 'coffee.png', labels: ['cup'] },
  cat: { file: 'chelsea.png', labels: ['cat'] },
  motorcycle: { file: 'motorcycle_left.png', labels: ['motorcycle'] },
} as const;

export type PhotoName = keyof typeof PHOTOS;

const PHOTO_DIRS = ['/usr/lib/python3/dist-packages/skimage/data', '/usr/local/lib/python3/dist-packages/skimage/data'];

/** The absolute path of a sample photo; a clear error naming the package when it is missing. */
export async function photoPath(name: PhotoName): Promise<string> {
  for (const dir of PHOTO_DIRS) {
    const path = join(dir, PHOTOS[name].file);
    try {
      await access(path);
      return path;
    } catch {
      // try the next folder
    }
  }
  throw new Error(`Test photo ${PHOTOS[name].file} not found in ${PHOTO_DIRS.join(', ')}: install the Debian package python3-skimage (.ci/run does).`);
}

const FONT_FILES = [
  '/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf',
  '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf',
];

/** A bold sans font for drawtext (Debian `fonts-dejavu-core`). */
export async function fontPath(): Promise<string> {
  for (const path of FONT_FILES) {
    try {
      await access(path);
      return path;
    } catch {
      // try the next one
    }
  }
  throw new Error(`No font for drawtext in ${FONT_FILES.join(', ')}: install the Debian package fonts-dejavu-core (.ci/run does).`);
}
