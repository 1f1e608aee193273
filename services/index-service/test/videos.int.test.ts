import { ManualClock, newId } from '@vus/core';
import { migrateService } from '@vus/service';
import { DATABASE_KINDS, type ThrowawayDatabase } from '@vus/db/testing';
import { createIndexService, type IndexService } from '../src/indexes';
import { indexService } from '../src/main';
import { createIndexStore } from '../src/index-store';
import { createVideoStore } from '../src/video-store';
import { createVideoService, type CreateVideoInput, type VideoArtifacts, type VideoService, type VideoSort } from '../src/videos';
import { codeOf } from '@vus/testing';

const ORG = '6528dde58f9cd95a98cbd075';
const OTHER_ORG = '6528dde58f9cd95a98cbd076';

function buildVideo(indexId: string, overrides: Partial<CreateVideoInput> = {}): CreateVideoInput {
  return {
    indexId,
    videoId: newId(),
    system: { filename: 'clip.mp4', duration: 10, fps: 25, width: 1280, height: 720, size: 1_000_000 },
    userMetadata: {},
    hls: null,
    extractorsRun: ['visual', 'conversation'],
    mediaBlobKey: 'uploads/clip.mp4',
    ...overrides,
  };
}

const EMPTY_ARTIFACTS: VideoArtifacts = { transcription: [], text_in_video: [], logo: [], thumbnails: [] };

