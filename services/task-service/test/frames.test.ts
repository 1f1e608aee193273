/*
 * The frame pass's lanes (issue 30): each model works through its own frames in order, up to
 * FRAMES_IN_FLIGHT frames ahead of the slowest, and the observations come out as if each frame had
 * waited for all its models. The models here are stand-ins whose results are a hash of the frame's
 * JPEG, so which frame a result came from can be told, and whose speed the tests set.
 */
import { createHash } from 'node:crypto';
import { probe, type MediaProbe } from '@vus/media';
import type { DetectedFace, DetectedObject, EmbeddedFace, RecognisedLine } from '@vus/models';
import { generateVideo, waitFor, type GeneratedVideo } from '@vus/testing';
import { analyseFrames, FRAMES_IN_FLIGHT, type FrameAnalysis, type FrameModels } from '../src/worker/extract/frames';
import { Lane } from '../src/worker/extract/lanes';

jest.setTimeout(60_000);

/** 20 s, 640×360: cuts, a still title (read again 3 s in), a title fading in and out (a picture that moves). */
function lanesVideo(): Promise<GeneratedVideo> {
  return generateVideo('frame-lanes', {
    width: 640,
    height: 360,
    fps: 25,
    audio: 'none',
    container: 'mp4',
    scenes: [
      { durationSec: 3, background: '0x37474f', photos: ['people'] },
      { durationSec: 5, background: 'black', texts: [{ text: 'STILL TITLE', look: 'title', fontSize: 48 }] },
      { durationSec: 7, background: 'black', fadeSec: 3, texts: [{ text: 'FADING IN AND OUT', look: 'title', fontSize: 40 }] },
      { durationSec: 2, background: '0xe0e0e0', photos: ['cat'] },
      { durationSec: 3, background: '0x101010', photos: ['cells', 'phone'] },
    ],
  });
}

/** 12 s, a new picture every second: every model is due on every frame (at 1 frame/s). */
function cutsVideo(): Promise<GeneratedVideo> {
  const greys = ['0x101010', '0xd0d0d0', '0x404040', '0xf0f0f0', '0x202020', '0xa0a0a0'];
  return generateVideo('frame-lanes-cuts', {
    width: 320,
    height: 180,
    fps: 25,
    audio: 'none',
    container: 'mp4',
    scenes: [...greys, ...greys].map((background) => ({ durationSec: 1, background })),
  });
}

const hashOf = (data: Buffer) => createHash('sha1').update(data).digest('hex').slice(0, 12);
const box = (n: number) => ({ x: n, y: n, width: 40, height: 40 });
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A frame's stand-in results: a function of its JPEG only. */
const results = {
  text: (h: string): RecognisedLine[] => [{ text: `text ${h}`, confidence: 0.9, box: box(0), words: [] }],
  objects: (h: string): DetectedObject[] => [{ label: `object ${h.slice(0, 4)}`, score: parseInt(h[0]!, 16) / 16, box: box(1) }],
  // Every other frame the face stays in place (its embedding is then reused), the others move it.
  faces: (h: string): DetectedFace[] => [{ score: 0.9, box: box(parseInt(h[1]!, 16) % 2 === 0 ? 10 : parseInt(h[2]!, 16) * 20) }],
  embedding: (h: string) => Float32Array.from([...h.slice(0, 8)].map((c) => parseInt(c, 16))),
  // Some frames have no vector: the pass then carries none.
  vector: (h: string) => (h[3] === '0' ? undefined : Float32Array.from([...h].map((c) => parseInt(c, 16)))),
};

type ModelName = 'text' | 'objects' | 'faces' | 'faceEmbedding' | 'vector';

/** Stand-in models: each call recorded (its frame's hash) and slowed by `delayMs`, or failed by `fail`. */
function standIns(
  options: { delayMs?: (model: ModelName, call: number) => number; fail?: (model: ModelName, call: number) => Error | undefined } = {},
) {
  const calls: Record<ModelName, string[]> = { text: [], objects: [], faces: [], faceEmbedding: [], vector: [] };
  const call = async <T>(model: ModelName, data: Buffer, result: (h: string) => T): Promise<T> => {
    const h = hashOf(data);
    const n = calls[model].push(h);
    const delay = options.delayMs?.(model, n - 1) ?? 0;
    if (delay > 0) await pause(delay);
    const failure = options.fail?.(model, n - 1);
    if (failure) throw failure;
    return result(h);
  };
  const models: FrameModels = {
    textReader: { readText: (data) => call('text', data as Buffer, results.text) },
    objectDetector: { detectObjects: (data) => call('objects', data as Buffer, results.objects) },
    faceDetector: { detectFaces: (data) => call('faces', data as Buffer, results.faces) },
    faceEmbedder: {
      dimensions: 8,
      embedFaces: (data) =>
        call('faceEmbedding', data as Buffer, (h) => results.faces(h).map((f) => ({ ...f, embedding: results.embedding(h) }))),
      embedDetectedFaces: (data, faces) =>
        call('faceEmbedding', data as Buffer, (h): EmbeddedFace[] => faces.map((f) => ({ ...f, embedding: results.embedding(h) }))),
    },
    embedder: { embedImage: (data) => call('vector', data, results.vector) },
  };
  return { models, calls };
}

