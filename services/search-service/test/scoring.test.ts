import { clipsOf, groupByVideo, type SegmentMatch } from '../src/clips';
import { ALTERNATIVES_PER_ARM, keepAlternatives, lexicalPlan, orArms, scoreHit, tsQueryText, type TermGroup } from '../src/lexical';
import { pageToken, parsePageToken, slicePage } from '@vus/core';
import { confidenceOf, displayScore, fuseScores, lexicalScore, meetsThreshold, vectorScore } from '../src/scoring';

describe('lexicalScore', () => {
  const groups = [{ alternatives: [{ weight: 1 }, { weight: 0.85 }] }, { alternatives: [{ weight: 1 }] }];
  it.each([
    ['every group matched directly', { '0.0': 'direct', '1.0': 'direct' }, 1],
    ['one of two groups', { '0.0': 'direct' }, 0.5],
    ['a synonym counts its weight', { '0.1': 'direct', '1.0': 'direct' }, (0.85 + 1) / 2],
    ['the best alternative of a group wins', { '0.0': 'direct', '0.1': 'direct', '1.0': 'direct' }, 1],
    ['an expanded match counts three quarters', { '0.0': 'expanded', '1.0': 'direct' }, (0.75 + 1) / 2],
    ['nothing', {}, 0],
  ] as const)('%s', (_case, matched, expected) => {
    const kinds = matched as Record<string, 'direct' | 'expanded'>;
    expect(lexicalScore(groups, (g, a) => kinds[`${g}.${a}`])).toBeCloseTo(expected, 10);
  });
});

describe('scores to confidence', () => {
  it.each([
    [1, 0.5, 'high'],
    [0.8, 0.5, 'high'],
    [0.79, 0.5, 'medium'],
    [0.6, 0.5, 'medium'],
    [0.3, 0.5, 'low'],
    [0.29, 0.5, 'none'],
    [0.8, 1, 'medium'],
    [0.65, 0, 'high'],
  ] as const)('%d at adjust %d is %s', (score, adjust, expected) => {
    expect(confidenceOf(score, adjust)).toBe(expected);
  });
  it('is monotone in the score', () => {
    const rank = { none: 0, low: 1, medium: 2, high: 3 };
    let last = -1;
    for (let score = 0; score <= 1; score += 0.01) {
      const now = rank[confidenceOf(score)];
      expect(now).toBeGreaterThanOrEqual(last);
      last = now;
    }
  });
  it.each([
    ['low', 'medium', false],
    ['high', 'medium', true],
    ['medium', 'medium', true],
    ['none', 'none', true],
    ['low', 'none', true],
  ] as const)('%s meets threshold %s: %s', (confidence, threshold, expected) => {
    expect(meetsThreshold(confidence, threshold)).toBe(expected);
  });
  it('fuses by noisy-or, rescales vectors and shows 0–100', () => {
    expect(fuseScores([0.5, 0.5])).toBeCloseTo(0.75);
    expect(fuseScores([])).toBe(0);
    expect(vectorScore(0.15)).toBe(0);
    expect(vectorScore(0.33)).toBe(1);
    expect(displayScore(0.12345)).toBe(12.35);
  });
});

describe('tsquery texts', () => {
  it.each([
    ['traffic light', undefined, 'traffic <-> light'],
    ['car', 'A', 'car:A'],
    ["O'Brien & co | !x", undefined, 'o <-> brien <-> co <-> x'],
    ['   ', undefined, undefined],
  ] as const)('%j → %j', (phrase, weight, expected) => {
    expect(tsQueryText(phrase, weight)).toBe(expected);
  });
  it('plans groups: every alternative, all groups ANDed without their hypernyms, and hypernyms only against own words', () => {
    const groups: TermGroup[] = [
      {
        term: 'car',
        alternatives: [
          { text: 'car', weight: 1 },
          { text: 'motor vehicle', weight: 0.6, kind: 'hypernym' },
        ],
      },
      { term: 'red', alternatives: [{ text: 'red', weight: 1 }] },
    ];
    const plan = lexicalPlan(groups)!;
    expect(plan.alternatives).toEqual([
      { query: 'car', ownOnly: false },
      { query: 'motor <-> vehicle', ownOnly: true },
      { query: 'red', ownOnly: false },
    ]);
    expect(plan.broadArms).toEqual(['(car) | (red)']);
    expect(plan.ownArms).toEqual(['(motor <-> vehicle)']);
    expect(plan.rankQuery).toBe('(car) | (motor:A <-> vehicle:A) | (red)');
    expect(plan.everyQuery).toBe('((car)) & ((red))');
    // A group of hypernyms alone still takes part.
    expect(lexicalPlan([{ term: 'x', alternatives: [{ text: 'vehicle', weight: 0.6, kind: 'hypernym' }] }])).toMatchObject({
      broadArms: [],
      ownArms: ['(vehicle)'],
      everyQuery: '((vehicle:A))',
    });
    expect(scoreHit(groups, plan, '-de')).toBeCloseTo((0.6 + 0.75) / 2);
    expect(lexicalPlan([{ term: '!!', alternatives: [{ text: '!!', weight: 1 }] }])).toBeUndefined();
  });
});

