import { clipsOf, composedMatches, groupByVideo, instantScore, mergeMoments, momentsOf, type SegmentMatch } from '../src/clips';
import { LENGTH_BONUS_CAP, confidenceOf, coverageScore, fuseScores, momentScore } from '../src/scoring';

const match = (start: number, end: number, option: SegmentMatch['option'], score: number, coverage?: number[]): SegmentMatch => ({
  videoId: 'v',
  start,
  end,
  option,
  score,
  coverage,
  text: '',
  thumbnailKey: '',
});

describe('mergeMoments: moments, not slices', () => {
  it.each([
    [
      'three adjacent one-second segments become one moment spanning them',
      [
        { start: 0, end: 1, score: 0.5 },
        { start: 1, end: 2, score: 0.7 },
        { start: 2, end: 3, score: 0.6 },
      ],
      [{ start: 0, end: 3, score: momentScore(0.7, 3) }],
    ],
    [
      'two far-apart matches stay two',
      [
        { start: 0, end: 2, score: 0.8 },
        { start: 30, end: 32, score: 0.6 },
      ],
      [
        { start: 0, end: 2, score: momentScore(0.8, 2) },
        { start: 30, end: 32, score: momentScore(0.6, 2) },
      ],
    ],
    [
      'overlapping matches merge',
      [
        { start: 0, end: 4, score: 0.5 },
        { start: 2, end: 6, score: 0.5 },
      ],
      [{ start: 0, end: 6, score: momentScore(0.5, 6) }],
    ],
    [
      'a gap of at most a second is bridged, a longer one is not',
      [
        { start: 0, end: 2, score: 0.5 },
        { start: 3, end: 4, score: 0.5 },
        { start: 5.5, end: 6, score: 0.5 },
      ],
      [
        { start: 0, end: 4, score: momentScore(0.5, 4) },
        { start: 5.5, end: 6, score: momentScore(0.5, 0.5) },
      ],
    ],
    ['nothing is nothing', [], []],
  ])('%s', (_case, moments, expected) => {
    const merged = mergeMoments(moments);
    expect(merged.map((m) => [m.start, m.end])).toEqual(expected.map((m) => [m.start, m.end]));
    merged.forEach((m, i) => expect(m.score).toBeCloseTo(expected[i]!.score, 10));
  });

  it.each([
    [0.5, 1, 0.5],
    [0.5, 3, 0.51],
    [0.5, 11, 0.55],
    [0.5, 160, 0.5 + LENGTH_BONUS_CAP],
    [0.98, 60, 1],
  ])('a moment of best %d over %d s scores %d (the best, plus a capped length bonus)', (peak, seconds, expected) => {
    expect(momentScore(peak, seconds)).toBeCloseTo(expected, 10);
  });
});

describe('scores combine the evidence of each option', () => {
  it.each([
    // "a man talking": two word groups. A person seen covers "man" (1), speech heard covers "talking" (0.75).
    ['a person seen and speech heard', [match(0, 5, 'visual', 0.5, [1, 0]), match(0, 5, 'conversation', 0.375, [0, 0.75])], 0.875],
    ['a person seen only', [match(0, 5, 'visual', 0.5, [1, 0])], 0.5],
    ['speech heard only', [match(0, 5, 'conversation', 0.375, [0, 0.75])], 0.375],
    [
      'a word is counted once, however many options cover it',
      [match(0, 5, 'visual', 0.5, [1, 0]), match(0, 5, 'text_in_video', 0.5, [1, 0])],
      0.5,
    ],
    ['whole-query evidence of two options fuses by noisy-or', [match(0, 5, 'visual', 0.5), match(0, 5, 'conversation', 0.5)], 0.75],
    ['words and a vector fuse by noisy-or', [match(0, 5, 'visual', 0.4), match(0, 5, 'conversation', 0.5, [1, 0])], 0.7],
  ])('%s', (_case, covering, expected) => {
    expect(instantScore(covering)).toBeCloseTo(expected, 10);
  });

  it('scores each instant on its own: nothing of one call is left in the next (its buffers are reused)', () => {
    const long = [match(0, 5, 'conversation', 1, [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]), match(0, 5, 'visual', 0.9)];
    const short = [match(0, 5, 'conversation', 0.25, [0.5, 0])];
    const alone = instantScore(short);
    expect(instantScore(long)).toBe(1);
    expect(instantScore(short)).toBe(alone);
    expect(alone).toBeCloseTo(0.25, 10);
  });

  it.each([
    // fuseScores multiplies the misses in this order: the words, then each option as it first appears.
    ['the same option twice keeps its best', [match(0, 5, 'visual', 0.2), match(0, 5, 'visual', 0.6)], fuseScores([0, 0.6])],
    [
      'options in the order they first appear',
      [match(0, 5, 'logo', 0.3), match(0, 5, 'visual', 0.7), match(0, 5, 'logo', 0.1), match(0, 5, 'conversation', 0.5, [1])],
      fuseScores([1, 0.3, 0.7]),
    ],
    [
      'coverage of different lengths: the longest counts',
      [match(0, 5, 'conversation', 0, [1]), match(0, 5, 'logo', 0, [0, 0, 1])],
      fuseScores([coverageScore([1, 0, 1])]),
    ],
  ])('%s', (_case, covering, expected) => {
    expect(instantScore(covering)).toBe(expected);
  });

  it('ranks moments with a visible person and speech above moments with one or neither', () => {
    const clips = clipsOf(
      [
        match(0, 10, 'visual', 0.5, [1, 0]),
        match(0, 30, 'conversation', 0.375, [0, 0.75]),
        match(40, 50, 'visual', 0.5, [1, 0]),
        match(60, 70, 'visual', 0.2),
      ],
      { operator: 'or', options: ['visual', 'conversation'], threshold: 'none', adjustConfidenceLevel: 0.5 },
    );
    expect(clips.map((c) => [c.start, c.end])).toEqual([
      [0, 10],
      [40, 50],
      [10, 30],
      [60, 70],
    ]);
    expect(clips[0]!.modules.map((m) => m.option)).toEqual(['visual', 'conversation']);
  });

  it('ranks nothing high when a query matches everything weakly', () => {
    const weakEverywhere = Array.from({ length: 160 }, (_, i) => [
      match(i, i + 1, 'visual', 0.45),
      match(i, i + 1, 'conversation', 0.2, [0.4, 0]),
    ]).flat();
    const clips = clipsOf(weakEverywhere, {
      operator: 'or',
      options: ['visual', 'conversation'],
      threshold: 'none',
      adjustConfidenceLevel: 0.5,
    });
    expect(clips).toHaveLength(1);
    expect(clips[0]).toMatchObject({ start: 0, end: 160 });
    expect(clips.some((c) => c.confidence === 'high')).toBe(false);
  });

  it('a long query whose words match different moments finds each of them as a partial answer', () => {
    const five = (g: number, weight = 1) => Array.from({ length: 5 }, (_, i) => (i === g ? weight : 0));
    expect(coverageScore(five(3))).toBeCloseTo(0.35);
    const clips = clipsOf(
      [
        match(0, 5, 'conversation', 0, [1, 1, 1, 0, 0]),
        match(18, 23, 'conversation', 0, five(3)),
        match(6, 11, 'conversation', 0, five(4, 0.6)),
      ],
      { operator: 'or', options: ['conversation'], threshold: 'low', adjustConfidenceLevel: 0.5 },
    );
    expect(clips.map((c) => [c.start, c.confidence])).toEqual([
      [0, 'medium'],
      [18, 'low'],
    ]);
  });
});

