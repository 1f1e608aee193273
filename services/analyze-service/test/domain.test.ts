import { openWordNet } from '@vus/wordnet';
import { mergeRepeats, shotsOf, titleOfFile } from '../src/evidence';
import { ExtractiveProvider, promptTerms } from '../src/extractive';
import { compileResponseSchema } from '../src/response-format';
import { clock, contentWords, keyPhrases } from '../src/text';
import { categoryOf, topicsOf } from '../src/topics';
import { cookingTimeline, inventedWords, SENTENCE_GLUE } from './fixtures';

const wordnet = openWordNet();
afterAll(() => wordnet.close());
const provider = new ExtractiveProvider(wordnet);

describe('text', () => {
  // Tokens are counted by @vus/core (libs/core/test/tokens.test.ts).
  it.each<[number, string]>([
    [0, '0:00'],
    [75.4, '1:15'],
    [3723, '1:02:03'],
    [-2, '0:00'],
  ])('clock(%d) = %s', (seconds, text) => expect(clock(seconds)).toBe(text));

  it('content words drop stopwords, digits and single letters', () => {
    expect(contentWords('Boil the pasta for 10 minutes, a must')).toEqual(['boil', 'pasta', 'minutes', 'must']);
  });

  it('key phrases rank the most repeated vocabulary first', () => {
    expect(keyPhrases(['Tomato pasta tonight', 'The pasta is ready', 'fresh tomato pasta'], 2)).toEqual([
      'fresh tomato pasta',
      'tomato pasta tonight',
    ]);
  });
});

describe('evidence timeline', () => {
  it('sorts every kind by time, with shots covering the video', () => {
    const timeline = cookingTimeline();
    const starts = timeline.items.map((e) => e.start);
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    expect(timeline.shots.map((s) => [s.start, s.end])).toEqual([
      [0, 10],
      [10, 20],
      [20, 30],
      [30, 40],
    ]);
    expect(new Set(timeline.items.map((e) => e.kind))).toEqual(new Set(['metadata', 'speech', 'text', 'label', 'logo']));
    expect(timeline.title).toBe('pasta night');
  });

  it.each<[string, { start: number; end: number; labels: string[] }[], number, [number, number][]]>([
    ['no segments: one shot for the whole video', [], 12, [[0, 12]]],
    [
      'gaps are closed and the last shot reaches the end',
      [
        { start: 1, end: 3, labels: [] },
        { start: 5, end: 8, labels: [] },
      ],
      10,
      [
        [0, 5],
        [5, 10],
      ],
    ],
    [
      'unsorted input',
      [
        { start: 5, end: 10, labels: [] },
        { start: 0, end: 5, labels: [] },
      ],
      10,
      [
        [0, 5],
        [5, 10],
      ],
    ],
  ])('shotsOf: %s', (_name, segments, duration, expected) => {
    expect(shotsOf(segments, duration).map((s) => [s.start, s.end])).toEqual(expected);
  });

  it('merges the same caption read on consecutive frames', () => {
    const merged = mergeRepeats(cookingTimeline().items.filter((e) => e.kind === 'text'));
    expect(merged.map((e) => [e.text, e.start, e.end])).toEqual([
      ['TOMATO PASTA', 0, 3],
      ['Step 2: boil', 22, 24],
    ]);
  });

  it.each([
    ['my_trip.mp4', 'my trip'],
    ['clip-01.mov', 'clip 01'],
    ['noext', 'noext'],
  ])('titleOfFile(%s)', (file, title) => expect(titleOfFile(file)).toBe(title));
});

describe('topics from WordNet categories', () => {
  it.each<[string, 'noun' | 'verb', string]>([
    ['dog', 'noun', 'noun.animal'],
    ['pasta', 'noun', 'noun.food'],
    ['car', 'noun', 'noun.artifact'],
    ['run', 'verb', 'verb.motion'],
  ])('%s is filed under %s', (word, pos, category) => expect(categoryOf(wordnet, word, [pos])).toBe(category));

  it('names the strongest categories and drops stray ones', () => {
    const topics = topicsOf(wordnet, [
      { word: 'pasta', weight: 5, parts: ['noun'] },
      { word: 'tomato', weight: 3, parts: ['noun'] },
      { word: 'dog', weight: 0.1, parts: ['noun'] },
    ]);
    expect(topics[0]).toBe('Food and drink');
    expect(topics).not.toContain('Animals');
  });
});

