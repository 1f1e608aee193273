import {
  describeSpeechProviders,
  detectSpeechRegions,
  detectSpeechRegionsIn,
  memorySamples,
  parsePocketSphinxWords,
  shareOut,
  streamLayout,
  toSourceTime,
  wordsToLines,
  type ProviderStatus,
  type SpeechRegion,
} from '../src';

const RATE = 16_000;

/** Seeded noise (a stand-in for a voice's energy, not its sound): the VAD only sees levels. */
function noise(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 30 - 1;
  };
}

/** Audio of `seconds`, quiet (-70 dBFS hiss) except the loud stretches [start, end] at ~-15 dBFS. */
function audio(seconds: number, loud: [number, number][]): Float32Array {
  const random = noise(7);
  return Float32Array.from({ length: Math.round(seconds * RATE) }, (_, i) => {
    const t = i / RATE;
    const amplitude = loud.some(([a, b]) => t >= a && t < b) ? 0.3 : 0.0005;
    return amplitude * random();
  });
}

/** Region bounds are frame-aligned (30 ms): each within a frame of what is expected. */
function expectRegions(regions: SpeechRegion[], expected: number[][]): void {
  expect(regions).toHaveLength(expected.length);
  regions.forEach((r, i) => {
    expect(Math.abs(r.start - expected[i]![0]!)).toBeLessThanOrEqual(0.03);
    expect(Math.abs(r.end - expected[i]![1]!)).toBeLessThanOrEqual(0.03);
  });
}

describe('detectSpeechRegions', () => {
  it.each<[string, Float32Array, number[][]]>([
    ['no audio', new Float32Array(0), []],
    ['silence', new Float32Array(5 * RATE), []],
    ['faint hiss only', audio(5, []), []],
    ['one stretch, padded by 0.25 s', audio(5, [[1, 2]]), [[0.75, 2.25]]],
    [
      'a short pause inside speech is bridged',
      audio(5, [
        [1, 2],
        [2.3, 3],
      ]),
      [[0.75, 3.25]],
    ],
    [
      'a long pause splits',
      audio(6, [
        [1, 2],
        [3.5, 4.5],
      ]),
      [
        [0.75, 2.25],
        [3.25, 4.75],
      ],
    ],
    ['a click is not speech', audio(3, [[1, 1.06]]), []],
    [
      'speech at the very start and end is clamped to the audio',
      audio(3, [
        [0, 1],
        [2.5, 3],
      ]),
      [
        [0, 1.25],
        [2.25, 3],
      ],
    ],
    ['talk with no pause at all', audio(4, [[0, 4]]), [[0, 4]]],
  ])('%s', (_name, samples, expected) => {
    expectRegions(detectSpeechRegions(samples), expected);
  });

  it('cuts long speech into pieces no longer than the limit that cover it all, at a quiet moment', () => {
    // 50 s of speech with a dip (a pause between words, too short to split it) at 18 s.
    const samples = audio(52, [
      [1, 18],
      [18.2, 51],
    ]);
    const regions = detectSpeechRegions(samples);
    expect(regions.length).toBe(3);
    for (const r of regions) expect(r.end - r.start).toBeLessThanOrEqual(20.3);
    expect(regions[0]!.start).toBeCloseTo(0.75, 1);
    expect(regions[2]!.end).toBeCloseTo(51.25, 1);
    // The pieces touch: nothing between them is lost.
    expect(regions[1]!.start).toBe(regions[0]!.end);
    expect(regions[2]!.start).toBe(regions[1]!.end);
    // The first cut falls in the dip, not mid-word at the 20 s limit.
    expect(regions[0]!.end).toBeGreaterThan(18);
    expect(regions[0]!.end).toBeLessThan(18.25);
  });

  it.each<[string, Float32Array]>([
    ['no audio', new Float32Array(0)],
    ['a part frame only', audio(0.02, [[0, 0.02]])],
    [
      'speech across the 60 s windows, a part frame at the end',
      audio(150.017, [
        [1, 18],
        [59.5, 61],
        [119.99, 140],
        [149, 150.017],
      ]),
    ],
  ])('reads a track a window at a time and finds the same regions: %s', async (_name, samples) => {
    expect(await detectSpeechRegionsIn(memorySamples(samples))).toEqual(detectSpeechRegions(samples));
  });

  it('adapts to a loud floor: steady background noise is not all speech', () => {
    const random = noise(3);
    const samples = Float32Array.from({ length: 6 * RATE }, (_, i) => {
      const t = i / RATE;
      return (t >= 2 && t < 3 ? 0.4 : 0.02) * random();
    });
    expectRegions(detectSpeechRegions(samples), [[1.75, 3.25]]);
  });
});

describe('parsePocketSphinxWords', () => {
  it('keeps words with their times, drops fillers and hypothesis lines, names alternative pronunciations', () => {
    const output = [
      'the train crash',
      '<s> 0.000 0.610 0.993222',
      'the(2) 1.070 1.190 0.862244',
      '[NOISE] 1.200 1.300 0.99',
      'train 1.310 1.600 0.5',
      '<sil> 1.610 1.700 0.4',
      '++BREATH++ 1.710 1.800 0.4',
      'crash 1.810 2.200 0.77',
      '</s> 2.210 2.300 1.0',
      'INFO: something 1 2 3 4',
      '',
    ].join('\n');
    expect(parsePocketSphinxWords(output)).toEqual([
      { word: 'the', start: 1.07, end: 1.19, confidence: 0.862244 },
      { word: 'train', start: 1.31, end: 1.6, confidence: 0.5 },
      { word: 'crash', start: 1.81, end: 2.2, confidence: 0.77 },
    ]);
  });

  it('finds nothing in nothing', () => {
    expect(parsePocketSphinxWords('')).toEqual([]);
  });
});

