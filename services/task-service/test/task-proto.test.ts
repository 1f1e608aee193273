import { toProtoTask } from '../src/tasks/rpc';
import type { HlsStatus, TaskRecord } from '../src/tasks/tasks';
import type { TaskStatus } from '../src/tasks/status';

const at = new Date('2024-05-01T00:00:00Z');

function task(status: TaskStatus, hls: HlsStatus | null): TaskRecord {
  return {
    id: '6528dde58f9cd95a98cbd075',
    orgId: '6528dde58f9cd95a98cbd076',
    indexId: '6528dde58f9cd95a98cbd077',
    videoId: '6528dde58f9cd95a98cbd078',
    status,
    source: { kind: 'upload', blobKey: 'uploads/x/video' },
    mediaBlobKey: 'uploads/x/video',
    transcription: null,
    language: null,
    enableVideoStream: hls !== null,
    userMetadata: {},
    filename: 'clip.mp4',
    system: null,
    progress: 0,
    hls: hls && {
      status: hls,
      videoKey: hls === 'COMPLETE' ? 'videos/6528dde58f9cd95a98cbd078/hls/index.m3u8' : null,
      thumbnailKeys: [],
      updatedAt: at,
    },
    extractors: { ran: [], skipped: [] },
    failure: null,
    idempotencyKey: null,
    history: [{ status, at }],
    createdAt: at,
    updatedAt: at,
  };
}

describe('toProtoTask hls', () => {
  it.each<[string, TaskStatus, HlsStatus | null, string | null]>([
    ['no stream asked for', 'ready', null, null],
    ['being made while indexing', 'indexing', 'PROCESSING', 'PROCESSING'],
    ['made', 'ready', 'COMPLETE', 'COMPLETE'],
    ['could not be made; the video was indexed', 'ready', 'ERROR', 'ERROR'],
    ['the task failed while it was being made: it never will be', 'failed', 'PROCESSING', 'CANCELED'],
  ])('%s', (_name, status, hls, shown) => {
    expect(toProtoTask(task(status, hls), at).hls?.status ?? null).toBe(shown);
  });

  it('carries the blob keys (the gateway signs them)', () => {
    expect(toProtoTask(task('ready', 'COMPLETE'), at).hls).toMatchObject({
      video_url: 'videos/6528dde58f9cd95a98cbd078/hls/index.m3u8',
      thumbnail_urls: [],
    });
  });
});
