/**
 * Synchronous video embeddings over gRPC (issue 28 item 7): a call its caller cancels stops its
 * work (no further frames embedded, no ffmpeg left running), and one organization runs at most
 * SYNC_VIDEOS_PER_ORGANIZATION at once while another is served.
 */
import { FileBlobStore } from '@vus/blob';
import { createEmbedClient, type EmbedClient } from '@vus/clients';
import { createLogger, newId, systemClock } from '@vus/core';
import { DEFAULT_FETCH_POLICY } from '@vus/fetch';
import { loadProto, startGrpcServer, type RunningGrpcServer } from '@vus/grpc';
import { runFfmpeg } from '@vus/media';
import type { ConceptEmbedder } from '@vus/models';
import { codeOf } from '@vus/testing';
import { createReadStream } from 'node:fs';
import { readdir, readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { embedServiceImplementation } from '../src/server';
import { createSyncVideoEmbedding, SYNC_VIDEOS_PER_ORGANIZATION } from '../src/sync-video';

const logger = createLogger({ service: 'test', level: process.env.TEST_LOG_LEVEL ?? 'silent' });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** ffmpeg processes this test process started (the service runs in it). */
async function ffmpegChildren(): Promise<number> {
  let count = 0;
  for (const pid of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(pid)) continue;
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    const match = /^\d+ \((.*)\) \S+ (\d+)/.exec(stat);
    if (match && match[1]!.startsWith('ffmpeg') && Number(match[2]) === process.pid) count++;
  }
  return count;
}

/** The concept embedder's surface the video path uses: counts frames, and holds them while `held`. */
function countingEmbedder() {
  let frames = 0;
  let held: Promise<void> | undefined;
  let release = () => undefined as void;
  const embedder = {
    async imageConcepts() {
      frames++;
      await held;
      // An image's detector and OCR take a while; a short pause stands for it.
      await sleep(20);
      return new Map([['thing', 1]]);
    },
    textConcepts: () => new Map(),
    soundConcepts: () => new Map([['silence', 1]]),
    embed: (_bag: unknown, dimensions: number) => new Float32Array(dimensions).fill(0.1),
    canTranscribe: async () => false,
    transcribe: async () => [],
  };
  return {
    embedder: embedder as unknown as ConceptEmbedder,
    frames: () => frames,
    hold() {
      held = new Promise<void>((resolve) => (release = resolve));
    },
    release: () => release(),
  };
}

describe('synchronous video embeddings over gRPC', () => {
  let dir: string;
  let server: RunningGrpcServer;
  let client: EmbedClient;
  const counting = countingEmbedder();
  const recorded: string[] = [];

  // A video at 0.5 frames per second embedded: 300 s are 150 frames.
  const request = (blobKey: string, options: string[] = ['visual']) => ({
    model_name: 'marengo3.0',
    video: { source: 'blob_key' as const, blob_key: blobKey },
    embedding_options: options,
    embedding_scopes: ['clip'],
  });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'embed-sync-video-'));
    const blobs = await FileBlobStore.open(join(dir, 'blobs'));
    await runFfmpeg([
      '-f',
      'lavfi',
      '-i',
      'testsrc=size=160x120:rate=2:duration=300',
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      join(dir, 'long.mp4'),
    ]);
    await blobs.put('videos/long.mp4', createReadStream(join(dir, 'long.mp4')));
    const video = createSyncVideoEmbedding({
      embedder: counting.embedder,
      blobs,
      fetchPolicy: DEFAULT_FETCH_POLICY,
      usage: { recordVideoSeconds: async (orgId) => void recorded.push(orgId) },
      clock: systemClock,
    });
    const implementation = embedServiceImplementation(
      {} as never,
      {} as never,
      async () => Buffer.alloc(0),
      {} as never,
      {} as never,
      logger,
      { video, blobs },
    );
    server = await startGrpcServer({
      bind: '127.0.0.1:0',
      logger,
      services: [{ name: 'vus.embed.v1.EmbedService', definition: loadProto().proto.vus.embed.v1.EmbedService.service, implementation }],
    });
    client = createEmbedClient(server.address);
  }, 120_000);

  afterAll(async () => {
    counting.release();
    client?.close();
    await server?.stop(1000);
    await rm(dir, { recursive: true, force: true });
  });

  it('stops embedding, and stops ffmpeg, once its caller cancels the call', async () => {
    const orgId = newId();
    const leaving = new AbortController();
    const before = counting.frames();
    const call = client.createEmbedding(
      { orgId, deadline: new Date(Date.now() + 300_000), signal: leaving.signal },
      request('videos/long.mp4'),
    );
    for (let waited = 0; counting.frames() - before < 3 && waited < 60_000; waited += 50) await sleep(50);
    expect(counting.frames() - before).toBeGreaterThanOrEqual(3);
    leaving.abort();
    expect(await codeOf(call)).toBe('request_canceled_or_timed_out');
    // The frame in flight may finish; nothing after it starts.
    await sleep(500);
    const afterCancel = counting.frames();
    await sleep(1500);
    expect(counting.frames()).toBe(afterCancel);
    expect(afterCancel - before).toBeLessThan(150);
    expect(await ffmpegChildren()).toBe(0);
    expect(recorded).not.toContain(orgId);
  }, 120_000);

  it(`runs ${SYNC_VIDEOS_PER_ORGANIZATION} of one organization's at once, refuses the next with 429, and serves another organization`, async () => {
    const busy = newId();
    const other = newId();
    counting.hold();
    const before = counting.frames();
    const running = Array.from({ length: SYNC_VIDEOS_PER_ORGANIZATION }, () =>
      client.createEmbedding({ orgId: busy, deadline: new Date(Date.now() + 300_000) }, request('videos/long.mp4')),
    );
    for (let waited = 0; counting.frames() - before < SYNC_VIDEOS_PER_ORGANIZATION && waited < 60_000; waited += 50) await sleep(50);
    const refused = client.createEmbedding({ orgId: busy }, request('videos/long.mp4'));
    await expect(refused).rejects.toMatchObject({ code: 'too_many_requests' });
    await expect(refused).rejects.toThrow(/synchronous video embeddings/);
    // Another organization's video (its audio only: the frames are held) is served meanwhile.
    const served = await client.createEmbedding(
      { orgId: other, deadline: new Date(Date.now() + 60_000) },
      request('videos/long.mp4', ['audio']),
    );
    expect(served.video_embedding?.segments.length).toBeGreaterThan(0);
    counting.release();
    await Promise.all(running);
  }, 120_000);
});
