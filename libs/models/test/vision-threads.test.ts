/**
 * @jest-environment ./libs/models/test/helpers/onnx-environment.js
 */
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  blazeFaceProvider,
  cocoDetectorProvider,
  faceRecognitionProvider,
  ModelRegistry,
  paddleOcrProvider,
  type Capability,
  type CapabilityTypes,
  type RecognisedLine,
} from '../src';
import { ModelThread } from '../src/vision/thread/model-thread';
import type { ThreadModelName } from '../src/vision/thread/protocol';
import { threaded, visionProviders } from '../src/vision/thread/threaded-providers';
import { renderTextFrame } from './helpers/frames';
import { groupPhoto } from './helpers/photos';

/** A group photo of three women shipped with @vladmandic/face-api (its demo/sample1.jpg). */
const PHOTO = join(dirname(require.resolve('@vladmandic/face-api/package.json')), 'demo', 'sample1.jpg');

/** Runs the built thread-main.js (npm run build): the sources' tests start the built worker. */
describe('frame models in worker threads', () => {
  const inProcess = new ModelRegistry([paddleOcrProvider(), cocoDetectorProvider(), blazeFaceProvider(), faceRecognitionProvider()]);
  const threaded = new ModelRegistry(visionProviders(2));
  const both = <C extends Capability>(capability: C): Promise<[CapabilityTypes[C], CapabilityTypes[C]]> =>
    Promise.all([inProcess.get(capability), threaded.get(capability)]);

  afterAll(() => Promise.all([inProcess.dispose(), threaded.dispose()]));

  it('find the same objects as in-process, and leave the caller its image', async () => {
    const photo = await groupPhoto();
    // A view into a larger buffer, as a frame read from ffmpeg's pipe may be.
    const pool = Buffer.concat([Buffer.alloc(100, 7), photo.image, Buffer.alloc(100, 7)]);
    const image = pool.subarray(100, 100 + photo.image.length);
    const [local, remote] = await both('object_detector');
    const expected = await local.detectObjects(image);
    expect(expected.some((o) => o.label === 'person')).toBe(true);
    expect(await remote.detectObjects(image)).toEqual(expected);
    expect(image.equals(photo.image)).toBe(true);
    expect(threaded.status().find((s) => s.capability === 'object_detector')?.state).toBe('loaded');
  }, 120_000);

  it('find and embed the same faces as in-process, calls of two threads at once', async () => {
    const image = await readFile(PHOTO);
    const [[localFaces, remoteFaces], [localEmbedder, remoteEmbedder], [detector, objects]] = await Promise.all([
      both('face_detector'),
      both('face_embedder'),
      Promise.all([threaded.get('face_detector'), threaded.get('object_detector')]),
    ]);
    const [faces, , ownDetection] = await Promise.all([
      detector.detectFaces(image),
      objects.detectObjects(image),
      remoteFaces.detectFaces(PHOTO),
    ]);
    expect(faces).toHaveLength(3);
    expect(faces).toEqual(await localFaces.detectFaces(image));
    expect(ownDetection).toEqual(faces);
    const embedded = await remoteEmbedder.embedDetectedFaces(image, faces);
    expect(embedded.map((f) => f.embedding)).toEqual((await localEmbedder.embedDetectedFaces(image, faces)).map((f) => f.embedding));
    expect(embedded[0]!.embedding).toBeInstanceOf(Float32Array);
    expect(remoteEmbedder.dimensions).toBe(embedded[0]!.embedding.length);
    // A reference photo: the embedder finds the faces itself (its own, lazily loaded, BlazeFace).
    expect((await remoteEmbedder.embedFaces(PHOTO)).map((f) => f.embedding)).toEqual(embedded.map((f) => f.embedding));
  }, 120_000);

  it('read the same text as in-process, a frame at a time in order, the face models beside it in their thread', async () => {
    const frames = await Promise.all([
      renderTextFrame(1280, 720, [
        { text: 'BREAKING NEWS', x: 100, y: 150, size: 72 },
        { text: 'Quarterly revenue grew 42 percent', x: 100, y: 560, size: 40 },
      ]),
      // The same caption on the next frame (its reading reused in the thread as in-process), then another.
      renderTextFrame(1280, 720, [{ text: 'Quarterly revenue grew 42 percent', x: 100, y: 560, size: 40 }]),
      renderTextFrame(1280, 720, [{ text: 'Welcome to Lisbon', x: 400, y: 380, size: 56 }]),
    ]);
    const [[local, remote], faces] = await Promise.all([both('text_reader'), threaded.get('face_detector')]);
    const expected: RecognisedLine[][] = [];
    for (const frame of frames) expected.push(await local.readText(frame));
    expect(expected.map((lines) => lines.map((l) => l.text))).toEqual([
      ['BREAKING NEWS', 'Quarterly revenue grew 42 percent'],
      ['Quarterly revenue grew 42 percent'],
      ['Welcome to Lisbon'],
    ]);
    // Called at once, as the frame pass does: the thread answers them in order, faces in between.
    const [read] = await Promise.all([Promise.all(frames.map((frame) => remote.readText(frame))), faces.detectFaces(frames[0])]);
    expect(read).toEqual(expected);
    expect(threaded.status().find((s) => s.capability === 'text_reader')?.state).toBe('loaded');
  }, 120_000);

  it("report a model's error to the caller", async () => {
    const objects = await threaded.get('object_detector');
    await expect(objects.detectObjects(Buffer.from('not an image'))).rejects.toThrow(/unsupported image format|Input buffer/i);
    const reader = await threaded.get('text_reader');
    await expect(reader.readText(Buffer.from('not an image'))).rejects.toThrow(/unsupported image format/i);
  }, 60_000);
});

