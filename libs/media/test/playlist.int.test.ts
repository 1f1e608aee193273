import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { detectShots, extractAudio, extractSubtitles, makeHls, probe, sampleFrames, thumbnail, type MediaProbe } from '@vus/media';
import { errorOf, serveFiles, shortVideo, type FileServer } from '@vus/testing';

/**
 * An uploaded "video" that is really a playlist or manifest makes a permissive ffmpeg open what it
 * lists: another organization's blob on the local disk, or an internal URL. Every one must be
 * refused from its content (whatever its name) without the listed file or URL ever being opened.
 * The loopback server stands for every URL: it must see no request at all.
 */

jest.setTimeout(60_000);

let work: string;
let server: FileServer;
let secretPath: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'vus-playlist-test-'));
  secretPath = (await shortVideo()).path;
  server = await serveFiles({ 'secret.mp4': secretPath, 'secret.ts': secretPath });
});
afterAll(async () => {
  await server.close();
  await rm(work, { recursive: true, force: true });
});
afterEach(() => {
  server.requests.length = 0;
});

const hlsPlaylist = (target: string) => `#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXT-X-VERSION:3\n#EXTINF:10.0,\n${target}\n#EXT-X-ENDLIST\n`;
const dashManifest = (target: string) => `<?xml version="1.0"?>
<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT2S" minBufferTime="PT1S" profiles="urn:mpeg:dash:profile:isoff-on-demand:2011">
 <Period><AdaptationSet mimeType="video/mp4"><Representation id="1" bandwidth="100000" width="640" height="480" codecs="avc1.64001e">
  <BaseURL>${target}</BaseURL><SegmentBase/>
 </Representation></AdaptationSet></Period>
</MPD>
`;

/** Name in the upload, and content (given the server and a local file another organization owns). */
const HOSTILE: ReadonlyArray<[string, string, () => string]> = [
  ['an HLS playlist of a URL, named .mp4', 'upload.mp4', () => hlsPlaylist(server.url('secret.ts'))],
  ['an HLS playlist of a URL, named .m3u8', 'upload.m3u8', () => hlsPlaylist(server.url('secret.ts'))],
  ['an HLS playlist of a local file', 'upload.mp4', () => hlsPlaylist(secretPath)],
  ['an HLS playlist of a file: URL', 'upload.m3u8', () => hlsPlaylist(`file:${secretPath}`)],
  ['a DASH manifest of a URL', 'upload.mp4', () => dashManifest(server.url('secret.mp4'))],
  ['a DASH manifest of a local file', 'upload.mpd', () => dashManifest(`file://${secretPath}`)],
  ['an ffconcat list of a URL', 'upload.mp4', () => `ffconcat version 1.0\nfile '${server.url('secret.mp4')}'\n`],
  ['an ffconcat list of a local file', 'upload.ffconcat', () => `ffconcat version 1.0\nfile '${secretPath}'\n`],
  ['SRT subtitles named .mp4', 'upload.mp4', () => '1\n00:00:00,000 --> 00:00:02,000\nhello\n'],
];

async function hostileFile(name: string, content: string): Promise<string> {
  const dir = await mkdtemp(join(work, 'upload-'));
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
}

describe.each(HOSTILE)('%s', (_label, name, content) => {
  it('is refused by probe as not a video file, and nothing it lists is opened', async () => {
    const file = await hostileFile(name, content());
    const error = await errorOf(probe(file));
    expect(error).toMatchObject({ code: 'unsupported_file_type' });
    expect(error && error.message).not.toContain(secretPath);
    expect(error && error.message).not.toContain(server.baseUrl);
    expect(server.requests).toEqual([]);
  });

  it('is not followed by any ffmpeg step even when a probe (stale, forged) says it is an MP4', async () => {
    const file = await hostileFile(name, content());
    const forged: MediaProbe = {
      container: 'mp4',
      demuxer: 'mov',
      durationSec: 2,
      sizeBytes: 200,
      video: { codec: 'h264', width: 640, height: 480, fps: 25, pixelFormat: 'yuv420p' },
      audio: { codec: 'aac', sampleRate: 48_000, channels: 1 },
      hasAudio: true,
      subtitles: [{ streamIndex: 0, codec: 'subrip', isText: true }],
    };
    const out = await mkdtemp(join(work, 'out-'));
    const frames = (async () => {
      for await (const frame of sampleFrames(file, { probe: forged })) void frame;
    })();
    const steps: Array<[string, Promise<unknown>]> = [
      ['sampleFrames', frames],
      ['thumbnail', thumbnail(file, 0, 320, { probe: forged })],
      ['extractAudio', extractAudio(file, join(out, 'speech.wav'), { probe: forged })],
      ['extractSubtitles', extractSubtitles(file, { probe: forged })],
      ['detectShots', detectShots(file, { probe: forged })],
      ['makeHls', makeHls(file, out, { probe: forged })],
    ];
    for (const [step, run] of steps) {
      expect([step, await errorOf(run)]).toEqual([
        step,
        expect.objectContaining({ code: expect.stringMatching(/^(video_file_broken|unsupported_file_type|audio_file_broken)$/) }),
      ]);
    }
    expect(server.requests).toEqual([]);
  });
});

it('still reads a real MP4 with every input pinned to its demuxer', async () => {
  const probed = await probe(secretPath);
  expect(probed).toMatchObject({ container: 'mp4', demuxer: 'mov' });
  const jpeg = await thumbnail(secretPath, 0.5, 160, { probe: probed });
  expect(jpeg.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
  const audio = await extractAudio(secretPath, join(work, 'real.wav'), { probe: probed });
  expect(audio.durationSec).toBeGreaterThan(1.5);
});