/** What a pass found, comparable across runs (buffers by their hash). */
function outcome(analysis: FrameAnalysis) {
  const { observations, step, analysedFrames, objectFrames, withinPictureFrames, recheckedFrames, thumbnails, vectors, faces } = analysis;
  return {
    ...{ observations, step, analysedFrames, objectFrames, withinPictureFrames, recheckedFrames },
    thumbnails: thumbnails.map((t) => [t.timeSec, hashOf(t.jpeg)]),
    vectors: vectors.map((v) => [v.timeSec, [...v.vector]]),
    faces: faces.map((f) => [f.timeSec, f.faces.map((face) => [face.box, [...face.embedding]])]),
  };
}

/** Runs of the same value, each once: the order in which distinct results appear. */
const distinctRuns = <T>(values: T[]) => values.filter((v, i) => i === 0 || JSON.stringify(v) !== JSON.stringify(values[i - 1]));

describe('analyseFrames: a lane per model', () => {
  let video: GeneratedVideo;
  let probed: MediaProbe;
  const options = { fps: 2, width: 640, maxThumbnails: 4 };
  /** The text reader's calls in a whole pass (the failure tests stop before that). */
  let wholePassTextCalls: number;

  beforeAll(async () => {
    video = await lanesVideo();
    probed = await probe(video.path);
    const { models, calls } = standIns();
    await analyseFrames(video.path, probed, models, options);
    wholePassTextCalls = calls.text.length;
  });

  it('finds the same as when every model answers at once, however slow each model is', async () => {
    const quick = standIns();
    const reference = await analyseFrames(video.path, probed, quick.models, options);
    // Text slow, faces slow on every other call, objects and the vector quick: the lanes drift apart.
    const skewed = standIns({ delayMs: (model, n) => (model === 'text' ? 40 : model === 'faces' && n % 2 === 0 ? 30 : 0) });
    const analysis = await analyseFrames(video.path, probed, skewed.models, options);

    expect(outcome(analysis)).toEqual(outcome(reference));
    // Each model took the same frames in the same (frame) order.
    expect(skewed.calls).toEqual(quick.calls);
    // The video exercises every gate: still frames carried, text read again, objects and faces skipped on a moving picture.
    expect(analysis.observations.length).toBe(40);
    expect(analysis.analysedFrames).toBeLessThan(analysis.observations.length);
    expect(analysis.recheckedFrames).toBeGreaterThan(0);
    expect(analysis.withinPictureFrames).toBeLessThan(analysis.analysedFrames);
    expect(analysis.objectFrames).toBeLessThan(analysis.analysedFrames);
    expect(skewed.calls.faceEmbedding.length).toBeLessThan(skewed.calls.faces.length);
  });

  it('shows every read in frame order, and carries a model’s last result to the frames it skips', async () => {
    const { models, calls } = standIns({ delayMs: (model, n) => (model === 'objects' ? 25 : model === 'text' ? n % 3 : 0) });
    const { observations, vectors } = await analyseFrames(video.path, probed, models, options);
    // Every frame a model looked at changed the observation to its result, in the order the model ran.
    expect(distinctRuns(observations.map((o) => o.lines[0]!.text))).toEqual(distinctRuns(calls.text.map((h) => `text ${h}`)));
    const objectLabels = observations.map((o) => o.labels.filter((l) => l.startsWith('object')));
    expect(distinctRuns(objectLabels)).toEqual(distinctRuns(calls.objects.map((h) => results.objects(h).map((o) => o.label))));
    // Each analysed frame has the vector of the last frame the embedder looked at, unless that one had none.
    const analysedTimes = observations.filter((o) => o.changed).map((o) => o.timeSec);
    const lastVector = results.vector(calls.vector[calls.vector.length - 1]!);
    expect(vectors.length).toBeLessThanOrEqual(analysedTimes.length);
    if (lastVector) expect([...vectors[vectors.length - 1]!.vector]).toEqual([...lastVector]);
  });

  it('lets the other models run ahead of a slow one, by FRAMES_IN_FLIGHT frames at most', async () => {
    const cuts = await cutsVideo();
    const cutsProbe = await probe(cuts.path);
    const cutsOptions = { fps: 1, width: 320, maxThumbnails: 4 };
    const all = standIns();
    const whole = await analyseFrames(cuts.path, cutsProbe, all.models, cutsOptions);
    // Every frame a new picture: the vector lane would take every frame if nothing held it back.
    expect(whole.withinPictureFrames).toBe(12);
    expect(all.calls.vector.length).toBe(12);

    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const { models, calls } = standIns();
    const detectObjects = models.objectDetector!.detectObjects;
    // The object detector stops on the first frame until released.
    models.objectDetector = {
      detectObjects: async (data) => (calls.objects.length === 0 ? held.then(() => detectObjects(data)) : detectObjects(data)),
    };
    let finished = false;
    const pass = analyseFrames(cuts.path, cutsProbe, models, cutsOptions).finally(() => (finished = true));
    await waitFor(() => calls.vector.length >= 2, 'the vector lane to run past the held frame');
    // Until the decoder stops for want of room: the vector lane's count stays put.
    let seen = -1;
    await waitFor(async () => {
      const now = calls.vector.length;
      await pause(150);
      const still = now === seen && now === calls.vector.length;
      seen = calls.vector.length;
      return still;
    }, 'the lanes to stop at the look-ahead bound');
    expect(finished).toBe(false);
    expect(calls.objects).toEqual([]);
    // The frames held: the ones the models have (the held one among them) and the one ffmpeg decodes.
    expect(calls.vector.length).toBe(FRAMES_IN_FLIGHT - 1);
    release();
    expect(outcome(await pass)).toEqual(outcome(whole));
  });

  it('fails with the first model failure, and starts no model call after it', async () => {
    const { models, calls } = standIns({
      delayMs: (model) => (model === 'text' ? 10 : 0),
      fail: (model, n) => (model === 'objects' && n === 2 ? new Error('detector broke') : undefined),
    });
    await expect(analyseFrames(video.path, probed, models, options)).rejects.toThrow('detector broke');
    const after = JSON.stringify(calls);
    await pause(300);
    expect(JSON.stringify(calls)).toBe(after);
    // It stopped there, not at the end of the video.
    expect(calls.text.length).toBeLessThan(wholePassTextCalls);
  });

  it('ends when the caller cancels, and starts no model call after it', async () => {
    const controller = new AbortController();
    const { models, calls } = standIns({ delayMs: () => 5 });
    const readText = models.textReader!.readText;
    models.textReader = {
      readText: (data) => {
        if (calls.text.length === 3) controller.abort();
        return readText(data);
      },
    };
    await expect(analyseFrames(video.path, probed, models, { ...options, signal: controller.signal })).rejects.toMatchObject({
      failure: 'aborted',
    });
    const after = JSON.stringify(calls);
    await pause(300);
    expect(JSON.stringify(calls)).toBe(after);
    expect(calls.text.length).toBeLessThan(wholePassTextCalls);
  });

  it('ends every time, whatever model fails or whenever it is cancelled (ffmpeg killed with frames queued)', async () => {
    // A killed ffmpeg can leave a signature queued with no JPEG to go with it (libs/media sampleFrames
    // reads it away); these 30 moments hit that more often than not.
    const models: ModelName[] = ['text', 'objects', 'faces', 'vector'];
    for (let attempt = 0; attempt < 30; attempt++) {
      const failing = models[attempt % 4]!;
      const at = attempt % 5;
      const controller = new AbortController();
      const cancel = attempt % 3 === 0;
      const { models: standIn } = standIns({
        delayMs: (model, n) => (n * 7 + attempt * (model.length + 3)) % 13,
        fail: (model, n) => {
          if (model !== failing || n !== at) return undefined;
          if (cancel) controller.abort();
          return cancel ? undefined : new Error(`${model} broke`);
        },
      });
      const failure = await analyseFrames(video.path, probed, standIn, { ...options, signal: controller.signal }).then(
        () => undefined,
        (error: Error) => error,
      );
      expect(failure).toMatchObject(cancel ? { failure: 'aborted' } : { message: `${failing} broke` });
    }
  });
});

