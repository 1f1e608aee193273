/**
 * @jest-environment ./libs/models/test/helpers/onnx-environment.js
 */
import sharp from 'sharp';
import { blazeFaceProvider, cocoDetectorProvider, ModelRegistry, type Box, type FaceDetector, type ObjectDetector } from '../src';
import { iou } from '../src/vision/boxes';
import { faceCrop, groupPhoto, type Photo } from './helpers/photos';

/** The photo scaled by `scale` and pasted at (left, top) on a plain frame (1280 × 720 by default): where it should be found. */
async function inFrame(
  photo: Photo,
  left: number,
  top: number,
  scale: number,
  frameSize = { width: 1280, height: 720 },
): Promise<{ frame: Buffer; placed: Box }> {
  const width = Math.round(photo.width * scale);
  const height = Math.round(photo.height * scale);
  const resized = await sharp(photo.image).resize(width, height).toBuffer();
  const frame = await sharp({ create: { ...frameSize, channels: 3, background: '#7a8a99' } })
    .composite([{ input: resized, left, top }])
    .jpeg()
    .toBuffer();
  return { frame, placed: { x: left, y: top, width, height } };
}

function inside(inner: Box, outer: Box, slack: number): boolean {
  return (
    inner.x >= outer.x - slack &&
    inner.y >= outer.y - slack &&
    inner.x + inner.width <= outer.x + outer.width + slack &&
    inner.y + inner.height <= outer.y + outer.height + slack
  );
}

describe('bundled TensorFlow.js detectors', () => {
  const registry = new ModelRegistry([cocoDetectorProvider(), blazeFaceProvider()]);
  let objects: ObjectDetector;
  let faces: FaceDetector;

  beforeAll(async () => {
    objects = await registry.get('object_detector');
    faces = await registry.get('face_detector');
  }, 60_000);

  afterAll(() => registry.dispose());

  it('reports both providers loaded', () => {
    expect(registry.status().map((s) => [s.provider, s.state])).toEqual([
      ['centernet-coco', 'loaded'],
      ['blazeface', 'loaded'],
    ]);
  });

  it('finds the people in a photo of people', async () => {
    const photo = await groupPhoto();
    const people = (await objects.detectObjects(photo.image)).filter((o) => o.label === 'person');
    expect(people.length).toBeGreaterThanOrEqual(2);
    for (const p of people) expect(inside(p.box, { x: 0, y: 0, width: photo.width, height: photo.height }, 0)).toBe(true);
  });

  it('finds a person where the photo was placed in a 720p frame', async () => {
    const { frame, placed } = await inFrame(await faceCrop(), 700, 200, 2.5);
    const people = (await objects.detectObjects(frame)).filter((o) => o.label === 'person');
    expect(people.length).toBeGreaterThanOrEqual(1);
    expect(inside(people[0]!.box, placed, 40)).toBe(true);
  });

  // Each frame shape has its own input (centernet-input.ts): a portrait frame is not read as a 16:9 one.
  it.each([
    ['portrait 9:16', { width: 720, height: 1280 }, 200, 700],
    ['4:3', { width: 960, height: 720 }, 500, 150],
  ])('finds a person where the photo was placed in a %s frame', async (_name, frameSize, left, top) => {
    const { frame, placed } = await inFrame(await faceCrop(), left, top, 2.5, frameSize);
    const people = (await objects.detectObjects(frame)).filter((o) => o.label === 'person');
    expect(people.length).toBeGreaterThanOrEqual(1);
    expect(inside(people[0]!.box, placed, 40)).toBe(true);
  });

  it('finds no person in an empty frame', async () => {
    const empty = await sharp({ create: { width: 1280, height: 720, channels: 3, background: '#7a8a99' } })
      .jpeg()
      .toBuffer();
    expect((await objects.detectObjects(empty)).filter((o) => o.label === 'person')).toEqual([]);
  });

  it('finds the one face in a portrait', async () => {
    const photo = await faceCrop();
    const found = await faces.detectFaces(photo.image);
    expect(found).toHaveLength(1);
    // The face fills the middle of the portrait.
    const face = found[0]!.box;
    expect(face.width).toBeGreaterThan(photo.width * 0.4);
    expect(inside(face, { x: 0, y: 0, width: photo.width, height: photo.height }, 0)).toBe(true);
    expect(found[0]!.score).toBeGreaterThan(0.6);
  });

  it("gives the portrait's eyes and mouth (what faces are aligned by for embedding): in the face, eyes level above the mouth", async () => {
    const [face] = await faces.detectFaces((await faceCrop()).image);
    const { box, landmarks } = face!;
    const { rightEye, leftEye, mouth } = landmarks!;
    for (const point of [rightEye, leftEye, mouth]) expect(inside({ ...point, width: 0, height: 0 }, box, 0)).toBe(true);
    // The subject's right eye is on the image's left; both above the mouth, the mouth between them.
    expect(rightEye.x).toBeLessThan(mouth.x);
    expect(mouth.x).toBeLessThan(leftEye.x);
    expect(Math.max(rightEye.y, leftEye.y)).toBeLessThan(mouth.y);
    expect(Math.abs(rightEye.y - leftEye.y)).toBeLessThan(box.height * 0.1);
  });

  it('maps a face found in a letterboxed 720p frame back to frame pixels', async () => {
    const portrait = await faceCrop();
    const [inPortrait] = await faces.detectFaces(portrait.image);
    const { frame, placed } = await inFrame(portrait, 900, 300, 2);
    const found = await faces.detectFaces(frame);
    expect(found).toHaveLength(1);
    const expected: Box = {
      x: placed.x + inPortrait!.box.x * 2,
      y: placed.y + inPortrait!.box.y * 2,
      width: inPortrait!.box.width * 2,
      height: inPortrait!.box.height * 2,
    };
    expect(iou(found[0]!.box, expected)).toBeGreaterThan(0.6);
  });

  it('finds several faces in a group photo', async () => {
    const found = await faces.detectFaces((await groupPhoto()).image);
    expect(found.length).toBeGreaterThanOrEqual(2);
  });
});
