/**
 * @jest-environment ./libs/models/test/helpers/onnx-environment.js
 */
import { dirname, join } from 'node:path';
import sharp from 'sharp';
import { faceRecognitionProvider, isSameFace, ModelRegistry, type EmbeddedFace, type FaceEmbedder } from '../src';

/** A group photo of three women shipped with @vladmandic/face-api (its demo/sample1.jpg). */
const PHOTO = join(dirname(require.resolve('@vladmandic/face-api/package.json')), 'demo', 'sample1.jpg');

describe('face-api face recognition', () => {
  const registry = new ModelRegistry([faceRecognitionProvider()]);
  let embedder: FaceEmbedder;
  let faces: EmbeddedFace[];

  beforeAll(async () => {
    embedder = await registry.get('face_embedder');
    faces = await embedder.embedFaces(PHOTO);
  }, 120_000);
  afterAll(() => registry.dispose());

  it('finds the three faces of the photo, each with a 128-number embedding', () => {
    expect(faces).toHaveLength(3);
    for (const face of faces) {
      expect(face.embedding).toHaveLength(embedder.dimensions);
      expect(face.box.width).toBeGreaterThan(100);
    }
  });

  it('tells the three women apart', () => {
    for (const a of faces) for (const b of faces) if (a !== b) expect(isSameFace(a.embedding, b.embedding)).toBe(false);
  });

  it('matches one of them in a mirrored, smaller, recompressed copy of her face, and not the others', async () => {
    const [target] = faces;
    const { x, y, width, height } = target!.box;
    const crop = { left: Math.max(0, x - width), top: Math.max(0, y - height), width: width * 3, height: height * 3 };
    const altered = await sharp(PHOTO)
      .extract(crop)
      .flop()
      .resize(Math.round(crop.width / 2))
      .jpeg({ quality: 40 })
      .toBuffer();
    const found = await embedder.embedFaces(altered);
    const same = found.filter((f) => isSameFace(target!.embedding, f.embedding));
    expect(same).toHaveLength(1);
    for (const other of faces.slice(1)) expect(isSameFace(other.embedding, same[0]!.embedding)).toBe(false);
  }, 60_000);
});
