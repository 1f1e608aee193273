import { entityMentions, entityMoments, faceMatchScore, videosWithoutFaceTracks } from '../src/entity-search';

const ID = '6528dde58f9cd95a98cbd0a1';
const OTHER = '6528dde58f9cd95a98cbd0a2';

describe('entityMentions', () => {
  it.each<[string, string[], string]>([
    [`<@${ID}> is walking`, [ID], 'is walking'],
    ['a dog on a beach', [], 'a dog on a beach'],
    [`<@${ID}>`, [ID], ''],
    [`<@${ID}> and <@${OTHER}> talk, <@${ID}> smiles`, [ID, OTHER], 'and talk, smiles'],
    ['<@ent_abc123> waves', ['ent_abc123'], 'waves'],
    ['<@ not a mention> <@>', [], '<@ not a mention> <@>'],
  ])('%j', (query, ids, text) => {
    expect(entityMentions(query)).toEqual({ entityIds: ids, text });
  });
});

describe('faceMatchScore', () => {
  it.each<[number, number]>([
    [0, 1],
    [0.2, 0.75],
    [0.39, 0.5125],
    [0.4, 0],
    [0.9, 0],
  ])('distance %d at threshold 0.4 scores %d', (distance, score) => {
    expect(faceMatchScore(distance, 0.4)).toBeCloseTo(score, 10);
  });
});

describe('entityMoments', () => {
  const track = (videoId: string, startSec: number, endSec: number, x: number) => ({ videoId, startSec, endSec, embedding: [x, 0] });

  it('keeps the tracks matching any reference face, scored by the closest, by video', () => {
    const moments = entityMoments(
      [
        [0, 0],
        [1, 0],
      ],
      [track('v1', 0, 4, 0.1), track('v1', 10, 12, 0.5), track('v2', 3, 5, 1.2), track('v3', 0, 9, 0.6)],
      0.4,
    );
    expect([...moments.keys()]).toEqual(['v1', 'v2']);
    expect(moments.get('v1')).toEqual([{ start: 0, end: 4, score: expect.closeTo(0.875, 10) }]);
    expect(moments.get('v2')).toEqual([{ start: 3, end: 5, score: expect.closeTo(0.75, 10) }]);
  });

  it('takes the best score where tracks of one video overlap', () => {
    const moments = entityMoments([[0, 0]], [track('v', 0, 4, 0.2), track('v', 2, 6, 0)], 0.4);
    expect(moments.get('v')).toEqual([
      { start: 0, end: 2, score: expect.closeTo(0.75, 10) },
      { start: 2, end: 6, score: 1 },
    ]);
  });

  it('finds nothing without reference faces', () => {
    expect(entityMoments([], [track('v', 0, 1, 0)]).size).toBe(0);
  });
});

it('videosWithoutFaceTracks names the videos indexed before face tracks, in order', () => {
  expect(videosWithoutFaceTracks(['a', 'b', 'c'], new Set(['b']))).toEqual(['a', 'c']);
});
