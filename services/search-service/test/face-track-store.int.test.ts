import { newId } from '@vus/core';
import { DATABASE_KINDS, type ThrowawayDatabase } from '@vus/db/testing';
import { migrateService } from '@vus/service';
import { entityMoments, videosWithoutFaceTracks } from '../src/entity-search';
import { createFaceTrackStore, type FaceTrackStore } from '../src/face-track-store';
import type { NewSegment } from '../src/ingest';
import { createSegmentStore } from '../src/store';
import { searchService } from '../src/main';

/** A 128-number embedding: `x` in the first place, zeros after (distance = difference of x). */
const at = (x: number) => Float32Array.from({ length: 128 }, (_, i) => (i === 0 ? x : 0));

describe.each(DATABASE_KINDS)('face tracks on %s', (_kind, create) => {
  let database: ThrowawayDatabase;
  let store: FaceTrackStore;
  const orgId = newId();
  const indexId = newId();
  const [seen, empty, old] = [newId(), newId(), newId()];

  beforeAll(async () => {
    database = await create();
    await migrateService(database.db, searchService);
    store = createFaceTrackStore(database.db);
  });
  afterAll(() => database.drop());

  it('stores a video’s tracks, tells tracked videos (with or without faces) from the others, and finds an entity in them', async () => {
    await store.replaceVideo(orgId, indexId, seen, [
      { startSec: 1, endSec: 4, embedding: at(0.1) },
      { startSec: 6, endSec: 9, embedding: at(2) },
    ]);
    await store.replaceVideo(orgId, indexId, empty, []);

    const tracks = await store.tracks(orgId, indexId);
    expect(tracks.map((t) => [t.videoId, t.startSec, t.endSec])).toEqual([
      [seen, 1, 4],
      [seen, 6, 9],
    ]);
    expect(tracks[0]!.embedding[0]).toBeCloseTo(0.1, 6);
    expect(tracks[0]!.embedding).toHaveLength(128);
    expect(await store.tracks(newId(), indexId)).toEqual([]);

    const tracked = await store.trackedVideos(orgId, indexId, [seen, empty, old]);
    expect(videosWithoutFaceTracks([seen, empty, old], tracked)).toEqual([old]);

    const moments = entityMoments([at(0)], tracks, 0.4);
    expect([...moments.keys()]).toEqual([seen]);
    expect(moments.get(seen)?.map((m) => [m.start, m.end])).toEqual([[1, 4]]);
  });

  it('gives each moment the thumbnail of its video’s visual segment nearest its middle, or none', async () => {
    const video = newId();
    const segment = (start: number, end: number, modality: NewSegment['modality'], thumbnailKey: string): NewSegment => ({
      start,
      end,
      modality,
      text: modality === 'visual' ? '' : 'words',
      labels: [],
      labelNames: [],
      broaderTerms: [],
      tentative: { labels: [], names: [], broader: [] },
      thumbnailKey,
    });
    await createSegmentStore(database.db).replaceVideoSegments(orgId, indexId, video, [
      segment(0, 4, 'visual', 'a.jpg'),
      segment(4, 8, 'visual', 'b.jpg'),
      segment(8, 12, 'visual', ''),
      segment(5, 6, 'conversation', 'not-visual.jpg'),
    ]);
    const moments = [
      { videoId: video, start: 5, end: 7 },
      { videoId: video, start: 0, end: 1 },
      // The segment at 8–12 has no thumbnail: the nearest one that has is b.
      { videoId: video, start: 9, end: 12 },
      { videoId: newId(), start: 0, end: 4 },
    ];
    expect(await store.thumbnailsAt(orgId, indexId, moments)).toEqual(['b.jpg', 'a.jpg', 'b.jpg', '']);
    expect(await store.thumbnailsAt(newId(), indexId, moments.slice(0, 1))).toEqual(['']);
    expect(await store.thumbnailsAt(orgId, indexId, [])).toEqual([]);
  });

  it('replaces a re-indexed video’s tracks and deletes them with the video and the index', async () => {
    await store.replaceVideo(orgId, indexId, seen, [{ startSec: 0, endSec: 2, embedding: at(0.3) }]);
    expect((await store.tracks(orgId, indexId, [seen])).map((t) => t.startSec)).toEqual([0]);

    await store.deleteVideo(orgId, indexId, seen);
    expect(await store.tracks(orgId, indexId, [seen])).toEqual([]);
    expect(await store.trackedVideos(orgId, indexId, [seen, empty])).toEqual(new Set([empty]));

    await store.deleteIndex(orgId, indexId);
    expect(await store.trackedVideos(orgId, indexId, [empty])).toEqual(new Set());
  });
});