describe('ModelThread', () => {
  it('ends with its last model, and starts again for the next', async () => {
    const thread = new ModelThread('test-thread');
    await thread.load('blazeface');
    await thread.load('centernet-coco');
    expect(thread.running).toBe(true);
    await thread.dispose('blazeface');
    expect(thread.running).toBe(true);
    await thread.dispose('centernet-coco');
    expect(thread.running).toBe(false);
    await thread.load('blazeface');
    expect(await thread.call('blazeface', 'detectFaces', [PHOTO])).toHaveLength(3);
    await thread.dispose('blazeface');
    expect(thread.running).toBe(false);
  }, 120_000);

  it('reports a failed load and leaves no thread behind', async () => {
    const thread = new ModelThread('test-thread');
    await expect(thread.load('no-such-model' as ThreadModelName)).rejects.toThrow('no model no-such-model runs in a model thread');
    expect(thread.running).toBe(false);
  });

  it('fails the calls waiting on it when it is terminated', async () => {
    const thread = new ModelThread('test-thread');
    await thread.load('blazeface');
    const failed = expect(thread.call('blazeface', 'detectFaces', [PHOTO])).rejects.toThrow('model thread test-thread was terminated');
    await thread.terminate();
    await failed;
    expect(thread.running).toBe(false);
  }, 60_000);

  it('a load failing in the thread leaves the provider unavailable with the reason, as in-process', async () => {
    const thread = new ModelThread('test-thread');
    const broken = threaded({ ...blazeFaceProvider(), name: 'no-such-model' }, thread, () => {
      throw new Error('not reached: the load fails first');
    });
    const registry = new ModelRegistry([broken]);
    expect(await registry.find('face_detector')).toBeUndefined();
    expect(registry.status()[0]).toMatchObject({
      state: 'unavailable',
      reason: 'failed to load: no model no-such-model runs in a model thread',
    });
    expect(thread.running).toBe(false);
  });

  it("a registry's dispose ends its threads", async () => {
    const registry = new ModelRegistry(visionProviders(3));
    await Promise.all([registry.get('text_reader'), registry.get('face_detector'), registry.get('object_detector')]);
    expect(registry.status().map((s) => s.state)).toEqual(['loaded', 'loaded', 'loaded', 'available']);
    await registry.dispose();
    expect(registry.status().map((s) => s.state)).toEqual(['available', 'available', 'available', 'available']);
    // No worker keeps the process alive.
    expect(process.getActiveResourcesInfo().filter((r) => r === 'Worker' || r === 'MessagePort')).toEqual([]);
  }, 60_000);
});
