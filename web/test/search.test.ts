import { cosine, nearestSegments } from '../src/lib/nearest';
import { combinedQuery, DEFAULT_SETTINGS, resultGroups, searchFields } from '../src/lib/search';

describe('searchFields', () => {
  it('sends a text query with its options, operator only for several, conversation option only with conversation', () => {
    expect(searchFields('idx', DEFAULT_SETTINGS, { text: 'planet' })).toEqual([
      ['index_id', 'idx'],
      ['query_text', 'planet'],
      ['search_options', 'visual'],
      ['search_options', 'conversation'],
      ['search_options', 'text_in_video'],
      ['operator', 'or'],
      ['conversation_option', 'semantic'],
      ['threshold', 'low'],
      ['group_by', 'clip'],
      ['page_limit', '10'],
    ]);
    const visualImage = searchFields('idx', { ...DEFAULT_SETTINGS, options: ['visual'], groupBy: 'video' }, { image: true });
    expect(visualImage).toEqual([
      ['index_id', 'idx'],
      ['query_media_type', 'image'],
      ['search_options', 'visual'],
      ['threshold', 'low'],
      ['group_by', 'video'],
      ['page_limit', '10'],
    ]);
  });
});

describe('combinedQuery', () => {
  it.each([
    [
      'one row is a leaf',
      [{ text: ' cat ', option: 'visual' as const }],
      '$and' as const,
      undefined,
      { text: 'cat', search_options: ['visual'] },
    ],
    [
      'rows joined, blank ones dropped, with proximity',
      [
        { text: 'cat', option: 'visual' as const },
        { text: '', option: 'logo' as const },
        { text: 'meow', option: 'conversation' as const },
      ],
      '$then' as const,
      5,
      {
        $then: [
          { text: 'cat', search_options: ['visual'] },
          { text: 'meow', search_options: ['conversation'] },
        ],
        proximity: 5,
      },
    ],
    [
      'or without proximity',
      [
        { text: 'a', option: 'visual' as const },
        { text: 'b', option: 'visual' as const },
      ],
      '$or' as const,
      undefined,
      {
        $or: [
          { text: 'a', search_options: ['visual'] },
          { text: 'b', search_options: ['visual'] },
        ],
      },
    ],
  ])('%s', (_name, parts, combinator, proximity, expected) => {
    expect(combinedQuery(parts, combinator, proximity)).toEqual(expected);
  });

  it('refuses an empty query and a proximity that is not a positive number', () => {
    expect(() => combinedQuery([{ text: '  ', option: 'visual' }], '$and', undefined)).toThrow('at least one query text');
    const two = [
      { text: 'a', option: 'visual' as const },
      { text: 'b', option: 'visual' as const },
    ];
    expect(() => combinedQuery(two, '$and', 0)).toThrow('Proximity');
    expect(() => combinedQuery(two, '$and', Number.NaN)).toThrow('Proximity');
  });
});

describe('resultGroups', () => {
  const clip = {
    video_id: 'v1',
    start: 4,
    end: 8,
    score: 91.5,
    confidence: 'high',
    thumbnail_url: 'http://t/1.jpg',
    metadata: [{ type: 'text_in_video' }],
  };
  it('reads clips as one group without a video', () => {
    expect(resultGroups([clip])).toEqual([
      {
        videoId: undefined,
        clips: [
          { videoId: 'v1', start: 4, end: 8, score: 91.5, confidence: 'high', thumbnailUrl: 'http://t/1.jpg', kinds: ['text_in_video'] },
        ],
      },
    ]);
  });
  it('reads video groups, their clips taking the group id', () => {
    const groups = resultGroups([{ id: 'v2', clips: [{ start: 1, end: 2 }] }]);
    expect(groups).toEqual([
      {
        videoId: 'v2',
        clips: [{ videoId: 'v2', start: 1, end: 2, score: undefined, confidence: undefined, thumbnailUrl: undefined, kinds: [] }],
      },
    ]);
  });
  it('reads anything else as no result', () => {
    expect(resultGroups(undefined)).toEqual([]);
    expect(resultGroups([])).toEqual([]);
    expect(resultGroups(['x', null])).toEqual([]);
  });
});

describe('nearest moments', () => {
  it('ranks segments by cosine similarity', () => {
    expect(cosine([1, 0], [1, 0])).toBeCloseTo(1);
    expect(cosine([1, 0], [0, 1])).toBeCloseTo(0);
    expect(cosine([1, 0], [1, 0, 0])).toBe(0);
    expect(cosine([0, 0], [1, 0])).toBe(0);
    const segments = [
      { start: 0, end: 6, embedding: [0, 1] },
      { start: 6, end: 12, embedding: [1, 0.1] },
      { start: 12, end: 18, embedding: [-1, 0] },
    ];
    expect(nearestSegments([1, 0], segments, 2).map((s) => s.start)).toEqual([6, 0]);
  });
});
