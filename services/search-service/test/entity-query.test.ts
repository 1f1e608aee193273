import { ApiError } from '@vus/core';
import { FACE_MATCH_THRESHOLD } from '@vus/models';
import { codeOf } from '@vus/testing';
import type { SegmentMatch } from '../src/clips';
import type { EntitySearchDeps } from '../src/entity-parts';
import {
  checkMentions,
  entityMatches,
  entityMatchesIn,
  facelessEntity,
  joinEntityMatches,
  MAX_ENTITY_MENTIONS,
  missingFaceTracks,
} from '../src/entity-query';

const ID = '6528dde58f9cd95a98cbd0a1';
const match = (videoId: string, start: number, end: number, score = 0.8): SegmentMatch => ({
  videoId,
  start,
  end,
  option: 'visual',
  score,
  text: '',
  thumbnailKey: '',
});
const spans = (matches: SegmentMatch[]) => matches.map((m) => [m.videoId, m.start, m.end]);

describe('checkMentions', () => {
  it.each<[string, string[], string | undefined]>([
    ['one id', [ID], undefined],
    ['no ids', [], undefined],
    ['as many as allowed', Array.from({ length: MAX_ENTITY_MENTIONS }, (_, i) => `${ID}${i}`), undefined],
    ['too many', Array.from({ length: MAX_ENTITY_MENTIONS + 1 }, (_, i) => `${ID}${i}`), 'parameter_invalid'],
    ['an id that cannot exist', ['../etc'], 'resource_not_exist'],
    ['an id too long', ['a'.repeat(65)], 'resource_not_exist'],
  ])('%s', (_name, ids, code) => {
    expect(checkMentions(ids)?.code).toBe(code);
  });
});

describe('facelessEntity', () => {
  it.each<[string, number, string[], string[], string | undefined]>([
    ['a face', 1, [], [], undefined],
    ['faces and a logo', 2, ['asset-logo'], [], undefined],
    ['a face, another image still processed', 1, [], ['asset-new'], undefined],
    ['only images without a face', 0, ['asset-logo', 'asset-car'], [], 'asset-logo, asset-car'],
    ['images still being processed', 0, [], ['asset-new'], 'still being processed (asset-new)'],
  ])('%s', (_name, faces, without, notReady, named) => {
    const error = facelessEntity({
      entityId: ID,
      faces: Array.from({ length: faces }, () => new Float32Array(128)),
      assetsWithoutFace: without,
      assetsNotReady: notReady,
      images: [],
    });
    if (named === undefined) expect(error).toBeUndefined();
    else {
      expect(error?.code).toBe('parameter_invalid');
      expect(error?.message).toContain(named);
      expect(error?.message).toContain(ID);
    }
  });
});

describe('missingFaceTracks', () => {
  it.each<[string, string[], string[], string | undefined]>([
    ['every video tracked', [], [], undefined],
    ['two videos without', ['v1', 'v2'], ['v1, v2', '2 video(s)'], undefined],
    ['more than ten', Array.from({ length: 12 }, (_, i) => `v${i}`), ['v9 and 2 more'], 'v10'],
  ])('%s', (_name, missing, contains, notContains) => {
    const error = missingFaceTracks(missing);
    if (contains.length === 0) return expect(error).toBeUndefined();
    expect(error?.code).toBe('parameter_invalid');
    for (const text of contains) expect(error!.message).toContain(text);
    if (notContains) expect(error!.message).not.toContain(notContains);
  });
});

describe('entityMatches', () => {
  it('answers the matching tracks as visual matches per video, scored by the closest face', () => {
    const tracks = [
      { videoId: 'a', startSec: 0, endSec: 4, embedding: [0, 0] },
      { videoId: 'a', startSec: 8, endSec: 9, embedding: [0.9, 0] },
      { videoId: 'b', startSec: 2, endSec: 5, embedding: [0.2, 0] },
    ];
    const matches = entityMatches(
      { entityId: ID, faces: [Float32Array.of(0, 0)], assetsWithoutFace: [], assetsNotReady: [], images: [] },
      tracks,
    );
    expect(spans(matches)).toEqual([
      ['a', 0, 4],
      ['b', 2, 5],
    ]);
    // 0.2 from the reference: FACE_MATCH_SCORE_FLOOR and the rest by the share of the threshold left.
    expect(matches.map((m) => [m.option, m.score])).toEqual([
      ['visual', 1],
      ['visual', 0.5 + 0.5 * (1 - 0.2 / FACE_MATCH_THRESHOLD)],
    ]);
  });
});

