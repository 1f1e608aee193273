import { chooseTrack } from '../src/worker/extract/conversation';
import { spread } from '../src/worker/extract/frames';
import { logosOf, progressPercent, scenesOf, spansOf, textInVideo, textSpans, type FrameObservation } from '../src/worker/extract/timeline';
import { planExtractors } from '../src/worker/plan';

const frame = (timeSec: number, lines: string[], labels: string[] = []): FrameObservation => ({
  timeSec,
  lines: lines.map((text) => ({ text, confidence: 0.9 })),
  labels,
});

describe('spansOf', () => {
  it.each([
    ['one value over consecutive frames', [['A'], ['A'], ['A']], [{ start: 0, end: 3, value: 'A' }]],
    [
      'a gap splits a value',
      [['A'], [], ['A']],
      [
        { start: 0, end: 1, value: 'A' },
        { start: 2, end: 3, value: 'A' },
      ],
    ],
    [
      'values overlap independently',
      [['A'], ['A', 'B'], ['B']],
      [
        { start: 0, end: 2, value: 'A' },
        { start: 1, end: 3, value: 'B' },
      ],
    ],
    ['blank text is dropped', [['  '], ['A ']], [{ start: 1, end: 2, value: 'A' }]],
    ['the last span is clipped to the duration', [[], [], ['A']], [{ start: 2, end: 2.5, value: 'A' }]],
  ])('%s', (_name, frames, expected) => {
    const duration = expected.some((e) => e.end === 2.5) ? 2.5 : 3;
    const spans = spansOf(
      frames.map((values, i) => ({ timeSec: i, values: values.map((value) => ({ value, confidence: 0.5 })) })),
      1,
      duration,
    );
    expect(spans.map(({ start, end, value }) => ({ start, end, value }))).toEqual(expected);
  });

  it('keeps the best confidence of a span', () => {
    const spans = spansOf(
      [
        { timeSec: 0, values: [{ value: 'A', confidence: 0.2 }] },
        { timeSec: 0.5, values: [{ value: 'A', confidence: 0.7 }] },
      ],
      0.5,
      10,
    );
    expect(spans).toEqual([{ start: 0, end: 1, value: 'A', confidence: 0.7 }]);
  });
});

describe('textSpans', () => {
  // Each row: the lines read on frames 0, 1, 2 … (one a second), then the spans expected.
  it.each<[string, string[][], { start: number; end: number; value: string }[]]>([
    [
      'a title card read the same on every frame is one span',
      [['THE LAST HARVEST'], ['THE LAST HARVEST'], ['THE LAST HARVEST']],
      [{ start: 0, end: 3, value: 'THE LAST HARVEST' }],
    ],
    [
      'readings that differ by a letter are one span, named by the most frequent',
      [['THE LAST HARVEST'], ['THE LAST HARVES'], ['THE LAST HARVEST'], ['the last harvest.']],
      [{ start: 0, end: 4, value: 'THE LAST HARVEST' }],
    ],
    [
      'readings that differ in their spaces are one span',
      [['Hundreds of angry residents'], ['Hundredsof angryresidents'], ['Hundreds fangry residents']],
      [{ start: 0, end: 3, value: 'Hundreds of angry residents' }],
    ],
    [
      'one frame where OCR missed it does not cut the span',
      [['Chapter One'], [], ['Chapter One']],
      [{ start: 0, end: 3, value: 'Chapter One' }],
    ],
    [
      'two frames without it end the span',
      [['Chapter One'], [], [], ['Chapter One']],
      [
        { start: 0, end: 1, value: 'Chapter One' },
        { start: 3, end: 4, value: 'Chapter One' },
      ],
    ],
    [
      'different texts are different spans, even when overlapping',
      [['Chapter One'], ['Chapter One', 'A long way home'], ['Chapter Two']],
      [
        { start: 0, end: 2, value: 'Chapter One' },
        { start: 1, end: 2, value: 'A long way home' },
        { start: 2, end: 3, value: 'Chapter Two' },
      ],
    ],
    ['the same text twice on a frame is one reading', [['SALE', 'SALE'], ['SALE']], [{ start: 0, end: 2, value: 'SALE' }]],
    ['blank and punctuation-only lines are dropped', [['  ', '...'], ['A ']], [{ start: 1, end: 2, value: 'A' }]],
  ])('%s', (_name, lines, expected) => {
    const frames = lines.map((values, i) => ({ timeSec: i, values: values.map((value) => ({ value, confidence: 0.9 })) }));
    expect(textSpans(frames, 1, lines.length).map(({ start, end, value }) => ({ start, end, value }))).toEqual(expected);
  });

  it('keeps the best confidence seen and clips the last span to the duration', () => {
    const frames = [
      { timeSec: 0, values: [{ value: 'TITLE', confidence: 0.6 }] },
      { timeSec: 1, values: [{ value: 'TITLE', confidence: 0.95 }] },
    ];
    expect(textSpans(frames, 1, 1.5)).toEqual([{ start: 0, end: 1.5, value: 'TITLE', confidence: 0.95 }]);
  });
});

