import { ManualClock } from '@vus/core';
import type { Task } from '@vus/grpc/types/task/v1/Task';
import type { Request } from 'express';
import { createHlsSigner, createThumbnailSigner } from '../src/http/signed-urls';
import { presentTask } from '../src/presenters/tasks';
import { streamUrls } from '../src/http/media-urls';
import { ADAPTERS } from '../src/versions';

const FOLDER = 'videos/6528dde58f9cd95a98cbd077/hls/';
const now = new Date('2024-06-01T00:00:00Z');
const expiresAt = new Date('2024-06-01T01:00:00Z');

/** The token and file of a signed stream path. */
function partsOf(path: string): { token: string; file: string } {
  const [, hls, token, file, ...rest] = path.split('/');
  expect([hls, rest]).toEqual(['hls', []]);
  return { token: token!, file: file! };
}

describe('createHlsSigner', () => {
  const signer = createHlsSigner('s'.repeat(32));
  const { token, file } = partsOf(signer.url(`${FOLDER}index.m3u8`, expiresAt)!);
  const [folderPart, expires, signature] = token.split('.') as [string, string, string];

  it('grants the stream folder until it expires, for every plain file in it', () => {
    expect(file).toBe('index.m3u8');
    expect(signer.verify(token, now)).toEqual({ ok: true, folder: FOLDER, expiresAt });
    expect(signer.verify(token, new Date('2024-06-01T00:59:59Z')).ok).toBe(true);
    expect(signer.verify(token, expiresAt)).toEqual({ ok: false, reason: 'expired' });
    // The playlist's segments and still share its token.
    expect(partsOf(signer.url(`${FOLDER}seg3.ts`, expiresAt)!).token).toBe(token);
    expect(signer.keyOf(FOLDER, 'seg3.ts')).toBe(`${FOLDER}seg3.ts`);
  });

  it.each([
    ['another folder', `${Buffer.from('videos/6528dde58f9cd95a98cbd078/hls/').toString('base64url')}.${expires}.${signature}`],
    ['a parent folder', `${Buffer.from('videos/').toString('base64url')}.${expires}.${signature}`],
    ['a later expiry', `${folderPart}.${Number(expires) + 1}.${signature}`],
    ['a changed signature', `${folderPart}.${expires}.x${signature.slice(1)}`],
    ['no signature', `${folderPart}.${expires}`],
    ['padding added to the folder', `${folderPart}=.${expires}.${signature}`],
    ['a folder that is not a blob folder', `${Buffer.from('../etc/').toString('base64url')}.${expires}.${signature}`],
    ['garbage', 'not-a-token'],
  ])('refuses %s', (_label, changed) => {
    expect(signer.verify(changed, now)).toEqual({ ok: false, reason: 'invalid' });
  });

  it('refuses a URL signed with another secret, even when expired', () => {
    const other = partsOf(createHlsSigner('t'.repeat(32)).url(`${FOLDER}index.m3u8`, expiresAt)!).token;
    expect(signer.verify(other, new Date('2030-01-01T00:00:00Z'))).toEqual({ ok: false, reason: 'invalid' });
  });

  it('is not fooled by a thumbnail signature of the same secret', () => {
    const thumbnailSignature = new URL(
      createThumbnailSigner('s'.repeat(32)).sign({ orgId: 'a', indexId: 'b', videoId: 'c', time: 1 }, expiresAt),
      'http://x',
    ).searchParams.get('signature');
    expect(signer.verify(`${folderPart}.${expires}.${thumbnailSignature}`, now)).toEqual({ ok: false, reason: 'invalid' });
  });

  it.each([
    ['a file without a folder', 'index.m3u8'],
    ['a folder without a file', FOLDER],
    ['a parent step', 'videos/../hls/index.m3u8'],
    ['an absolute path', '/videos/x/hls/index.m3u8'],
    ['a hidden file', `${FOLDER}.index.m3u8`],
    ['a URL', 'https://cdn.example.com/x/index.m3u8'],
  ])('signs no URL for %s', (_label, key) => {
    expect(signer.url(key, expiresAt)).toBeUndefined();
  });

  it.each(['..', '.hidden.ts', 'a/b.ts', 'a\\b.ts', ''])('names no blob for the file %j', (name) => {
    expect(signer.keyOf(FOLDER, name)).toBeUndefined();
  });
});

