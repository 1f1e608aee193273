/**
 * @jest-environment ./libs/models/test/helpers/onnx-environment.js
 */
import { openWordNet } from '@vus/wordnet';
import { photoPath } from '@vus/testing';
import { readFile } from 'node:fs/promises';
import {
  CONCEPT_WEIGHTS,
  ConceptEmbedder,
  ModelRegistry,
  cocoDetectorProvider,
  colourName,
  conceptKey,
  cosine,
  embedConcepts,
  fnv1a,
  inSpan,
  openWordVectors,
  paddleOcrProvider,
  unionOfFrames,
  type ConceptBag,
  type ConceptSpace,
  type SpeechSegment,
} from '../src';
import { renderTextFrame } from './helpers/frames';

const wordnet = openWordNet();
const vectors = openWordVectors();
afterAll(() => (wordnet.close(), vectors.close()));

describe('concept pieces', () => {
  it.each([
    [0, 0, 0, 'black'],
    [250, 250, 250, 'white'],
    [120, 130, 125, 'gray'],
    [210, 20, 40, 'red'],
    [20, 60, 220, 'blue'],
    [50, 170, 60, 'green'],
  ])('colourName(%d, %d, %d) is %s', (r, g, b, name) => expect(colourName(r, g, b)).toBe(name));

  it('hashes concept keys stably (the vectors stored today must match tomorrow)', () => {
    expect(fnv1a('')).toBe(0x811c9dc5);
    expect(fnv1a('a')).toBe(0xe40c292c);
    expect(fnv1a('synset:noun:2124272')).toBe(fnv1a('synset:noun:2124272'));
  });

  it('keeps a concept of every frame at its weight, one of a single frame at half and more', () => {
    const union = unionOfFrames([
      new Map([
        ['word:cat', 1],
        ['word:red', 0.2],
      ]),
      new Map([['word:cat', 0.8]]),
    ]);
    expect(union.get('word:cat')).toBeCloseTo(1);
    expect(union.get('word:red')).toBeCloseTo(0.2 * 0.75);
  });

  it("gives a text its lemma, its meaning and the meaning's hypernyms at decaying weight", () => {
    const embedder = new ConceptEmbedder(wordnet, vectors);
    const bag = embedder.textConcepts('the cats');
    expect(bag.get(conceptKey('word', 'cat'))).toBeGreaterThan(0);
    const cat = wordnet.lookup('cat', { pos: 'noun', maxSenses: 1 })[0]!.synsets[0]!;
    const feline = wordnet.synset('noun', cat.hypernyms[0]!);
    expect(bag.get(conceptKey('synset', `noun:${cat.offset}`))).toBe(CONCEPT_WEIGHTS.firstSense);
    expect(bag.get(conceptKey('synset', `noun:${feline.offset}`))).toBeCloseTo(CONCEPT_WEIGHTS.firstSense * CONCEPT_WEIGHTS.hypernymDecay);
    // A word nobody knows is still an exact token.
    expect(embedder.textConcepts('zqxv').get(conceptKey('token', 'zqxv'))).toBe(1);
  });

  it('makes unit vectors of the asked size, also for an empty bag', () => {
    const space: ConceptSpace = {
      dimensions: 128,
      wordShare: 0.5,
      wordVector: (word) => (word === 'a' ? Float32Array.from({ length: 100 }, (_, i) => (i === 0 ? 1 : 0)) : undefined),
    };
    for (const bag of [
      new Map(),
      new Map([['word:a', 1]]),
      new Map([
        ['word:a', 1],
        ['token:x', 2],
      ]),
      new Map([['token:x', 1]]),
    ] as ConceptBag[]) {
      const vector = embedConcepts(bag, space, 100);
      expect(vector).toHaveLength(128);
      expect(Math.hypot(...vector)).toBeCloseTo(1, 5);
    }
    // Word part and hashed part each carry their share.
    const both = embedConcepts(
      new Map([
        ['word:a', 1],
        ['token:x', 1],
      ]),
      space,
      100,
    );
    expect(both[0]).toBeCloseTo(Math.sqrt(0.5));
  });
});

describe('the concept embedding space (text)', () => {
  const embedder = new ConceptEmbedder(wordnet, vectors);
  const text = (value: string) => embedder.embed(embedder.textConcepts(value), 1024);
  const cos = (a: string, b: string) => cosine(text(a), text(b));

  it.each([
    ['motorcycle', 'motorbike', 'cat'],
    ['fish', 'sardines', 'motorcycle'],
    ['a kitten', 'a cat', 'a car'],
    ['dog', 'puppy', 'cat'],
    ['car', 'vehicle', 'banana'],
  ])('%s is nearer %s than %s', (query, near, far) => {
    expect(cos(query, near)).toBeGreaterThan(cos(query, far) + 0.1);
  });

  it('is deterministic and unit length at 512 and 1024 dimensions', () => {
    for (const dimensions of [512, 1024]) {
      const a = embedder.embed(embedder.textConcepts('man walking across the street'), dimensions);
      expect(a).toHaveLength(dimensions);
      expect(Math.hypot(...a)).toBeCloseTo(1, 5);
      expect(Array.from(embedder.embed(embedder.textConcepts('man walking across the street'), dimensions))).toEqual(Array.from(a));
    }
  });
});