describe('orArms', () => {
  const words = (count: number) => Array.from({ length: count }, (_, i) => `w${i}`);
  const ored = (queries: readonly string[]) => queries.map((q) => `(${q})`).join(' | ');
  const full = ored(words(ALTERNATIVES_PER_ARM));
  it.each([
    [0, []],
    [1, ['(w0)']],
    [ALTERNATIVES_PER_ARM, [full]],
    [ALTERNATIVES_PER_ARM + 1, [full, `(w${ALTERNATIVES_PER_ARM})`]],
  ])('%i alternatives: %j', (count, arms) => {
    expect(orArms(words(count))).toEqual(arms);
  });

  it('keeps every alternative once, in order, phrases whole', () => {
    const queries = [...words(13), 'motor <-> vehicle'];
    const arms = orArms(queries);
    expect(arms).toHaveLength(Math.ceil(queries.length / ALTERNATIVES_PER_ARM));
    expect(arms.join(' | ')).toBe(ored(queries));
  });
});

describe('clips', () => {
  const match = (videoId: string, start: number, end: number, option: SegmentMatch['option'], score: number, text = ''): SegmentMatch => ({
    videoId,
    start,
    end,
    option,
    score,
    text,
    thumbnailKey: '',
  });
  const rules = { operator: 'or', options: ['visual', 'text_in_video'], threshold: 'none', adjustConfidenceLevel: 0.5 } as const;

  it('merges overlapping matches of one video into a clip with a module per option, ranked by fused score (plus the length bonus)', () => {
    const clips = clipsOf(
      [match('a', 0, 4, 'visual', 0.5), match('a', 2, 6, 'text_in_video', 0.5, 'STOP'), match('b', 0, 1, 'visual', 0.9)],
      rules,
    );
    expect(clips.map((c) => [c.videoId, c.start, c.end, c.rank])).toEqual([
      ['b', 0, 1, 1],
      ['a', 0, 6, 2],
    ]);
    expect(clips[1]!.modules.map((m) => m.option)).toEqual(['visual', 'text_in_video']);
    expect(clips[1]!.score).toBeCloseTo(0.75 + 0.025);
    expect(clips[1]!.matches).toEqual([
      { option: 'visual', text: '' },
      { option: 'text_in_video', text: 'STOP' },
    ]);
  });
  it('merges touching matches into one clip, and with operator and drops clips missing an option', () => {
    expect(clipsOf([match('a', 0, 4, 'visual', 1), match('a', 4, 8, 'visual', 1)], rules).map((c) => [c.start, c.end])).toEqual([[0, 8]]);
    expect(clipsOf([match('a', 0, 4, 'visual', 1), match('a', 10, 12, 'text_in_video', 1)], { ...rules, operator: 'and' })).toEqual([]);
  });
  it('applies the threshold to the fused score', () => {
    expect(clipsOf([match('a', 0, 4, 'visual', 0.5)], { ...rules, threshold: 'medium' })).toEqual([]);
  });
  it('groups by video, by best clip or by clip count', () => {
    const clips = clipsOf([match('a', 0, 1, 'visual', 1), match('b', 0, 1, 'visual', 0.9), match('b', 5, 6, 'visual', 0.8)], rules);
    expect(groupByVideo(clips, 'score').map((g) => g.videoId)).toEqual(['a', 'b']);
    expect(groupByVideo(clips, 'clip_count').map((g) => [g.videoId, g.clips.length])).toEqual([
      ['b', 2],
      ['a', 1],
    ]);
  });
});

describe('pages', () => {
  const id = '6785b870-66fb-4c0f-a80c-cbf307d2d0f9';
  it.each([
    [pageToken(id, 2), { setId: id, page: 2 }],
    [`${id.toUpperCase()}-3`, { setId: id, page: 3 }],
    [`${id}-0`, undefined],
    [`${id}`, undefined],
    ['../etc/passwd', undefined],
  ])('%s', (token, expected) => {
    expect(parsePageToken(token)).toEqual(expected);
  });
  it('slices pages with their neighbours’ tokens, and an empty page past the end', () => {
    const items = [1, 2, 3, 4, 5];
    expect(slicePage(id, items, 1, 2)).toEqual({ items: [1, 2], nextPageToken: `${id}-2`, prevPageToken: '' });
    expect(slicePage(id, items, 3, 2)).toEqual({ items: [5], nextPageToken: '', prevPageToken: `${id}-2` });
    expect(slicePage(id, items, 4, 2).items).toEqual([]);
  });
});

describe('keepAlternatives', () => {
  const groups: TermGroup[] = [
    {
      term: 'car',
      alternatives: [
        { text: 'car', weight: 1, kind: 'exact' },
        { text: 'automobile', weight: 0.85, kind: 'synonym' },
      ],
    },
    { term: 'red', alternatives: [{ text: 'red', weight: 1, kind: 'exact' }] },
  ];
  it('answers the same array when it keeps every alternative (callers share a plan by identity)', () => {
    expect(keepAlternatives(groups, (a) => a.kind !== 'related')).toBe(groups);
  });
  it.each([
    ['the query words only', (a: { kind?: string }) => a.kind === 'exact', [['car'], ['red']]],
    ['nothing', () => false, [[], []]],
  ])('keeps %s, group by group', (_name, keep, expected) => {
    const kept = keepAlternatives(groups, keep);
    expect(kept).not.toBe(groups);
    expect(kept.map((g) => g.alternatives.map((a) => a.text))).toEqual(expected);
    expect(kept.map((g) => g.term)).toEqual(['car', 'red']);
  });
});
