import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  detectShots,
  extractAudio,
  extractSubtitles,
  FrameChangeDetector,
  frameDifference,
  isMediaError,
  mediaTool,
  probe,
  readWavSamples,
  sampleFrames,
  thumbnail,
  validateForIndexing,
  type SampledFrame,
} from '@vus/media';
import {
  lowResolutionVideo,
  randomBytesVideo,
  shortVideo,
  silentVideo,
  subtitledVideo,
  SUBTITLE_SENTENCES,
  textScenesVideo,
  truncatedVideo,
} from '@vus/testing';

jest.setTimeout(60_000);

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'vus-media-test-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

async function collect(frames: AsyncIterable<SampledFrame>): Promise<SampledFrame[]> {
  const all: SampledFrame[] = [];
  for await (const frame of frames) all.push(frame);
  return all;
}

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => 'resolved',
    (error: unknown) => error,
  );
}

describe('probe', () => {
  it('describes a generated MP4 from its content', async () => {
    const video = await textScenesVideo();
    expect(await probe(video.path)).toEqual({
      container: 'mp4',
      demuxer: 'mov',
      durationSec: 12,
      sizeBytes: expect.any(Number),
      video: { codec: 'h264', width: 1280, height: 720, fps: 25, pixelFormat: 'yuv420p' },
      audio: { codec: 'aac', sampleRate: 48000, channels: 1 },
      hasAudio: true,
      subtitles: [],
    });
  });

  it('sniffs the container from the content, not the file name', async () => {
    const video = await subtitledVideo('mkv');
    const misnamed = join(work, 'really-matroska.mp4');
    execFileSync('cp', [video.path, misnamed]);
    const info = await probe(misnamed);
    expect(info.container).toBe('matroska');
    expect(info.subtitles).toEqual([{ streamIndex: 2, codec: 'subrip', isText: true, language: 'eng' }]);
  });

  it('reports a silent video as having no audio', async () => {
    const info = await probe((await silentVideo()).path);
    expect(info.hasAudio).toBe(false);
    expect(info.audio).toBeUndefined();
  });

  it.each([
    ['random bytes named .mp4', randomBytesVideo, 'unrecognised', 'unsupported_file_type'],
    ['a truncated MP4', truncatedVideo, 'corrupt', 'video_file_broken'],
  ])('rejects %s with a typed media error', async (_name, fixture, failure, code) => {
    const error = await failureOf(probe((await fixture()).path));
    expect(isMediaError(error)).toBe(true);
    expect(error).toMatchObject({ failure, code });
  });

  it('flags the bad-media fixtures through validation', async () => {
    const short = await probe((await shortVideo()).path);
    const small = await probe((await lowResolutionVideo()).path);
    const silent = await probe((await silentVideo()).path);
    expect(validateForIndexing(short).map((p) => p.code)).toEqual(['video_duration_too_short']);
    expect(validateForIndexing(small).map((p) => p.code)).toEqual(['video_resolution_too_low']);
    expect(validateForIndexing(silent, { requireAudio: true }).map((p) => p.code)).toEqual(['audio_file_broken']);
  });
});

