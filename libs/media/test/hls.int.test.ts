/*
 * makeHls on generated fixtures with the real ffmpeg: the playlist parses, names segments that
 * exist, adds up to the input's duration, and its streams are what players take (H.264, AAC when
 * the input has sound, at most 720 lines).
 */
import { HLS_PLAYLIST, makeHls, parseHlsPlaylist, probe, runFfmpeg, type HlsRendition } from '@vus/media';
import { cachedFixture, generateVideo, silentVideo, textScenesVideo } from '@vus/testing';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

jest.setTimeout(120_000);

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'vus-hls-test-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

let runs = 0;
async function outDir(): Promise<string> {
  const dir = join(work, `out-${++runs}`);
  await mkdir(dir);
  return dir;
}

/** What is on disk agrees with what makeHls says it wrote. */
async function expectComplete(rendition: HlsRendition, inputDurationSec: number): Promise<void> {
  const playlist = parseHlsPlaylist(await readFile(join(rendition.dir, HLS_PLAYLIST), 'utf8'));
  expect(playlist).toMatchObject({ ended: true, playlistType: 'VOD' });
  expect(playlist.segments).toEqual(rendition.segments);
  expect(rendition.files).toEqual([...playlist.segments.map((s) => s.uri), HLS_PLAYLIST]);
  // Relative URIs: one plain file name each, next to the playlist.
  for (const segment of playlist.segments) expect(segment.uri).toMatch(/^seg\d+\.ts$/);
  expect((await readdir(rendition.dir)).sort()).toEqual([...rendition.files].sort());
  expect(Math.abs(rendition.durationSec - inputDurationSec)).toBeLessThanOrEqual(0.5);
}

describe('makeHls', () => {
  it('copies a 720p H.264/AAC video into 4 s segments', async () => {
    const video = await textScenesVideo();
    const rendition = await makeHls(video.path, await outDir());
    expect(rendition.plan).toEqual({ video: 'copy', audio: 'copy' });
    await expectComplete(rendition, 12);
    expect(rendition.segments.map((s) => s.durationSec)).toEqual([4, 4, 4]);
    const first = await probe(join(rendition.dir, 'seg0.ts'));
    expect(first).toMatchObject({ container: 'mpegts', video: { codec: 'h264', width: 1280, height: 720 }, audio: { codec: 'aac' } });
  });

  it('encodes when asked to, with a keyframe at every segment boundary', async () => {
    const video = await textScenesVideo();
    const rendition = await makeHls(video.path, await outDir(), { copy: 'never', segmentSec: 3 });
    expect(rendition.plan).toEqual({ video: 'encode', audio: 'encode' });
    await expectComplete(rendition, 12);
    expect(rendition.segments.map((s) => s.durationSec)).toEqual([3, 3, 3, 3]);
    expect(await probe(join(rendition.dir, 'seg1.ts'))).toMatchObject({ video: { codec: 'h264', height: 720 }, hasAudio: true });
  });

  it('scales a 1080p video down to 720 lines, keeping its aspect', async () => {
    const video = await generateVideo('hls-1080p', {
      width: 1920,
      height: 1080,
      fps: 25,
      audio: 'tone',
      container: 'mp4',
      scenes: [{ durationSec: 5, background: '0x1f3b73', texts: [{ text: 'TALL' }] }],
    });
    const rendition = await makeHls(video.path, await outDir());
    expect(rendition.plan).toEqual({ video: 'encode', audio: 'encode' });
    await expectComplete(rendition, 5);
    expect(await probe(join(rendition.dir, 'seg0.ts'))).toMatchObject({
      video: { codec: 'h264', width: 1280, height: 720 },
      audio: { codec: 'aac' },
    });
  });

  it('makes a picture-only rendition of a video without sound', async () => {
    const video = await silentVideo();
    const rendition = await makeHls(video.path, await outDir());
    expect(rendition.plan).toEqual({ video: 'copy', audio: 'none' });
    await expectComplete(rendition, 6);
    expect(await probe(join(rendition.dir, 'seg0.ts'))).toMatchObject({
      video: { codec: 'h264', width: 640, height: 480 },
      hasAudio: false,
    });
  });

  it('encodes after all when the copy’s segments would be too long (one keyframe in 16 s)', async () => {
    const path = await cachedFixture('hls-sparse-keyframes', 'mp4', 'testsrc 640x360 16s g=1000', (out) =>
      runFfmpeg([
        '-f',
        'lavfi',
        '-i',
        'testsrc=size=640x360:rate=25:duration=16',
        '-c:v',
        'libx264',
        '-preset',
        'ultrafast',
        '-pix_fmt',
        'yuv420p',
        '-g',
        '1000',
        '-sc_threshold',
        '0',
        '-f',
        'mp4',
        out,
      ]),
    );
    const rendition = await makeHls(path, await outDir());
    expect(rendition.plan).toEqual({ video: 'encode', audio: 'none' });
    await expectComplete(rendition, 16);
    expect(Math.max(...rendition.segments.map((s) => s.durationSec))).toBeLessThanOrEqual(4);
  });

  it('stops ffmpeg on abort with an aborted error', async () => {
    const video = await textScenesVideo();
    const controller = new AbortController();
    controller.abort();
    const error = await makeHls(video.path, await outDir(), { copy: 'never', signal: controller.signal }).catch((e: unknown) => e);
    expect(error).toMatchObject({ failure: 'aborted' });
  });
});