describe('the stream of speech regions', () => {
  const regions = [
    { start: 2, end: 4 },
    { start: 10, end: 11 },
    { start: 30, end: 33 },
  ];
  const layout = streamLayout(regions, 0.5);

  it('lays regions end to end with a gap between them', () => {
    expect(layout.map((p) => p.streamStart)).toEqual([0, 2.5, 4]);
  });

  it.each([
    [0, 2],
    [1.5, 3.5],
    [2.4, 4], // in the gap after the first region: its end
    [2.5, 10],
    [3, 10.5],
    [4.5, 30.5],
    [99, 33],
  ])('stream %p s is audio %p s', (stream, source) => {
    expect(toSourceTime(layout, stream)).toBeCloseTo(source, 6);
  });

  it.each<[string, SpeechRegion[], number, number[]]>([
    ['no regions', [], 2, []],
    ['one region', [{ start: 0, end: 5 }], 2, [1]],
    [
      'equal halves',
      [
        { start: 0, end: 5 },
        { start: 6, end: 11 },
        { start: 12, end: 17 },
        { start: 18, end: 23 },
      ],
      2,
      [2, 2],
    ],
    [
      'by length, not count',
      [
        { start: 0, end: 10 },
        { start: 11, end: 12 },
        { start: 13, end: 14 },
        { start: 15, end: 16 },
      ],
      2,
      [1, 3],
    ],
    [
      'one process',
      [
        { start: 0, end: 1 },
        { start: 2, end: 3 },
      ],
      1,
      [2],
    ],
  ])('shares out %s', (_name, input, count, sizes) => {
    const groups = shareOut(input, count);
    expect(groups.map((g) => g.length)).toEqual(sizes);
    expect(groups.flat()).toEqual(input);
  });
});

describe('wordsToLines', () => {
  const w = (word: string, start: number, end = start + 0.25) => ({ word, start, end });

  it.each([
    ['nothing', [], []],
    ['one line', [w('toxic', 1), w('fumes', 1.5)], [{ start: 1, end: 1.75, text: 'toxic fumes' }]],
    [
      'a pause starts a line',
      [w('train', 1), w('crash', 1.5), w('vinyl', 3), w('chloride', 3.5)],
      [
        { start: 1, end: 1.75, text: 'train crash' },
        { start: 3, end: 3.75, text: 'vinyl chloride' },
      ],
    ],
    [
      'a long line is closed at six seconds',
      Array.from({ length: 10 }, (_, i) => w(`w${i}`, i * 0.75)),
      [
        { start: 0, end: 5.5, text: 'w0 w1 w2 w3 w4 w5 w6 w7' },
        { start: 6, end: 7, text: 'w8 w9' },
      ],
    ],
    ['words out of order are put in order', [w('b', 2), w('a', 1.5)], [{ start: 1.5, end: 2.25, text: 'a b' }]],
  ])('%s', (_name, words, lines) => {
    expect(wordsToLines(words)).toEqual(lines);
  });

  it('closes a line at fourteen words', () => {
    const lines = wordsToLines(Array.from({ length: 15 }, (_, i) => w(`w${i}`, i * 0.375)));
    expect(lines.map((l) => l.text.split(' ').length)).toEqual([14, 1]);
  });
});

describe('describeSpeechProviders', () => {
  const status = (provider: string, kind: ProviderStatus['kind'], state: ProviderStatus['state'], reason?: string): ProviderStatus => ({
    capability: 'speech_recognizer',
    provider,
    model: `${provider}-model`,
    kind,
    state,
    ...(reason ? { reason } : {}),
  });

  it.each<[string, ProviderStatus[], string | undefined, RegExp]>([
    [
      'Whisper first when present',
      [status('whisper', 'downloadable', 'available'), status('pocketsphinx', 'bundled', 'available')],
      'whisper',
      /^whisper \(whisper-model, downloadable\)$/,
    ],
    [
      'the bundled one without Whisper',
      [status('whisper', 'downloadable', 'unavailable', 'not in MODELS_DIR'), status('pocketsphinx', 'bundled', 'loaded')],
      'pocketsphinx',
      /^pocketsphinx \(pocketsphinx-model, bundled\)$/,
    ],
    [
      'none, with every reason',
      [
        status('whisper', 'downloadable', 'unavailable', 'not in MODELS_DIR'),
        status('pocketsphinx', 'bundled', 'unavailable', 'not installed'),
      ],
      undefined,
      /^none installed: videos without subtitles .* \(whisper: not in MODELS_DIR; pocketsphinx: not installed\)$/,
    ],
    ['none configured', [], undefined, /^none installed: videos without subtitles or a transcription file are indexed without speech$/],
  ])('%s', (_name, statuses, active, message) => {
    const described = describeSpeechProviders(statuses);
    expect(described.active).toBe(active);
    expect(described.message).toMatch(message);
  });
});