describe('sampleFrames', () => {
  it('streams one JPEG per second with its time', async () => {
    const video = await textScenesVideo();
    const frames = await collect(sampleFrames(video.path, { width: 320 }));
    expect(frames.map((f) => f.timeSec)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    for (const frame of frames) {
      expect(frame).toMatchObject({ width: 320, height: 180, format: 'jpeg' });
      expect(frame.data.subarray(0, 2).toString('hex')).toBe('ffd8');
      expect(frame.data.subarray(-2).toString('hex')).toBe('ffd9');
      expect(frame.signature).toHaveLength(32 * 32);
    }
  });

  it('gives raw RGB frames of exact size at a chosen rate and range', async () => {
    const video = await textScenesVideo();
    const frames = await collect(sampleFrames(video.path, { format: 'rgb', width: 64, fps: 2, startSec: 4, durationSec: 2 }));
    expect(frames.map((f) => f.timeSec)).toEqual([4, 4.5, 5, 5.5]);
    expect(frames[0]!.data).toHaveLength(64 * 36 * 3);
    // The second scene's background is 0x2e7d32 (green): the corner pixel says so.
    const [r, g, b] = frames[0]!.data;
    expect(g!).toBeGreaterThan(r! + 40);
    expect(g!).toBeGreaterThan(b! + 40);
  });

  it('lets the change detector keep only frames with something new', async () => {
    const video = await textScenesVideo();
    const detector = new FrameChangeDetector();
    const kept: number[] = [];
    for await (const frame of sampleFrames(video.path, { width: 320 })) {
      if (detector.hasChanged(frame.signature)) kept.push(frame.timeSec);
    }
    // New scenes at 0, 4 and 8 s; the word GARDEN appears at 6 s.
    expect(kept).toEqual([0, 4, 6, 8]);
  });

  it('kills ffmpeg when the consumer stops early', async () => {
    const video = await textScenesVideo();
    const before = ffmpegChildren();
    // Full-size RGB frames (2.7 MB each) overflow the pipe: ffmpeg blocks until it is killed.
    for await (const frame of sampleFrames(video.path, { format: 'rgb' })) {
      if (frame.index === 1) break;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(ffmpegChildren()).toBeLessThanOrEqual(before);
  });

  it('stops with a timeout error when ffmpeg takes too long, and on abort', async () => {
    const video = await textScenesVideo();
    const info = await probe(video.path);
    const slow = await failureOf(collect(sampleFrames(video.path, { probe: info, timeoutMs: 1 })));
    expect(slow).toMatchObject({ failure: 'timeout', code: 'deadline_exceeded' });
    const controller = new AbortController();
    controller.abort();
    const aborted = await failureOf(collect(sampleFrames(video.path, { probe: info, signal: controller.signal })));
    expect(aborted).toMatchObject({ failure: 'aborted' });
  });

  it('samples a video with B-frames from its reference frames: the same times, each picture the one of a full decode or next to it', async () => {
    const withBFrames = join(work, 'b-frames.mp4');
    const source = await textScenesVideo();
    execFileSync(mediaTool('ffmpeg').path, ['-v', 'error', '-i', source.path, '-c:v', 'libx264', '-bf', '3', '-an', withBFrames]);
    const info = await probe(withBFrames);
    expect(info.video.hasBFrames).toBe(true);
    // The same probe without the B-frames flag: every frame decoded.
    const everyFrame = { ...info.video };
    delete everyFrame.hasBFrames;
    const sparse = await collect(sampleFrames(withBFrames, { probe: info, width: 320 }));
    const full = await collect(sampleFrames(withBFrames, { probe: { ...info, video: everyFrame }, width: 320 }));
    expect(sparse.map((f) => f.timeSec)).toEqual(full.map((f) => f.timeSec));
    // Frames of one scene differ by encoder noise only (FrameChangeDetector's pixel threshold is 12).
    for (const [i, frame] of sparse.entries()) expect(frameDifference(frame.signature, full[i]!.signature, 12).meanAbsDiff).toBeLessThan(3);
  });

  it('times only ffmpeg: a consumer slower than the timeout in all still gets every frame', async () => {
    const video = await textScenesVideo();
    const info = await probe(video.path);
    // Three frames of 1.5 s work each (4.5 s) against a 3 s timeout: ffmpeg itself needs far less.
    // Full-size RGB frames (2.7 MB) overflow the pipe, so ffmpeg waits on the consumer, running.
    const times: number[] = [];
    for await (const frame of sampleFrames(video.path, { probe: info, format: 'rgb', durationSec: 3, timeoutMs: 3_000 })) {
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      times.push(frame.timeSec);
    }
    expect(times).toEqual([0, 1, 2]);
  });
});

describe('extractAudio', () => {
  it('writes 16 kHz mono PCM of the whole video', async () => {
    const video = await textScenesVideo();
    const audio = await extractAudio(video.path, join(work, 'speech.wav'));
    expect(audio).toMatchObject({ sampleRate: 16000, channels: 1 });
    expect(audio.durationSec).toBeCloseTo(12, 1);
    const second = await readWavSamples(audio.path, 5, 1);
    expect(second).toHaveLength(16000);
    // The fixture's 440 Hz tone: loud, and about 880 zero crossings a second.
    // A crossing is a change of side (0 counts as positive: a resampler's exact zeros are not two crossings).
    const crossings = second.reduce((n, s, i) => (i > 0 && s >= 0 !== second[i - 1]! >= 0 ? n + 1 : n), 0);
    expect(Math.max(...second)).toBeGreaterThan(0.05);
    expect(crossings).toBeGreaterThan(860);
    expect(crossings).toBeLessThan(900);
  });

  it('says "no audio" for a silent video', async () => {
    const error = await failureOf(extractAudio((await silentVideo()).path, join(work, 'none.wav')));
    expect(error).toMatchObject({ failure: 'no_audio', code: 'audio_file_broken' });
  });
});

describe('detectShots', () => {
  it('finds the hard cuts between scenes', async () => {
    const video = await textScenesVideo();
    const { boundaries, shots } = await detectShots(video.path);
    const cuts = video.truth.scenes.slice(1).map((s) => s.startSec);
    expect(boundaries.map((b) => b.timeSec)).toEqual(cuts);
    expect(shots).toEqual([
      { startSec: 0, endSec: 4 },
      { startSec: 4, endSec: 8 },
      { startSec: 8, endSec: 12 },
    ]);
  });
});

describe('extractSubtitles', () => {
  it.each(['mp4', 'mkv'] as const)('reads the embedded track of the %s fixture as cues', async (container) => {
    const video = await subtitledVideo(container);
    const [track, ...others] = await extractSubtitles(video.path);
    expect(others).toEqual([]);
    expect(track!.track.language).toBe('eng');
    expect(track!.cues.map((c) => c.text)).toEqual([...SUBTITLE_SENTENCES]);
    track!.cues.forEach((cue, i) => {
      expect(Math.abs(cue.startSec - video.truth.sentences[i]!.startSec)).toBeLessThan(0.05);
      expect(Math.abs(cue.endSec - video.truth.sentences[i]!.endSec)).toBeLessThan(0.05);
    });
  });

  it('returns no tracks for a video without subtitles', async () => {
    expect(await extractSubtitles((await textScenesVideo()).path)).toEqual([]);
  });
});

describe('thumbnail', () => {
  it('makes a JPEG of the given width at a time', async () => {
    const jpeg = await thumbnail((await textScenesVideo()).path, 5, 200);
    expect(jpeg.subarray(0, 2).toString('hex')).toBe('ffd8');
    const info = await probeJpeg(jpeg);
    expect(info).toEqual({ width: 200, height: 112 });
  });

  it('says there is no frame past the end', async () => {
    const error = await failureOf(thumbnail((await textScenesVideo()).path, 60, 200));
    expect(error).toMatchObject({ failure: 'no_frame' });
  });
});

async function probeJpeg(jpeg: Buffer): Promise<{ width: number; height: number }> {
  const path = join(work, `thumb-${Date.now()}.jpg`);
  await import('node:fs/promises').then((fs) => fs.writeFile(path, jpeg));
  const out = execFileSync(mediaTool('ffprobe').path, ['-v', 'error', '-show_entries', 'stream=width,height', '-of', 'csv=p=0', path])
    .toString()
    .trim();
  const [width, height] = out.split(',').map(Number);
  return { width: width!, height: height! };
}

function ffmpegChildren(): number {
  try {
    return execFileSync('pgrep', ['-P', String(process.pid), 'ffmpeg'])
      .toString()
      .trim()
      .split('\n')
      .filter(Boolean).length;
  } catch {
    return 0;
  }
}
