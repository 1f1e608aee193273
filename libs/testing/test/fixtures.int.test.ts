import { readFile } from 'node:fs/promises';
import { probe, sampleFrames } from '@vus/media';
import {
  benchmarkVideo,
  lowResolutionVideo,
  objectsVideo,
  PHOTOS,
  randomBytesVideo,
  renderVideo,
  shortVideo,
  silentVideo,
  subtitledVideo,
  textScenesVideo,
  toSrt,
  truthOf,
  type GeneratedVideo,
} from '@vus/testing';

jest.setTimeout(120_000);

describe('video fixtures', () => {
  it.each<
    [string, () => Promise<GeneratedVideo>, { container: string; width: number; height: number; hasAudio: boolean; subtitles: number }]
  >([
    ['textScenesVideo', textScenesVideo, { container: 'mp4', width: 1280, height: 720, hasAudio: true, subtitles: 0 }],
    ['subtitledVideo mp4', () => subtitledVideo('mp4'), { container: 'mp4', width: 640, height: 480, hasAudio: true, subtitles: 1 }],
    ['subtitledVideo mkv', () => subtitledVideo('mkv'), { container: 'matroska', width: 640, height: 480, hasAudio: true, subtitles: 1 }],
    ['objectsVideo', objectsVideo, { container: 'mp4', width: 1280, height: 720, hasAudio: true, subtitles: 0 }],
    ['silentVideo', silentVideo, { container: 'mp4', width: 640, height: 480, hasAudio: false, subtitles: 0 }],
    ['shortVideo', shortVideo, { container: 'mp4', width: 640, height: 480, hasAudio: true, subtitles: 0 }],
    ['lowResolutionVideo', lowResolutionVideo, { container: 'mp4', width: 320, height: 240, hasAudio: true, subtitles: 0 }],
    ['benchmarkVideo', benchmarkVideo, { container: 'mp4', width: 1280, height: 720, hasAudio: true, subtitles: 0 }],
  ])('%s is what its ground truth says', async (_name, generate, expected) => {
    const { path, truth } = await generate();
    const info = await probe(path);
    expect(info).toMatchObject({
      container: expected.container,
      video: { width: expected.width, height: expected.height },
      hasAudio: expected.hasAudio,
    });
    expect(info.subtitles).toHaveLength(expected.subtitles);
    expect(info.durationSec).toBeCloseTo(truth.durationSec, 1);
    expect({ width: truth.width, height: truth.height, hasAudio: truth.hasAudio }).toEqual({
      width: expected.width,
      height: expected.height,
      hasAudio: expected.hasAudio,
    });
  });

  it('is generated once and then reused', async () => {
    const first = await shortVideo();
    const second = await shortVideo();
    expect(second.path).toBe(first.path);
  });

  it('makes the benchmark a new scene every 5 s with a word and a photo each', async () => {
    const { truth } = await benchmarkVideo();
    expect(truth.durationSec).toBe(60);
    expect(truth.scenes.map((s) => s.startSec)).toEqual([0, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55]);
    expect(truth.words).toHaveLength(12);
    expect(truth.scenes.every((s) => s.photos.length === 1)).toBe(true);
    expect(truth.scenes.filter((s) => s.labels.length > 0)).toHaveLength(9);
  });

  it('shows each photo of objectsVideo in its scene (different pictures, not one colour)', async () => {
    const { path, truth } = await objectsVideo();
    expect(truth.scenes.map((s) => s.labels)).toEqual([['person'], [], ['cat'], ['cell phone']]);
    const middles = truth.scenes.map((s) => (s.startSec + s.endSec) / 2);
    const frames: Buffer[] = [];
    for await (const frame of sampleFrames(path, { fps: 1, width: 64, format: 'rgb' })) {
      if (middles.some((m) => Math.abs(m - 0.5 - frame.timeSec) < 0.01)) frames.push(frame.data);
    }
    expect(frames).toHaveLength(4);
    for (const data of frames) {
      // A photo has many distinct colours; a flat background has a handful.
      const colours = new Set<number>();
      for (let i = 0; i < data.length; i += 3) colours.add((data[i]! >> 4) * 256 + (data[i + 1]! >> 4) * 16 + (data[i + 2]! >> 4));
      expect(colours.size).toBeGreaterThan(40);
    }
  });

  it('writes 64 KiB of the same random bytes every time', async () => {
    const { path } = await randomBytesVideo();
    const bytes = await readFile(path);
    expect(bytes).toHaveLength(64 * 1024);
    expect(bytes.subarray(4, 8).toString('latin1')).not.toBe('ftyp');
  });
});

describe('truthOf', () => {
  it('turns scene-relative text times into absolute ones', () => {
    const truth = truthOf({
      width: 640,
      height: 480,
      fps: 25,
      audio: 'none',
      container: 'mp4',
      scenes: [
        { durationSec: 3, background: 'black', texts: [{ text: 'ONE' }] },
        { durationSec: 4, background: 'white', photos: ['cat', 'phone'], texts: [{ text: 'TWO', fromSec: 1, toSec: 2 }] },
      ],
    });
    expect(truth.words).toEqual([
      { text: 'ONE', startSec: 0, endSec: 3 },
      { text: 'TWO', startSec: 4, endSec: 5 },
    ]);
    expect(truth.scenes[1]).toEqual({ startSec: 3, endSec: 7, photos: ['cat', 'phone'], labels: ['cat', 'cell phone'] });
    expect(truth.hasAudio).toBe(false);
    expect(Object.keys(PHOTOS)).toEqual(['people', 'cells', 'cat', 'phone']);
  });

  it('refuses overlay text that would need filtergraph escaping', async () => {
    const spec = {
      width: 640,
      height: 480,
      fps: 25,
      audio: 'none' as const,
      container: 'mp4' as const,
      scenes: [{ durationSec: 1, background: 'black', texts: [{ text: "it's:here" }] }],
    };
    await expect(renderVideo(spec, '/nonexistent/out.mp4')).rejects.toThrow(/letters, digits and spaces/);
  });
});

describe('toSrt', () => {
  it('writes numbered cues with comma milliseconds', () => {
    expect(toSrt([{ startSec: 0.5, endSec: 3723.04, text: 'Hi' }])).toBe('1\n00:00:00,500 --> 01:02:03,040\nHi\n');
  });
});