describe('textInVideo and logosOf', () => {
  const frames = [
    frame(0, ['SALE AT NIKE STORE']),
    frame(1, ['SALE AT NIKE STORE']),
    frame(2, ['spike', 'Coca Cola']),
    frame(3, ['NIKEA']),
  ];

  it('gives one span per line of text', () => {
    expect(textInVideo(frames, 1, 4).map((v) => [v.value, v.start, v.end])).toEqual([
      ['SALE AT NIKE STORE', 0, 2],
      ['Coca Cola', 2, 3],
      ['spike', 2, 3],
      ['NIKEA', 3, 4],
    ]);
  });

  it('finds brand wordmarks as whole words only', () => {
    const brands = [
      { name: 'Nike', names: ['nike'] },
      { name: 'Coca-Cola', names: ['coca-cola', 'coca cola'] },
    ];
    expect(logosOf(frames, brands, 1, 4).map((v) => [v.value, v.start, v.end])).toEqual([
      ['Nike', 0, 2],
      ['Coca-Cola', 2, 3],
    ]);
  });
});

describe('scenesOf', () => {
  it('starts a scene at each changed frame and collects its labels', () => {
    const observations = [
      { ...frame(0, [], ['person']), changed: true },
      { ...frame(1, [], ['person', 'cup']), changed: false },
      { ...frame(2, [], ['cat']), changed: true },
    ];
    expect(scenesOf(observations, 1, 2.4)).toEqual([
      { start: 0, end: 2, labels: ['person', 'cup'], tentativeLabels: [], keyframeSec: 0 },
      { start: 2, end: 2.4, labels: ['cat'], tentativeLabels: [], keyframeSec: 2 },
    ]);
  });

  it.each([
    ['seen only tentatively: tentative', [['cat'], ['cat']], ['cat']],
    ['seen clearly on one frame of the scene: clear', [['cat'], []], []],
    ['seen clearly first, then tentatively: clear', [[], ['cat']], []],
    ['tentative on one frame, absent from the next: tentative', [['cat'], null], ['cat']],
  ])('a label %s', (_name, tentativeByFrame, expected) => {
    const observations = tentativeByFrame.map((tentative, i) => ({
      ...frame(i, [], tentative === null ? [] : ['cat']),
      tentativeLabels: tentative ?? [],
      changed: i === 0,
    }));
    expect(scenesOf(observations, 1, 2)).toEqual([{ start: 0, end: 2, labels: ['cat'], tentativeLabels: expected, keyframeSec: 0 }]);
  });
});

describe('progressPercent', () => {
  it.each([
    [0, 10, 0, 100, 0],
    [5, 10, 0, 100, 50],
    [20, 10, 0, 85, 85],
    [3, 0, 10, 90, 10],
  ])('at %s s of %s s in [%s, %s] is %s', (position, duration, from, to, expected) => {
    expect(progressPercent(position, duration, from, to)).toBe(expected);
  });
});

describe('planExtractors', () => {
  it.each([
    [
      ['visual', 'conversation', 'text_in_video', 'logo'],
      ['thumbnail'],
      { visual: true, conversation: true, textInVideo: true, logo: true, thumbnails: true, requiresAudio: false },
    ],
    [['conversation'], [], { visual: false, conversation: true, textInVideo: false, logo: false, thumbnails: false, requiresAudio: true }],
    [['visual'], [], { visual: true, conversation: false, textInVideo: false, logo: false, thumbnails: false, requiresAudio: false }],
  ])('options %j, addons %j', (options, addons, plan) => {
    expect(planExtractors({ models: [{ name: 'marengo2.6', options }], addons })).toEqual(plan);
  });
});

describe('chooseTrack', () => {
  const track = (language: string | undefined, cues = 1) => ({
    track: { index: 0, streamIndex: 2, codec: 'mov_text', isText: true, ...(language ? { language } : {}) },
    cues: Array.from({ length: cues }, (_, i) => ({ startSec: i, endSec: i + 1, text: `${language ?? 'und'} ${i}` })),
  });
  it('prefers the user’s language, else the first track with cues', () => {
    expect(chooseTrack([track('eng'), track('fra')] as never, 'fr')?.track.language).toBe('fra');
    expect(chooseTrack([track('eng', 0), track('fra')] as never, null)?.track.language).toBe('fra');
    expect(chooseTrack([track('eng'), track('fra')] as never, 'de')?.track.language).toBe('eng');
    expect(chooseTrack([], 'en')).toBeUndefined();
  });
});

describe('spread', () => {
  it.each([
    [[1, 2, 3], 5, [1, 2, 3]],
    [[1, 2, 3, 4, 5, 6], 3, [1, 3, 5]],
    [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 4, [1, 3, 6, 8]],
  ])('%j to at most %d: %j', (items, max, expected) => {
    expect(spread(items, max)).toEqual(expected);
  });
});