describe('momentsOf', () => {
  it('keeps strong moments apart when only weak matches lie between them, and shows the weak stretch on its own', () => {
    const moments = momentsOf([match(0, 2, 'visual', 0.9), match(2, 20, 'visual', 0.31), match(20, 22, 'visual', 0.9)]);
    expect(moments.map((m) => [m.start, m.end])).toEqual([
      [0, 2],
      [2, 20],
      [20, 22],
    ]);
    expect(confidenceOf(moments[1]!.score)).toBe('low');
  });
});

describe('one result set, two views', () => {
  it('groups exactly the clips of the ungrouped search', () => {
    const matches = [
      { ...match(0, 1, 'visual', 0.9), videoId: 'a' },
      { ...match(1, 2, 'visual', 0.8), videoId: 'a' },
      { ...match(30, 31, 'visual', 0.4), videoId: 'a' },
      { ...match(0, 4, 'conversation', 0.7), videoId: 'b' },
    ];
    const clips = clipsOf(matches, { operator: 'or', options: ['visual', 'conversation'], threshold: 'low', adjustConfidenceLevel: 0.5 });
    const grouped = groupByVideo(clips, 'score').flatMap((g) => g.clips);
    expect([...grouped].sort((x, y) => x.rank - y.rank)).toEqual(clips);
  });
});

describe('composedMatches: text and image together ask for moments that answer both', () => {
  const on = (videoId: string, m: SegmentMatch): SegmentMatch => ({ ...m, videoId });
  const span = (m: SegmentMatch) => [m.videoId, m.option, m.start, m.end];
  it.each([
    [
      'each side is cut to the time both match',
      [match(0, 60, 'conversation', 0.5)],
      [match(11, 24, 'visual', 0.7), match(46, 60, 'visual', 0.4)],
      [
        ['v', 'conversation', 11, 24],
        ['v', 'conversation', 46, 60],
        ['v', 'visual', 11, 24],
        ['v', 'visual', 46, 60],
      ],
    ],
    ['no shared time: nothing', [match(0, 10, 'conversation', 0.9)], [match(10, 20, 'visual', 0.9)], []],
    ['the same time in another video does not count', [match(0, 10, 'conversation', 0.9)], [on('w', match(0, 10, 'visual', 0.9))], []],
    ['a side with no match leaves nothing', [match(0, 10, 'conversation', 0.9)], [], []],
    [
      'overlapping matches of one side both stay, each cut',
      [match(0, 6, 'conversation', 0.5), match(4, 12, 'text_in_video', 0.6)],
      [match(5, 8, 'visual', 0.7)],
      [
        ['v', 'conversation', 5, 6],
        ['v', 'text_in_video', 5, 8],
        ['v', 'visual', 5, 8],
      ],
    ],
  ])('%s', (_title, byText, byImage, expected) => {
    expect(composedMatches(byText, byImage).map(span)).toEqual(expected);
  });

  it('ranks first the moment where more of the text holds beside the image', () => {
    // "a man talking": speech covers "talking" throughout, a person seen covers "man" from 46 s;
    // the image matches 11–24 and 46–60 equally.
    const byText = [match(0, 60, 'conversation', 0.375, [0, 1]), match(46, 60, 'visual', 0.5, [1, 0])];
    const byImage = [match(11, 24, 'visual', 0.7), match(46, 60, 'visual', 0.7)];
    const clips = clipsOf(composedMatches(byText, byImage), {
      operator: 'or',
      options: ['visual', 'conversation'],
      threshold: 'none',
      adjustConfidenceLevel: 0.5,
    });
    expect(clips.map((c) => [c.start, c.end])).toEqual([
      [46, 60],
      [11, 24],
    ]);
  });
});