describe('extractive provider', () => {
  const timeline = cookingTimeline();

  it('gist: the title card, topics from what is seen and said, hashtags from key phrases', async () => {
    const gist = await provider.gist(timeline, ['title', 'topic', 'hashtag']);
    expect(gist.title).toBe('Tomato Pasta');
    expect(gist.topics).toContain('Food and drink');
    expect(gist.hashtags).toEqual(expect.arrayContaining(['pasta']));
    for (const tag of gist.hashtags!) expect(tag).toMatch(/^[\p{L}\p{N}]+$/u);
  });

  it('gist: only the requested types', async () => {
    expect(Object.keys(await provider.gist(timeline, ['hashtag']))).toEqual(['hashtags']);
  });

  it('summary: what is seen, then salient text and speech in time order, nothing else', async () => {
    const summary = await provider.summarize(timeline, 'summary', '');
    if (summary.type !== 'summary') throw new Error('wrong type');
    expect(summary.summary).toMatch(/^The video shows person/);
    expect(summary.summary).toContain('"TOMATO PASTA"');
    expect(summary.summary.indexOf('TOMATO PASTA')).toBeLessThan(summary.summary.indexOf('tomato sauce'));
    expect(inventedWords(summary.summary, timeline, SENTENCE_GLUE)).toEqual([]);
  });

  it('chapters: contiguous, 0-based, titled from on-screen text or key phrases', async () => {
    const summary = await provider.summarize(timeline, 'chapter', '');
    if (summary.type !== 'chapter') throw new Error('wrong type');
    const { chapters } = summary;
    expect(chapters.length).toBeGreaterThanOrEqual(1);
    expect(chapters.length).toBeLessThanOrEqual(2);
    expect(chapters.map((c) => c.chapterNumber)).toEqual(chapters.map((_, i) => i));
    expect(chapters[0]!.start).toBe(0);
    expect(chapters.at(-1)!.end).toBe(40);
    for (let i = 1; i < chapters.length; i += 1) expect(chapters[i]!.start).toBe(chapters[i - 1]!.end);
    expect(chapters[0]!.title).toBe('Tomato Pasta');
    for (const c of chapters) expect(inventedWords(`${c.title} ${c.summary}`, timeline, SENTENCE_GLUE)).toEqual([]);
  });

  it('the first two shots, which show the same things, end up in one chapter', async () => {
    const summary = await provider.summarize(timeline, 'chapter', '');
    if (summary.type !== 'chapter') throw new Error('wrong type');
    expect(summary.chapters.some((c) => c.start === 10)).toBe(false);
  });

  it('highlights: whole seconds, non-overlapping, in time order', async () => {
    const summary = await provider.summarize(timeline, 'highlight', '');
    if (summary.type !== 'highlight') throw new Error('wrong type');
    expect(summary.highlights.length).toBeGreaterThanOrEqual(1);
    for (const h of summary.highlights) {
      expect(Number.isInteger(h.start) && Number.isInteger(h.end)).toBe(true);
      expect(h.end).toBeGreaterThan(h.start);
      expect(inventedWords(`${h.highlight} ${h.summary}`, timeline, SENTENCE_GLUE)).toEqual([]);
    }
  });

  it.each<[string, RegExp, RegExp | undefined]>([
    ['When is the pasta boiled?', /At 0:21, the speaker says "Boil the pasta for ten minutes"/, undefined],
    ['Is there a dog in the video?', /^The video does not show or mention "dog"\./, /boil/i],
    ['Which logo appears?', /the Acme logo is visible/, undefined],
    ['When is the word boil shown?', /the on-screen text reads "Step 2: boil"/, /does not show/],
    ['Show me the oven and the giraffe', /the video shows oven/, /giraffe/],
    ['What is this video about?', /^The video shows person/, undefined],
  ])('answers %j from the moments that show it', (prompt, expected, absentOrMissing) => {
    const answer = provider.answerSentences(timeline, prompt).join(' ');
    expect(answer).toMatch(expected);
    if (absentOrMissing?.source === 'giraffe') expect(answer).toContain('does not show or mention "giraffe"');
    else if (absentOrMissing) expect(answer).not.toMatch(absentOrMissing);
    expect(inventedWords(answer, timeline, [...SENTENCE_GLUE, ...promptTerms(prompt)])).toEqual([]);
  });

  it('finds a prompt word through its base form and synonyms', () => {
    expect(provider.answerSentences(timeline, 'tomatoes').join(' ')).toContain('tomato');
  });

  it('says so when indexing found nothing', async () => {
    const empty = cookingTimeline({
      transcription: [],
      textInVideo: [],
      logos: [],
      visualSegments: [],
      video: { id: 'v', indexId: 'i', title: 't', filename: 'f', duration: 5, userMetadata: {} },
    });
    const summary = await provider.summarize(empty, 'summary', '');
    expect(summary).toEqual({ type: 'summary', summary: expect.stringMatching(/^Indexing found nothing/) });
  });

  it.each<[string, object, (value: Record<string, unknown>) => void]>([
    [
      'title, summary, topics, duration',
      {
        type: 'object',
        properties: {
          title: { type: 'string' },
          summary: { type: 'string' },
          topics: { type: 'array', items: { type: 'string' } },
          duration: { type: 'number' },
        },
        required: ['title', 'summary'],
      },
      (v) => expect(v).toMatchObject({ title: 'Tomato Pasta', duration: 40, topics: expect.arrayContaining(['Food and drink']) }),
    ],
    [
      'chapters as objects with times',
      {
        type: 'object',
        properties: {
          chapters: {
            type: 'array',
            minItems: 1,
            items: {
              type: 'object',
              properties: { start: { type: 'number' }, end: { type: 'number' }, title: { type: 'string' } },
              required: ['start', 'end', 'title'],
            },
          },
        },
      },
      (v) => expect((v.chapters as { start: number }[])[0]).toMatchObject({ start: 0, title: 'Tomato Pasta' }),
    ],
    [
      'booleans say whether the video shows a thing; enums pick a value the evidence names',
      {
        type: 'object',
        properties: { has_pasta: { type: 'boolean' }, has_giraffe: { type: 'boolean' }, dish: { enum: ['pizza', 'pasta', 'soup'] } },
      },
      (v) => expect(v).toEqual({ has_pasta: true, has_giraffe: false, dish: 'pasta' }),
    ],
    [
      'local $ref and bounded arrays',
      {
        $defs: { line: { type: 'string', maxLength: 20 } },
        type: 'object',
        properties: { quotes: { type: 'array', maxItems: 2, items: { $ref: '#/$defs/line' } } },
      },
      (v) => expect((v.quotes as string[]).length).toBe(2),
    ],
  ])('fills a JSON schema: %s, and it validates', async (_name, schema, expectation) => {
    const compiled = compileResponseSchema(JSON.stringify(schema));
    const value = (await provider.fillSchema(timeline, 'Describe the recipe', schema)) as Record<string, unknown>;
    expect(() => compiled.check(value)).not.toThrow();
    expectation(value);
  });
});

describe('response format', () => {
  it.each<[string, string, RegExp]>([
    ['text that is not JSON', 'not json', /not valid JSON/],
    ['an array', '[1,2]', /must be a JSON schema object/],
    ['an unknown type', '{"type":"strin"}', /not a valid JSON schema/],
    ['a keyword of the wrong type', '{"type":"object","properties":{"a":{"minLength":"x"}}}', /not a valid JSON schema/],
    ['a 70 KB schema', JSON.stringify({ description: 'x'.repeat(70_000) }), /larger than/],
  ])('refuses %s', (_name, text, message) => {
    expect(() => compileResponseSchema(text)).toThrow(message);
  });

  it('a value that does not validate is refused, never returned', () => {
    const compiled = compileResponseSchema('{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}');
    expect(() => compiled.check({})).toThrow(/cannot fill/);
    expect(() => compiled.check({ n: 1 })).not.toThrow();
  });
});