describe('Lane', () => {
  it('runs its calls one at a time in the order added', async () => {
    const lane = new Lane(new AbortController());
    const log: string[] = [];
    const slow = lane.add(async () => {
      log.push('a starts');
      await pause(30);
      log.push('a ends');
      return 'a';
    });
    const quick = lane.add(async () => {
      log.push('b starts');
      return 'b';
    });
    expect(await Promise.all([slow, quick])).toEqual(['a', 'b']);
    expect(log).toEqual(['a starts', 'a ends', 'b starts']);
  });

  it('stops the pass on a failure and refuses the calls after it with that failure', async () => {
    const stop = new AbortController();
    const lane = new Lane(stop);
    const other = new Lane(stop);
    let started = 0;
    const failing = lane.add(async () => {
      throw new Error('model broke');
    });
    const next = lane.add(async () => started++);
    await expect(failing).rejects.toThrow('model broke');
    await expect(next).rejects.toThrow('model broke');
    await expect(other.add(async () => started++)).rejects.toThrow('model broke');
    expect(stop.signal.aborted).toBe(true);
    expect(started).toBe(0);
    await lane.settled();
  });

  it('leaves a failure it has not been asked for yet unreported (no unhandled rejection)', async () => {
    const lane = new Lane(new AbortController());
    const failing = lane.add(async () => {
      throw new Error('later');
    });
    await lane.settled();
    await expect(failing).rejects.toThrow('later');
  });
});