describe.each(DATABASE_KINDS)('videos on %s', (_kind, create) => {
  let database: ThrowawayDatabase;
  let clock: ManualClock;
  let indexes: IndexService;
  let videos: VideoService;
  let indexId: string;
  let woken: number;
  const blobs = new Map<string, Buffer>();

  beforeAll(async () => {
    database = await create();
    await migrateService(database.db, indexService);
    clock = new ManualClock('2024-05-01T00:00:00Z');
    const indexStore = createIndexStore(database.db);
    const eventsWritten = () => woken++;
    indexes = createIndexService({ store: indexStore, clock, eventsWritten });
    videos = createVideoService({
      store: createVideoStore(database.db),
      indexes: indexStore,
      blobs: { read: async (key) => blobs.get(key) },
      clock,
      eventsWritten,
    });
  });
  afterAll(() => database.drop());
  beforeEach(async () => {
    await database.db.query('TRUNCATE indexes, outbox CASCADE');
    woken = 0;
    indexId = (await indexes.create(ORG, { name: 'ads', models: [{ name: 'marengo2.6', options: ['visual'] }], addons: ['thumbnail'] })).id;
  });

  const outbox = async () =>
    (
      await database.db.query<{ type: string; key: string; payload: Record<string, unknown> }>(
        'SELECT type, key, payload FROM outbox ORDER BY seq',
      )
    ).rows;

  describe('create', () => {
    it('creates a video with its system metadata and counts it on the index', async () => {
      const input = buildVideo(indexId, {
        userMetadata: { topic: 'cars', rank: 3, fresh: true },
        createdAt: new Date('2024-04-01T00:00:00Z'),
      });
      const video = await videos.create(ORG, input);
      expect(video).toMatchObject({
        id: input.videoId,
        indexId,
        system: input.system,
        userMetadata: { topic: 'cars', rank: 3, fresh: true },
        title: null,
        extractorsRun: ['visual', 'conversation'],
        createdAt: new Date('2024-04-01T00:00:00Z'),
        indexedAt: clock.now(),
      });
      expect(await videos.get(ORG, indexId, input.videoId)).toEqual(video);
      expect(await indexes.get(ORG, indexId)).toMatchObject({ videoCount: 1, totalDuration: 10 });
    });

    it('is idempotent: a retry replaces what the worker owns and keeps what the user set', async () => {
      const input = buildVideo(indexId);
      await videos.create(ORG, input);
      await videos.update(ORG, indexId, input.videoId, { title: 'Mine', userMetadata: { kept: 'yes' }, replace: false });
      clock.advance(1000);
      const retried = await videos.create(ORG, { ...input, system: { ...input.system, duration: 12 }, extractorsRun: ['visual'] });
      expect(retried).toMatchObject({ title: 'Mine', userMetadata: { kept: 'yes' }, extractorsRun: ['visual'], system: { duration: 12 } });
      expect(await indexes.get(ORG, indexId)).toMatchObject({ videoCount: 1, totalDuration: 12 });
    });

    it('keeps the language its speech recogniser reported (none when not given), and a retry replaces it', async () => {
      const input = buildVideo(indexId);
      expect(await videos.create(ORG, input)).toMatchObject({ speechLanguage: null });
      await videos.create(ORG, { ...input, speechLanguage: 'en' });
      expect(await videos.get(ORG, indexId, input.videoId)).toMatchObject({ speechLanguage: 'en' });
    });

    it('takes many videos of one index at once without deadlock, and counts them all', async () => {
      const inputs = Array.from({ length: 12 }, () => buildVideo(indexId));
      await Promise.all(inputs.map((input) => videos.create(ORG, input)));
      await Promise.all(inputs.slice(0, 5).map((input) => videos.delete(ORG, indexId, input.videoId)));
      const { rows } = await database.db.query<{ video_count: number }>('SELECT video_count FROM indexes WHERE id = $1', [indexId]);
      expect(rows[0]!.video_count).toBe(7);
    });

    it('refuses an id already used in another index or organization', async () => {
      const other = await indexes.create(ORG, { name: 'other', models: [{ name: 'marengo2.6', options: ['visual'] }], addons: [] });
      const input = buildVideo(indexId);
      await videos.create(ORG, input);
      expect(await codeOf(videos.create(ORG, { ...input, indexId: other.id }))).toBe('parameter_invalid');
      expect(await codeOf(videos.create(OTHER_ORG, input))).toBe('resource_not_exist');
    });

    it.each([
      ['an unknown index', { indexId: '0123456789abcdef01234567' }, 'resource_not_exist'],
      ['a malformed video id', { videoId: 'nope' }, 'parameter_invalid'],
      ['an empty filename', { system: { filename: ' ', duration: 1, fps: 1, width: 1, height: 1, size: 1 } }, 'parameter_not_provided'],
      ['a negative duration', { system: { filename: 'a', duration: -1, fps: 1, width: 1, height: 1, size: 1 } }, 'parameter_invalid'],
      ['a fractional width', { system: { filename: 'a', duration: 1, fps: 1, width: 1.5, height: 1, size: 1 } }, 'parameter_invalid'],
      ['a nested metadata value', { userMetadata: { deep: { a: 1 } as never } }, 'parameter_invalid'],
      ['a null metadata value', { userMetadata: { gone: null } }, 'parameter_invalid'],
    ] as const)('refuses %s', async (_label, overrides, code) => {
      expect(await codeOf(videos.create(ORG, buildVideo(indexId, overrides as Partial<CreateVideoInput>)))).toBe(code);
    });
  });

  describe('get', () => {
    it('finds a video by id alone within the organization, never across organizations or indexes', async () => {
      const other = await indexes.create(ORG, { name: 'other', models: [{ name: 'marengo2.6', options: ['visual'] }], addons: [] });
      const video = await videos.create(ORG, buildVideo(indexId));
      expect((await videos.get(ORG, undefined, video.id)).indexId).toBe(indexId);
      expect(await codeOf(videos.get(OTHER_ORG, undefined, video.id))).toBe('resource_not_exist');
      expect(await codeOf(videos.get(OTHER_ORG, indexId, video.id))).toBe('resource_not_exist');
      expect(await codeOf(videos.get(ORG, other.id, video.id))).toBe('resource_not_exist');
    });
  });

  describe('list', () => {
    const day = (d: number) => new Date(Date.UTC(2024, 0, d));
    let ids: Record<string, string>;

    beforeEach(async () => {
      ids = {};
      const specs = [
        ['a', { filename: 'a.mp4', duration: 5, fps: 24, width: 640, height: 360, size: 100 }, { topic: 'cars', rank: 5, fresh: true }],
        ['b', { filename: 'b.mp4', duration: 50, fps: 30, width: 1280, height: 720, size: 2000 }, { topic: 'boats', rank: 2 }],
        [
          'c',
          { filename: 'c.mp4', duration: 500, fps: 60, width: 1920, height: 1080, size: 30000 },
          { topic: 'cars', rank: '5', fresh: false },
        ],
      ] as const;
      for (const [i, [name, system, userMetadata]] of specs.entries()) {
        clock.set(day(10 - i)); // updated_at: a newest
        const video = await videos.create(ORG, buildVideo(indexId, { system, userMetadata, createdAt: day(i + 1) }));
        ids[name] = video.id;
      }
      // Another organization's index and video never show.
      const theirs = await indexes.create(OTHER_ORG, { name: 'theirs', models: [{ name: 'marengo2.6', options: ['visual'] }], addons: [] });
      await videos.create(OTHER_ORG, buildVideo(theirs.id));
    });

    const names = async (filter = {}, sort: VideoSort = { by: 'created_at', order: 'desc' }, paging = {}) => {
      const result = await videos.list(ORG, indexId, filter, sort, paging);
      return result.data.map((v) => Object.entries(ids).find(([, id]) => id === v.id)?.[0]);
    };

    it('lists newest first by default with page info', async () => {
      const result = await videos.list(ORG, indexId, {}, { by: 'created_at', order: 'desc' }, {});
      expect(result.pageInfo).toEqual({ page: 1, limit_per_page: 10, total_page: 1, total_results: 3 });
      expect(await names()).toEqual(['c', 'b', 'a']);
    });

    it.each<[VideoSort, string[]]>([
      [{ by: 'created_at', order: 'asc' }, ['a', 'b', 'c']],
      [{ by: 'updated_at', order: 'desc' }, ['a', 'b', 'c']],
      [{ by: 'updated_at', order: 'asc' }, ['c', 'b', 'a']],
    ])('sorts by %j', async (sort, expected) => {
      expect(await names({}, sort)).toEqual(expected);
    });

    it('pages to an empty page past the end', async () => {
      expect(await names({}, undefined, { page: 1, pageLimit: 2 })).toEqual(['c', 'b']);
      expect(await names({}, undefined, { page: 2, pageLimit: 2 })).toEqual(['a']);
      expect(await names({}, undefined, { page: 3, pageLimit: 2 })).toEqual([]);
      expect(await codeOf(videos.list(ORG, indexId, {}, { by: 'created_at', order: 'desc' }, { pageLimit: 51 }))).toBe('parameter_invalid');
    });

    it.each([
      ['ids', () => ({ ids: [ids.a, ids.c] }), ['c', 'a']],
      ['filename', () => ({ filename: 'b.mp4' }), ['b']],
      ['duration range', () => ({ duration: { gte: 5, lt: 500 } }), ['b', 'a']],
      ['exact fps', () => ({ fps: { gte: 30, lte: 30 } }), ['b']],
      ['width and height', () => ({ width: { gt: 640 }, height: { lte: 720 } }), ['b']],
      ['size', () => ({ size: { gte: 2000 } }), ['c', 'b']],
      ['created_at', () => ({ createdAt: { gte: day(2), lt: day(3) } }), ['b']],
      ['updated_at', () => ({ updatedAt: { gt: day(9) } }), ['a']],
      ['indexed_at', () => ({ indexedAt: { lte: day(8) } }), ['c']],
      ['a metadata string', () => ({ userMetadata: { topic: ['cars'] } }), ['c', 'a']],
      ['metadata matching a number or a string', () => ({ userMetadata: { rank: ['5', 5] } }), ['c', 'a']],
      ['a metadata boolean', () => ({ userMetadata: { fresh: [false] } }), ['c']],
      ['two metadata keys', () => ({ userMetadata: { topic: ['cars'], fresh: [true] } }), ['a']],
      ['an absent metadata key', () => ({ userMetadata: { colour: ['red'] } }), []],
    ])('filters by %s', async (_label, filter, expected) => {
      expect(await names(filter())).toEqual(expected);
    });

    it('answers an unknown or foreign index with not found', async () => {
      const sort = { by: 'created_at', order: 'desc' } as const;
      expect(await codeOf(videos.list(OTHER_ORG, indexId, {}, sort, {}))).toBe('resource_not_exist');
    });
  });

  describe('listIds (search filters)', () => {
    it('gives every id passing the filter, in id order, and says when the limit cut them', async () => {
      const made = [];
      for (const duration of [5, 50, 500])
        made.push(
          (
            await videos.create(
              ORG,
              buildVideo(indexId, { system: { filename: 'x.mp4', duration, fps: 25, width: 640, height: 480, size: 1 } }),
            )
          ).id,
        );
      expect(await videos.listIds(ORG, indexId, {}, 10)).toEqual({ ids: [...made].sort(), truncated: false });
      expect(await videos.listIds(ORG, indexId, { duration: { gte: 10 } }, 10)).toEqual({ ids: made.slice(1).sort(), truncated: false });
      expect(await videos.listIds(ORG, indexId, {}, 2)).toEqual({ ids: [...made].sort().slice(0, 2), truncated: true });
      expect(await codeOf(videos.listIds(OTHER_ORG, indexId, {}, 10))).toBe('resource_not_exist');
    });
  });

  describe('update', () => {
    it('merges: sets keys, deletes null keys, keeps the others, stamps updated_at', async () => {
      const video = await videos.create(ORG, buildVideo(indexId, { userMetadata: { a: 'x', b: 1, c: true } }));
      clock.advance(60_000);
      const updated = await videos.update(ORG, indexId, video.id, { userMetadata: { b: 2, c: null, d: 'new' }, replace: false });
      expect(updated.userMetadata).toEqual({ a: 'x', b: 2, d: 'new' });
      expect(updated.updatedAt).toEqual(clock.now());
      expect(updated.createdAt).toEqual(video.createdAt);
    });

    it('replaces: the given keys become the whole user metadata', async () => {
      const video = await videos.create(ORG, buildVideo(indexId, { userMetadata: { a: 'x', b: 1 } }));
      const updated = await videos.update(ORG, indexId, video.id, { userMetadata: { c: 3, d: null }, replace: true });
      expect(updated.userMetadata).toEqual({ c: 3 });
    });

    it('sets the title and leaves it when not given', async () => {
      const video = await videos.create(ORG, buildVideo(indexId));
      expect((await videos.update(ORG, indexId, video.id, { title: 'Launch', userMetadata: {}, replace: false })).title).toBe('Launch');
      expect((await videos.update(ORG, indexId, video.id, { userMetadata: { a: 1 }, replace: false })).title).toBe('Launch');
    });

    it('refuses bad values and foreign videos', async () => {
      const video = await videos.create(ORG, buildVideo(indexId));
      expect(await codeOf(videos.update(ORG, indexId, video.id, { userMetadata: { n: Number.NaN }, replace: false }))).toBe(
        'parameter_invalid',
      );
      expect(await codeOf(videos.update(ORG, indexId, video.id, { userMetadata: { list: [1] as never }, replace: false }))).toBe(
        'parameter_invalid',
      );
      expect(await codeOf(videos.update(OTHER_ORG, indexId, video.id, { userMetadata: {}, replace: false }))).toBe('resource_not_exist');
    });
  });

  describe('artifacts', () => {
    const artifacts: VideoArtifacts = {
      transcription: [
        { start: 4, end: 6, value: 'second', confidence: 0.9 },
        { start: 0, end: 3.5, value: 'first', confidence: 0.8 },
      ],
      text_in_video: [{ start: 1, end: 9, value: 'SALE', confidence: 0.7 }],
      logo: [{ start: 2, end: 3, value: 'Acme', confidence: 0.5 }],
      thumbnails: [
        { time: 5, blobKey: 'thumbs/5.jpg', contentType: 'image/jpeg' },
        { time: 0, blobKey: 'thumbs/0.jpg', contentType: 'image/jpeg' },
      ],
    };

    it('replaces every artifact on each put, sorted by time', async () => {
      const video = await videos.create(ORG, buildVideo(indexId));
      await videos.putArtifacts(ORG, indexId, video.id, artifacts);
      await videos.putArtifacts(ORG, indexId, video.id, artifacts); // a retry changes nothing
      const stored = await videos.getArtifacts(ORG, indexId, video.id, [], {});
      expect(stored.transcription.map((t) => t.value)).toEqual(['first', 'second']);
      expect(stored.text_in_video).toEqual(artifacts.text_in_video);
      expect(stored.thumbnails.map((t) => t.time)).toEqual([0, 5]);
      await videos.putArtifacts(ORG, indexId, video.id, { ...EMPTY_ARTIFACTS, logo: artifacts.logo });
      expect(await videos.getArtifacts(ORG, indexId, video.id, [], {})).toEqual({ ...EMPTY_ARTIFACTS, logo: artifacts.logo });
    });

    it('returns only the asked kinds, overlapping the window', async () => {
      const video = await videos.create(ORG, buildVideo(indexId));
      await videos.putArtifacts(ORG, indexId, video.id, artifacts);
      const windowed = await videos.getArtifacts(ORG, indexId, video.id, ['transcription'], { start: 3.6, end: 10 });
      expect(windowed).toEqual({ ...EMPTY_ARTIFACTS, transcription: [{ start: 4, end: 6, value: 'second', confidence: 0.9 }] });
      expect(await codeOf(videos.getArtifacts(ORG, indexId, video.id, [], { start: 5, end: 2 }))).toBe('parameter_invalid');
    });

    it.each([
      ['end before start', { ...EMPTY_ARTIFACTS, transcription: [{ start: 3, end: 1, value: 'x', confidence: 0 }] }],
      ['a confidence above 1', { ...EMPTY_ARTIFACTS, logo: [{ start: 0, end: 1, value: 'x', confidence: 2 }] }],
      ['two thumbnails at one time', { ...EMPTY_ARTIFACTS, thumbnails: [artifacts.thumbnails[0]!, artifacts.thumbnails[0]!] }],
    ])('refuses %s and keeps what was stored', async (_label, bad) => {
      const video = await videos.create(ORG, buildVideo(indexId));
      await videos.putArtifacts(ORG, indexId, video.id, artifacts);
      expect(await codeOf(videos.putArtifacts(ORG, indexId, video.id, bad))).toBe('parameter_invalid');
      expect((await videos.getArtifacts(ORG, indexId, video.id, ['logo'], {})).logo).toEqual(artifacts.logo);
    });

    it('needs the video to exist in the organization', async () => {
      const video = await videos.create(ORG, buildVideo(indexId));
      expect(await codeOf(videos.putArtifacts(OTHER_ORG, indexId, video.id, artifacts))).toBe('resource_not_exist');
      expect(await codeOf(videos.getArtifacts(OTHER_ORG, indexId, video.id, [], {}))).toBe('resource_not_exist');
      expect(await codeOf(videos.putArtifacts(ORG, indexId, newId(), artifacts))).toBe('resource_not_exist');
    });
  });

  describe('thumbnail', () => {
    it('picks the nearest thumbnail and reads its bytes', async () => {
      const video = await videos.create(ORG, buildVideo(indexId));
      blobs.set('t/2.jpg', Buffer.from('two'));
      blobs.set('t/8.jpg', Buffer.from('eight'));
      await videos.putArtifacts(ORG, indexId, video.id, {
        ...EMPTY_ARTIFACTS,
        thumbnails: [
          { time: 2, blobKey: 't/2.jpg', contentType: 'image/jpeg' },
          { time: 8, blobKey: 't/8.jpg', contentType: 'image/png' },
        ],
      });
      expect(await videos.thumbnail(ORG, indexId, video.id, undefined, false)).toEqual({
        time: 2,
        contentType: 'image/jpeg',
        data: undefined,
      });
      expect(await videos.thumbnail(ORG, indexId, video.id, 6, true)).toEqual({
        time: 8,
        contentType: 'image/png',
        data: Buffer.from('eight'),
      });
    });

    it('answers clearly when there is no addon, no thumbnail or no blob', async () => {
      const video = await videos.create(ORG, buildVideo(indexId));
      expect(await codeOf(videos.thumbnail(ORG, indexId, video.id, undefined, true))).toBe('resource_not_exist');
      await videos.putArtifacts(ORG, indexId, video.id, {
        ...EMPTY_ARTIFACTS,
        thumbnails: [{ time: 1, blobKey: 'gone', contentType: 'image/jpeg' }],
      });
      expect(await codeOf(videos.thumbnail(ORG, indexId, video.id, undefined, true))).toBe('resource_not_exist');
      const plain = await indexes.create(ORG, { name: 'plain', models: [{ name: 'marengo2.6', options: ['visual'] }], addons: [] });
      const other = await videos.create(ORG, buildVideo(plain.id));
      expect(await codeOf(videos.thumbnail(ORG, plain.id, other.id, undefined, false))).toBe('parameter_invalid');
      expect(await codeOf(videos.thumbnail(OTHER_ORG, indexId, video.id, undefined, false))).toBe('resource_not_exist');
    });
  });

  describe('delete', () => {
    it('deletes the video with its artifacts and writes video.deleted with its blob keys', async () => {
      const video = await videos.create(ORG, buildVideo(indexId));
      await videos.putArtifacts(ORG, indexId, video.id, {
        ...EMPTY_ARTIFACTS,
        thumbnails: [{ time: 1, blobKey: 'thumbs/1.jpg', contentType: 'image/jpeg' }],
      });
      expect(await codeOf(videos.delete(OTHER_ORG, indexId, video.id))).toBe('resource_not_exist');
      await videos.delete(ORG, indexId, video.id);
      expect(woken).toBe(2); // index.created, video.deleted
      expect((await outbox()).at(-1)).toEqual({
        type: 'video.deleted',
        key: video.id,
        payload: { index_id: indexId, video_id: video.id, blob_keys: ['uploads/clip.mp4', 'thumbs/1.jpg'], reason: 'video_deleted' },
      });
      expect(await codeOf(videos.get(ORG, indexId, video.id))).toBe('resource_not_exist');
      expect(await codeOf(videos.delete(ORG, indexId, video.id))).toBe('resource_not_exist');
      expect(await indexes.get(ORG, indexId)).toMatchObject({ videoCount: 0, totalDuration: 0 });
      const left = await database.db.query(
        'SELECT (SELECT count(*) FROM video_thumbnails) + (SELECT count(*) FROM video_timed_values) AS n',
      );
      expect(Number(left.rows[0]!.n)).toBe(0);
    });

    it('deleting an index deletes its videos, one video.deleted each, then index.deleted', async () => {
      const a = await videos.create(ORG, buildVideo(indexId, { mediaBlobKey: 'a.mp4' }));
      const b = await videos.create(ORG, buildVideo(indexId, { mediaBlobKey: null }));
      await indexes.delete(ORG, indexId);
      const events = (await outbox()).slice(1);
      expect(events.map((e) => [e.type, e.key]).sort()).toEqual(
        [
          ['index.deleted', indexId],
          ['video.deleted', a.id],
          ['video.deleted', b.id],
        ].sort(),
      );
      expect(events.find((e) => e.key === a.id)?.payload).toMatchObject({ blob_keys: ['a.mp4'], reason: 'index_deleted' });
      expect(events.at(-1)?.type).toBe('index.deleted');
      expect((await database.db.query('SELECT count(*) AS n FROM videos')).rows[0]).toEqual({ n: '0' });
    });
  });
});