describe('joinEntityMatches', () => {
  it.each<[string, SegmentMatch[][], SegmentMatch[] | undefined, (string | number)[][]]>([
    [
      'an entity alone: its moments',
      [[match('a', 0, 4), match('b', 1, 2)]],
      undefined,
      [
        ['a', 0, 4],
        ['b', 1, 2],
      ],
    ],
    ['no entity moments, no text: nothing', [[]], undefined, []],
    [
      'an entity and the text: where both hold, cut to the shared time',
      [[match('a', 0, 4), match('b', 1, 2)]],
      [match('a', 3, 6, 0.5), match('c', 0, 9, 0.5)],
      [
        ['a', 3, 4],
        ['a', 3, 4],
      ],
    ],
    ['text that matches elsewhere: nothing', [[match('a', 0, 4)]], [match('a', 5, 6)], []],
    [
      'two entities: where both are on screen',
      [[match('a', 0, 10)], [match('a', 6, 12), match('b', 0, 3)]],
      undefined,
      [
        ['a', 6, 10],
        ['a', 6, 10],
      ],
    ],
    ['two entities never together: nothing', [[match('a', 0, 5)], [match('a', 5, 9)]], undefined, []],
  ])('%s', (_name, perEntity, rest, expected) => {
    expect(spans(joinEntityMatches(perEntity, rest))).toEqual(expected);
  });
});

describe('entityMatchesIn: faces by face tracks, faceless images by the visual embedding', () => {
  const track = { videoId: 'a', startSec: 0, endSec: 4, embedding: Float32Array.of(0, 0) };
  const faceTracks = {
    indexedVideos: async () => ['a'],
    trackedVideos: async () => new Set(['a']),
    tracks: async () => [track],
    thumbnailsAt: async (_org: string, _index: string, moments: readonly unknown[]) => moments.map(() => 'face.jpg'),
  } as unknown as EntitySearchDeps['faceTracks'];
  const deps: EntitySearchDeps = { faceTracks, references: undefined };
  const scope = { orgId: 'o', indexId: 'i' };
  const image = Buffer.from('jpeg');
  const reference = (faces: number, images: number) => ({
    entityId: ID,
    faces: Array.from({ length: faces }, () => Float32Array.of(0, 0)),
    assetsWithoutFace: [],
    assetsNotReady: [],
    images: Array.from({ length: images }, () => image),
  });
  const unavailable = async () => {
    throw new ApiError('model_unavailable', 'no image model');
  };

  it.each<[string, ReturnType<typeof reference>, 'image model' | 'none', (string | number)[][] | string]>([
    ['a face only', reference(1, 0), 'image model', [['a', 0, 4]]],
    ['faceless images only: the image query', reference(0, 2), 'image model', [['b', 1, 2]]],
    [
      'a face and a faceless image: both',
      reference(1, 1),
      'image model',
      [
        ['a', 0, 4],
        ['b', 1, 2],
      ],
    ],
    ['a face, no image model: the face alone', reference(1, 1), 'none', [['a', 0, 4]]],
    ['faceless images, no image model: the error', reference(0, 1), 'none', 'model_unavailable'],
  ])('%s', async (_name, ref, model, expected) => {
    const asked: number[] = [];
    const imageMatches =
      model === 'none' ? unavailable : async (images: readonly Buffer[]) => (asked.push(images.length), [match('b', 1, 2, 0.6)]);
    const run = entityMatchesIn(deps, scope, [ref], imageMatches);
    if (typeof expected === 'string') return expect(await codeOf(run)).toBe(expected);
    const [matches] = await run;
    expect(spans(matches!)).toEqual(expected);
    // A face's moment shows the video's picture there (thumbnailsAt); an image query's match keeps its own.
    for (const m of matches!) expect(m.thumbnailKey).toBe(m.videoId === 'a' ? 'face.jpg' : match('b', 1, 2, 0.6).thumbnailKey);
    if (model === 'image model') expect(asked).toEqual(ref.images.length > 0 ? [ref.images.length] : []);
  });
});