describe("audio concepts of a recording's spans", () => {
  it.each([
    // line, span, recording's duration, in the span
    [{ start: 1, end: 3 }, { start: 0, end: 10 }, 30, true],
    [{ start: 8, end: 14 }, { start: 0, end: 10 }, 30, false], // its middle (11) is in the next span
    [{ start: 8, end: 14 }, { start: 10, end: 20 }, 30, true],
    [{ start: 8, end: 12 }, { start: 0, end: 10 }, 30, false], // middle on the boundary: the later span's
    [{ start: 8, end: 12 }, { start: 10, end: 20 }, 30, true],
    [{ start: 29, end: 31 }, { start: 20, end: 30 }, 30, true], // the last span holds its end
    [{ start: 31, end: 33 }, { start: 20, end: 30 }, 30, false],
    [{ start: 5, end: 25 }, { start: 0, end: 30 }, 30, true], // the whole recording holds every line
  ])('line %o in span %o of %is: %s', (line, span, duration, expected) => {
    expect(inSpan(line, span, duration)).toBe(expected);
  });

  it('recognises the speech once (stopped by the caller’s signal) and gives each span the lines said in it, with its own sound cue', async () => {
    const lines: SpeechSegment[] = [
      { start: 1, end: 4, text: 'a motorcycle' },
      { start: 9, end: 13, text: 'sardines' },
      { start: 25, end: 28, text: 'the kitchen' },
    ];
    let recognitions = 0;
    let stoppedBy: AbortSignal | undefined;
    const embedder = new ConceptEmbedder(wordnet, vectors, {
      speech: { languages: ['en'], transcribe: async (_audio, options) => (recognitions++, (stoppedBy = options?.signal), lines) },
    });
    const rate = 100;
    // 30 s: sound for 20 s, then silence.
    const samples = new Float32Array(30 * rate).map((_, i) => (i < 20 * rate ? Math.sin(i) * 0.5 : 0));
    const spans = [
      { start: 0, end: 10 },
      { start: 10, end: 20 },
      { start: 20, end: 30 },
      { start: 0, end: 30 },
    ];
    const caller = new AbortController();
    const bags = await embedder.audioConcepts(samples, rate, spans, caller.signal);
    expect(recognitions).toBe(1);
    expect(stoppedBy).toBe(caller.signal);
    const words = (bag: ConceptBag) => [...bag.keys()].filter((k) => k.startsWith('word:')).sort();
    const expected = [
      ['motorcycle', 'sound'],
      ['sardine', 'sardines', 'sound'],
      ['kitchen', 'silence'],
      ['kitchen', 'motorcycle', 'sardine', 'sardines', 'sound'],
    ].map((list) => list.map((word) => conceptKey('word', word)).sort());
    expect(bags.map(words)).toEqual(expected);
  });
});

describe('the concept embedding across modalities (bundled detector and OCR)', () => {
  const registry = new ModelRegistry([cocoDetectorProvider(), paddleOcrProvider()]);
  let embedder: ConceptEmbedder;
  beforeAll(async () => {
    embedder = new ConceptEmbedder(wordnet, vectors, {
      detector: await registry.get('object_detector'),
      textReader: await registry.get('text_reader'),
    });
  }, 60_000);
  afterAll(() => registry.dispose());

  const text = (value: string) => embedder.embed(embedder.textConcepts(value), 1024);
  const image = async (bytes: Buffer) => embedder.embed(await embedder.imageConcepts(bytes), 1024);

  it('places a cat photo near "cat" and "animal", far from "motorcycle"', async () => {
    const cat = await image(await readFile(await photoPath('cat')));
    expect(cosine(text('cat'), cat)).toBeGreaterThan(0.5);
    expect(cosine(text('animal'), cat)).toBeGreaterThan(cosine(text('motorcycle'), cat) + 0.1);
    expect(cosine(text('motorcycle'), cat)).toBeLessThan(0.3);
  }, 60_000);

  it('places a frame that reads MOTORBIKE near "motorcycle", far from "cat"', async () => {
    const frame = await image(await renderTextFrame(640, 360, [{ text: 'MOTORBIKE', x: 60, y: 200, size: 80 }]));
    expect(cosine(text('motorcycle'), frame)).toBeGreaterThan(0.4);
    expect(cosine(text('motorcycle'), frame)).toBeGreaterThan(cosine(text('cat'), frame) + 0.2);
  }, 60_000);
});
