import { classifyVideos, classScore, durationRatio, type PromptClip } from '../src/scoring';

const clip = (videoId: string, prompt: string, start: number, end: number, score: number): PromptClip => ({
  videoId,
  indexId: 'idx',
  prompt,
  start,
  end,
  score,
  option: 'visual',
  thumbnailKey: '',
});

describe('classScore', () => {
  it.each([
    ['one prompt: its best clip', [clip('v', 'cat', 0, 1, 60), clip('v', 'cat', 2, 3, 40)], 60],
    ['two prompts agreeing raise it', [clip('v', 'cat', 0, 1, 60), clip('v', 'kitten', 0, 1, 50)], 80],
    ['a certain prompt is certain', [clip('v', 'cat', 0, 1, 100), clip('v', 'kitten', 0, 1, 10)], 100],
    ['no clip: zero', [], 0],
    ['scores outside 0..100 are clamped', [clip('v', 'cat', 0, 1, 140)], 100],
  ] as const)('%s', (_case, clips, expected) => {
    expect(classScore(clips)).toBeCloseTo(expected, 10);
  });
});

describe('durationRatio', () => {
  it.each([
    ['one clip', [clip('v', 'a', 0, 5, 50)], 20, 0.25],
    ['overlaps count once', [clip('v', 'a', 0, 5, 50), clip('v', 'b', 3, 8, 50)], 20, 0.4],
    ['disjoint clips add up', [clip('v', 'a', 0, 5, 50), clip('v', 'a', 10, 15, 50)], 20, 0.5],
    ['never above 1', [clip('v', 'a', 0, 30, 50)], 20, 1],
    ['unknown duration: 0', [clip('v', 'a', 0, 5, 50)], 0, 0],
  ] as const)('%s', (_case, clips, duration, expected) => {
    expect(durationRatio(clips, duration)).toBeCloseTo(expected, 10);
  });
});

describe('classifyVideos', () => {
  const videos = [
    { id: 'v-cat', duration: 20 },
    { id: 'v-phone', duration: 10 },
    { id: 'v-none', duration: 10 },
  ];
  const classes = [
    { name: 'Animals', clips: [clip('v-cat', 'cat', 0, 10, 80), clip('v-cat', 'pet', 5, 12, 50), clip('v-phone', 'cat', 0, 1, 20)] },
    { name: 'Devices', clips: [clip('v-phone', 'cell phone', 2, 7, 90), clip('v-cat', 'cell phone', 18, 19, 30)] },
  ];

  it('scores each class of each video, best class first, best video first; videos without classes are left out', () => {
    const result = classifyVideos(videos, classes, {});
    expect(result.map((v) => [v.videoId, v.classes.map((c) => [c.name, c.score, c.durationRatio])])).toEqual([
      [
        'v-cat',
        [
          ['Animals', 90, 0.6],
          ['Devices', 30, 0.05],
        ],
      ],
      [
        'v-phone',
        [
          ['Devices', 90, 0.5],
          ['Animals', 20, 0.1],
        ],
      ],
    ]);
  });

  it('gives detailed scores: best and mean clip, and the score relative to the best class', () => {
    const [cat] = classifyVideos(videos, classes, {});
    expect(cat!.classes.map((c) => c.detailedScores)).toEqual([
      { maxScore: 80, avgScore: 65, normalizedScore: 100 },
      { maxScore: 30, avgScore: 30, normalizedScore: 33.33 },
    ]);
  });

  it('lists clips in time order with the prompt that matched', () => {
    const [cat] = classifyVideos(videos, classes, {});
    expect(cat!.classes[0]!.clips.map((c) => [c.prompt, c.start, c.end])).toEqual([
      ['cat', 0, 10],
      ['pet', 5, 12],
    ]);
  });

  it.each([
    [
      'min_clip_score drops weak clips before scoring',
      { minClipScore: 60 },
      [
        ['v-phone', ['Devices']],
        ['v-cat', ['Animals']],
      ],
    ],
    [
      'min_video_score drops weak classes',
      { minVideoScore: 85 },
      [
        ['v-cat', ['Animals']],
        ['v-phone', ['Devices']],
      ],
    ],
    [
      'min_duration_ratio drops brief classes',
      { minDurationRatio: 0.5 },
      [
        ['v-cat', ['Animals']],
        ['v-phone', ['Devices']],
      ],
    ],
    ['a video left without classes is left out', { minVideoScore: 95 }, []],
  ] as const)('%s', (_case, thresholds, expected) => {
    expect(classifyVideos(videos, classes, thresholds).map((v) => [v.videoId, v.classes.map((c) => c.name)])).toEqual(expected);
  });

  it('orders ties by video id and by the classes’ request order, whatever order the input has', () => {
    const tied = [
      { name: 'B', clips: [clip('v2', 'b', 0, 1, 50), clip('v1', 'b', 0, 1, 50)] },
      { name: 'A', clips: [clip('v1', 'a', 0, 1, 50), clip('v2', 'a', 0, 1, 50)] },
    ];
    const result = classifyVideos(
      [
        { id: 'v2', duration: 5 },
        { id: 'v1', duration: 5 },
      ],
      tied,
      {},
    );
    expect(result.map((v) => [v.videoId, v.classes.map((c) => c.name)])).toEqual([
      ['v1', ['B', 'A']],
      ['v2', ['B', 'A']],
    ]);
  });
});