describe('streamUrls', () => {
  const signer = createHlsSigner('s'.repeat(32));
  const req = { protocol: 'http', get: () => 'api.test:8080' } as unknown as Request;

  it.each([
    ['a 60 s video: an hour and two minutes', 60, '2024-06-01T01:02:00.000Z'],
    ['a 2 h video: the hour plus four', 7200, '2024-06-01T05:00:00.000Z'],
    ['rounded up to the minute', 10.4, '2024-06-01T01:01:00.000Z'],
    ['no duration known: the hour', 0, '2024-06-01T01:00:00.000Z'],
  ])('signs %s', (_label, durationSec, expected) => {
    const urlOf = streamUrls(req, { signer, clock: new ManualClock(now), ttlMs: 3_600_000 })(durationSec);
    const url = urlOf(`${FOLDER}index.m3u8`)!;
    expect(url.startsWith('http://api.test:8080/hls/')).toBe(true);
    const verified = signer.verify(partsOf(new URL(url).pathname).token, now);
    expect(verified.ok && verified.expiresAt.toISOString()).toBe(expected);
  });

  it('puts the public URL in front when one is configured', () => {
    const urlOf = streamUrls(req, { signer, clock: new ManualClock(now), ttlMs: 60_000, publicUrl: 'https://video.example.com/' })(10);
    expect(urlOf(`${FOLDER}seg0.ts`)).toMatch(/^https:\/\/video\.example\.com\/hls\/[^/]+\/seg0\.ts$/);
  });
});

describe('presentTask', () => {
  const task: Task = {
    id: '6528dde58f9cd95a98cbd079',
    index_id: '6528dde58f9cd95a98cbd076',
    video_id: '6528dde58f9cd95a98cbd077',
    status: 'indexing',
    failure: null,
    system_metadata: { filename: 'clip.mp4', duration: 60, fps: 25, width: 1280, height: 720, size: 1000 },
    process: { percentage: 40, remain_seconds: 30 },
    hls: {
      video_url: `${FOLDER}index.m3u8`,
      thumbnail_urls: [`${FOLDER}thumbnail.jpg`],
      status: 'COMPLETE',
      updated_at: { seconds: 1717200000, nanos: 0 },
    },
    source: null,
    user_metadata: {},
    estimated_time: { seconds: 1717200030, nanos: 0 },
    created_at: { seconds: 1717199000, nanos: 0 },
    updated_at: { seconds: 1717200000, nanos: 0 },
    status_history: [],
    extractors_run: [],
    extractors_skipped: [],
  };
  const hlsUrl = (key: string) => `https://signed/${key}`;

  it('shows v1.2 when indexing should end, and how much is left', () => {
    expect(presentTask(ADAPTERS['v1.2'], task, { hlsUrl })).toMatchObject({
      estimated_time: '2024-06-01T00:00:30.000Z',
      process: { percentage: 40, remain_seconds: 30 },
    });
  });

  it('leaves estimated_time out of v1.3, and out of v1.2 when unknown', () => {
    expect(presentTask(ADAPTERS['v1.3'], task, { hlsUrl })).not.toHaveProperty('estimated_time');
    expect(presentTask(ADAPTERS['v1.2'], { ...task, estimated_time: null })).not.toHaveProperty('estimated_time');
  });

  it.each(['v1.2', 'v1.3'] as const)('shows %s the stream with signed URLs, never the blob keys', (version) => {
    expect(presentTask(ADAPTERS[version], task, { hlsUrl }).hls).toEqual({
      video_url: `https://signed/${FOLDER}index.m3u8`,
      thumbnail_urls: [`https://signed/${FOLDER}thumbnail.jpg`],
      status: 'COMPLETE',
      updated_at: '2024-06-01T00:00:00.000Z',
    });
    expect(presentTask(ADAPTERS[version], task).hls).toEqual({
      thumbnail_urls: [],
      status: 'COMPLETE',
      updated_at: '2024-06-01T00:00:00.000Z',
    });
  });

  it('shows a stream still being made (or failed) without URLs', () => {
    const processing = { ...task, hls: { video_url: '', thumbnail_urls: [], status: 'PROCESSING', updated_at: task.updated_at } };
    expect(presentTask(ADAPTERS['v1.3'], processing, { hlsUrl }).hls).toEqual({
      thumbnail_urls: [],
      status: 'PROCESSING',
      updated_at: '2024-06-01T00:00:00.000Z',
    });
  });
});
