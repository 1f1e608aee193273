import { photoPath, type PhotoName } from '@vus/testing';
import sharp from 'sharp';
import { SCENE_DESCRIPTOR_DIMENSIONS, sceneDescriptor } from '../src/vision/scene-descriptor';

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

/** The photo as a video frame would carry it: half the size, JPEG at quality 60. */
async function asFrame(name: PhotoName): Promise<Buffer> {
  const image = sharp(await photoPath(name));
  const { width } = await image.metadata();
  return image
    .resize(Math.round(width! / 2))
    .jpeg({ quality: 60 })
    .toBuffer();
}

const plain = (r: number, g: number, b: number) =>
  sharp({ create: { width: 320, height: 240, channels: 3, background: { r, g, b } } })
    .png()
    .toBuffer();

describe('the bundled scene descriptor', () => {
  it('is a 512-d unit vector', async () => {
    const vector = await sceneDescriptor(await photoPath('cat'));
    expect(vector).toHaveLength(SCENE_DESCRIPTOR_DIMENSIONS);
    expect(Math.hypot(...vector)).toBeCloseTo(1, 5);
  });

  it('keeps a plain colour a unit vector (no edges, no texture)', async () => {
    expect(Math.hypot(...(await sceneDescriptor(await plain(200, 30, 30))))).toBeCloseTo(1, 5);
  });

  // Each photo, shrunk and recompressed as a frame, is nearer its original than any other photo is.
  it.each<PhotoName>(['people', 'cells', 'cat', 'phone'])('finds %s again after shrinking and recompression', async (name) => {
    const others = (['people', 'cells', 'cat', 'phone'] as const).filter((other) => other !== name);
    const query = await sceneDescriptor(await asFrame(name));
    const same = cosine(query, await sceneDescriptor(await photoPath(name)));
    expect(same).toBeGreaterThan(0.9);
    for (const other of others) expect(cosine(query, await sceneDescriptor(await photoPath(other)))).toBeLessThan(same - 0.2);
  });

  it.each([
    ['red is nearer dark red than blue', [200, 30, 30], [150, 20, 20], [30, 30, 200]],
    ['grey is nearer light grey than green', [128, 128, 128], [160, 160, 160], [30, 200, 30]],
  ] as const)('%s', async (_title, a, b, c) => {
    const [x, y, z] = await Promise.all([a, b, c].map(async (rgb) => sceneDescriptor(await plain(rgb[0], rgb[1], rgb[2]))));
    expect(cosine(x!, y!)).toBeGreaterThan(cosine(x!, z!));
  });
});
