/**
 * @jest-environment ./libs/models/test/helpers/onnx-environment.js
 */
/*
 * Video streams end to end: a task that asks for one (the default) ends `ready` with `hls` on the
 * task and on the video; its signed `video_url` is a playlist a player can read, and the segments
 * it names relatively can be fetched with the same token. Tampered, expired and out-of-folder
 * requests get the API's error body. A task that declined the stream has none.
 */
import { parseHlsPlaylist } from '@vus/media';
import { textScenesVideo, type GeneratedVideo } from '@vus/testing';
import request from 'supertest';
import { createHlsSigner } from '../src/http/signed-urls';
import { startIndexingStack, type IndexingStack } from './indexing-stack';

const SECRET = 'hls-e2e-signing-secret-0123456789';

let stack: IndexingStack;
let fixture: GeneratedVideo;
let key: string;
let indexId: string;
const api = () => request(stack.url);

beforeAll(async () => {
  [stack, fixture] = await Promise.all([startIndexingStack({ worker: true, urlSigningSecret: SECRET }), textScenesVideo()]);
  ({ key } = await stack.newOrg());
  // Audio only: the cheapest index to make (no Whisper in tests, so it is recorded as skipped).
  const index = await api()
    .post('/v1.3/indexes')
    .set('x-api-key', key)
    .send({ index_name: 'streams', models: [{ model_name: 'marengo3.0', model_options: ['audio'] }] })
    .expect(201);
  indexId = index.body._id as string;
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

/** Uploads the fixture and polls the task as the SDKs do until it is finished. */
async function indexedTask(
  version: 'v1.2' | 'v1.3',
  fields: Record<string, string> = {},
): Promise<Record<string, unknown> & { _id: string }> {
  let upload = api().post(`/${version}/tasks`).set('x-api-key', key).field('index_id', indexId);
  for (const [name, value] of Object.entries(fields)) upload = upload.field(name, value);
  const created = await upload.attach('video_file', fixture.path);
  expect(created.status).toBe(version === 'v1.3' ? 200 : 201);
  for (;;) {
    const res = await api().get(`/${version}/tasks/${created.body._id}`).set('x-api-key', key).expect(200);
    if (res.body.status === 'ready' || res.body.status === 'failed') return res.body;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** What a stream URL grants, without its expiry and signature (those move with the clock). */
function grantOf(url: string): { folder: string; file: string } {
  const [, , token, file] = new URL(url).pathname.split('/');
  return { folder: Buffer.from(token!.split('.')[0]!, 'base64url').toString('utf8'), file: file! };
}

async function get(url: string): Promise<{ status: number; type: string | null; body: Buffer }> {
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get('content-type'), body: Buffer.from(await res.arrayBuffer()) };
}

describe('a task that asked for a video stream', () => {
  let task: Record<string, unknown> & {
    _id: string;
    video_id?: string;
    hls?: { video_url: string; thumbnail_urls: string[]; status: string };
  };

  beforeAll(async () => {
    task = await indexedTask('v1.3');
  }, 120_000);

  it('shows the stream on the task and on the video, with signed URLs', async () => {
    expect(task).toMatchObject({
      status: 'ready',
      hls: {
        status: 'COMPLETE',
        video_url: expect.stringMatching(new RegExp(`^${stack.url}/hls/[^/]+/index\\.m3u8$`)),
        updated_at: expect.any(String),
      },
    });
    expect(task.hls!.thumbnail_urls).toEqual([expect.stringMatching(new RegExp(`^${stack.url}/hls/[^/]+/thumbnail\\.jpg$`))]);
    const folder = `videos/${task.video_id}/hls/`;
    expect(grantOf(task.hls!.video_url)).toEqual({ folder, file: 'index.m3u8' });
    expect(grantOf(task.hls!.thumbnail_urls[0]!)).toEqual({ folder, file: 'thumbnail.jpg' });
    const video = await api().get(`/v1.3/indexes/${indexId}/videos/${task.video_id}`).set('x-api-key', key).expect(200);
    expect(video.body.hls).toEqual({
      video_url: expect.any(String),
      thumbnail_urls: [expect.any(String)],
      status: 'COMPLETE',
      updated_at: expect.any(String),
    });
    expect(grantOf(video.body.hls.video_url)).toEqual({ folder, file: 'index.m3u8' });
    const v12 = await api().get(`/v1.2/tasks/${task._id}`).set('x-api-key', key).expect(200);
    expect(v12.body.hls).toMatchObject({ status: 'COMPLETE', video_url: expect.any(String) });
    expect(grantOf(v12.body.hls.video_url)).toEqual({ folder, file: 'index.m3u8' });
    // Finished: nothing left to estimate.
    expect(v12.body.estimated_time).toBeUndefined();
  });

  it('serves the playlist, the segments it names relatively, and the still', async () => {
    const playlist = await get(task.hls!.video_url);
    expect([playlist.status, playlist.type]).toEqual([200, 'application/vnd.apple.mpegurl']);
    const parsed = parseHlsPlaylist(playlist.body.toString('utf8'));
    expect(parsed.ended).toBe(true);
    expect(parsed.segments.reduce((sum, s) => sum + s.durationSec, 0)).toBeCloseTo(fixture.truth.durationSec, 0);
    for (const segment of parsed.segments) {
      // Resolved the way a player resolves it: against the playlist's own URL.
      const ts = await get(new URL(segment.uri, task.hls!.video_url).toString());
      expect([ts.status, ts.type]).toEqual([200, 'video/mp2t']);
      expect(ts.body[0]).toBe(0x47); // the MPEG-TS sync byte
    }
    const still = await get(task.hls!.thumbnail_urls[0]!);
    expect([still.status, still.type, still.body.subarray(0, 2).toString('hex')]).toEqual([200, 'image/jpeg', 'ffd8']);
  });

  it('refuses a tampered or expired URL with 403 and the error body', async () => {
    const url = new URL(task.hls!.video_url);
    const [, , token, file] = url.pathname.split('/');
    const tampered = token!.slice(0, -1) + (token!.endsWith('A') ? 'B' : 'A');
    const bad = await api().get(`/hls/${tampered}/${file}`).expect(403);
    expect(bad.body).toEqual({ code: 'api_not_allowed', message: 'This video stream URL is not valid.' });
    // The folder swapped for another video's, signature kept.
    const otherFolder = Buffer.from('videos/000000000000000000000000/hls/').toString('base64url');
    await api()
      .get(`/hls/${otherFolder}${token!.slice(token!.indexOf('.'))}/${file}`)
      .expect(403);

    const expired = createHlsSigner(SECRET).url(`videos/${task.video_id}/hls/index.m3u8`, new Date(Date.now() - 1000))!;
    const gone = await api().get(expired).expect(403);
    expect(gone.body).toEqual({ code: 'api_not_allowed', message: expect.stringMatching(/expired/) });
  });

  it('serves only plain, known files of the signed folder', async () => {
    const token = new URL(task.hls!.video_url).pathname.split('/')[2]!;
    for (const file of ['..%2F..%2Fthumbnails%2F0.jpg', '..', '.hidden.ts', 'index.mp4', 'seg999.ts']) {
      const res = await api().get(`/hls/${token}/${file}`);
      expect({ file, status: res.status, code: res.body.code }).toEqual({
        file,
        status: 404,
        code: expect.stringMatching(/^(resource_not_exist|endpoint_not_found)$/),
      });
    }
  });
});

it('makes no stream for a task that declined it (v1.2 disable_video_stream)', async () => {
  const task = await indexedTask('v1.2', { disable_video_stream: 'true' });
  expect(task.status).toBe('ready');
  expect(task.hls).toBeUndefined();
  const video = await api()
    .get(`/v1.2/indexes/${indexId}/videos/${task.video_id as string}`)
    .set('x-api-key', key)
    .expect(200);
  expect(video.body.hls).toBeUndefined();
}, 120_000);
