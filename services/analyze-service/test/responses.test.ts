/**
 * Responses over a knowledge store without the other services: the conversation's pure rules
 * (selections, history, follow-ups), citations read from [n] markers, moments merged, and the
 * domain's turn (events in order, citations, sessions, cut and cancelled turns) over an in-memory
 * session store, a library of two fixture videos and the bundled provider.
 */
import { ApiError, createLogger, systemClock } from '@vus/core';
import type { MeteredUsage } from '@vus/events';
import { openWordNet } from '@vus/wordnet';
import { compileResponseSchema } from '../src/response-format';
import { assembleTimeline, type Timeline } from '../src/evidence';
import { ExtractiveProvider } from '../src/extractive';
import {
  boundHistory,
  checkInput,
  classifyRequest,
  countAsked,
  focusWords,
  type RequestKind,
  readSelections,
  refersBack,
  retrievalQuery,
  type Selection,
  type Turn,
} from '../src/responses/conversation';
import { moodAnswer, NO_MOOD, overview } from '../src/responses/extractive-answer';
import { citationsOf, NO_MOMENT, type Passage } from '../src/responses/grounding';
import { createResponses, type Library, type ResponseEvent, type RespondRequest, type TurnRecord } from '../src/responses/responses';
import { itemsInScope, mergeMoments, type Moment } from '../src/responses/retrieval';
import { cookingSources } from './fixtures';

const wordnet = openWordNet();
afterAll(() => wordnet.close());
const logger = createLogger({ service: 'test', level: 'silent' });

const selections: Selection[] = [
  { kind: 'item', id: 'ksi_1', label: 'Pasta night', itemIds: [] },
  { kind: 'collection', id: 'kic_1', label: 'Gardens', itemIds: ['ksi_2', 'ksi_3'] },
];

describe('readSelections', () => {
  it.each<[string, string]>([
    ['What is cooked in {{sel:0}}?', 'What is cooked in "Pasta night"?'],
    ['Compare {{sel:0}} with {{ sel:1 }}', 'Compare "Pasta night" with "Gardens"'],
    ['No tokens here', 'No tokens here'],
    ['{{sel:x}} is not a token', '{{sel:x}} is not a token'],
  ])('%s → %s', (text, read) => expect(readSelections(text, selections)).toBe(read));

  it('refuses a token naming no selection in the question, and leaves it in an earlier message', () => {
    expect(() => readSelections('What about {{sel:2}}?', selections)).toThrow(/names no entry of selections/);
    expect(readSelections('What about {{sel:2}}?', selections, false)).toBe('What about {{sel:2}}?');
  });
});

describe('citationsOf', () => {
  const passage = (n: number): Passage => ({ n, itemId: `ksi_${n}`, videoId: `v${n}`, title: `t${n}`, start: n, end: n + 2, evidence: [] });
  const passages = [passage(1), passage(2)];
  it.each<[string, [number, number, string][]]>([
    ['Roses bloom in June [1].', [[20, 23, 'ksi_1']]],
    [
      'A [2] and b [1][2].',
      [
        [2, 5, 'ksi_2'],
        [12, 15, 'ksi_1'],
        [15, 18, 'ksi_2'],
      ],
    ],
    [
      'Both [1, 2].',
      [
        [5, 11, 'ksi_1'],
        [5, 11, 'ksi_2'],
      ],
    ],
    // UTF-16 code units: the emoji before the marker is two.
    ['🌹 [2]', [[3, 6, 'ksi_2']]],
    ['[3] names no passage, [x] is no marker', []],
  ])('%s', (text, expected) => {
    const found = citationsOf(text, passages).map((c) => [c.startIndex, c.endIndex, c.itemId]);
    expect(found).toEqual(expected);
    for (const [start, end] of expected) expect(text.slice(start, end)).toMatch(/^\[[\d, ]+\]$/);
  });
});

describe('boundHistory', () => {
  const turn = (i: number, length = 10): Turn => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: String(i).padEnd(length, '.') });
  it.each<[string, Turn[], { turns: number; messageCharacters: number; totalCharacters: number }, string[]]>([
    ['keeps a short history whole', [turn(0), turn(1)], { turns: 8, messageCharacters: 100, totalCharacters: 1000 }, ['0', '1']],
    [
      'keeps the last turns',
      [0, 1, 2, 3, 4, 5].map((i) => turn(i)),
      { turns: 2, messageCharacters: 100, totalCharacters: 1000 },
      ['2', '3', '4', '5'],
    ],
    [
      'drops the oldest past the total',
      [0, 1, 2].map((i) => turn(i)),
      { turns: 8, messageCharacters: 100, totalCharacters: 25 },
      ['1', '2'],
    ],
  ])('%s', (_name, turns, limits, firsts) => {
    expect(boundHistory(turns, limits).map((t) => t.content.charAt(0))).toEqual(firsts);
  });

  it('cuts a long message', () => {
    const [cut] = boundHistory([turn(0, 5000)], { turns: 8, messageCharacters: 100, totalCharacters: 1000 });
    expect(cut!.content).toHaveLength(101);
  });
});

describe('follow-ups', () => {
  it.each<[string, boolean, string[]]>([
    ['What flowers grow in the garden?', false, ['flowers', 'grow', 'garden']],
    ['Now list the three most important moments', true, []],
    ['What else did she say about it?', true, []],
    ['Summarize this store', true, []],
  ])('%s: refers back %s, focus %j', (question, back, focus) => {
    expect(refersBack(question)).toBe(back);
    expect(focusWords(question)).toEqual(focus);
  });

  it('a follow-up is searched with the question before it', () => {
    expect(retrievalQuery('Now list the three most important moments', 'Where are the roses?')).toBe(
      'Where are the roses? Now list the three most important moments',
    );
    expect(retrievalQuery('Where is the bicycle?', 'Where are the roses?')).toBe('Where is the bicycle?');
    expect(retrievalQuery('Now list them', undefined)).toBe('Now list them');
  });

  it.each<[string, number | undefined]>([
    ['list the three most important moments', 3],
    ['give me 2 highlights', 2],
    ['what happens?', undefined],
    ['Summarize it in two sentences', 2],
    ['Give a one-sentence summary.', 1],
    ['three bullet points', 3],
  ])('countAsked(%s) = %s', (question, n) => expect(countAsked(question)).toBe(n));
});

describe('classifyRequest', () => {
  const kind = (broad: boolean, count?: number, bullets = false, mood = false): RequestKind => ({ broad, count, bullets, mood });
  // The SDK example's questions (examples/responses.ts), selections read as their labels, and specific ones.
  it.each<[string, RequestKind]>([
    ['Summarize what happens in this knowledge store in two sentences.', kind(true, 2)],
    ['Now list the three most important moments as bullet points.', kind(true, 3, true)],
    ['What is the overall mood, and how did you decide?', kind(true, undefined, false, true)],
    ['Extract a title and a list of up to 3 tags for this content.', kind(true, undefined, true)],
    ['Describe "Garden tour" in one sentence.', kind(true, 1)],
    ['Summarize the contents of "Cooking clips".', kind(true)],
    ['Give a one-sentence summary.', kind(true, 1)],
    ['Summarize this store', kind(true)],
    ['Where is the bicycle parked?', kind(false)],
    ['Describe the bicycle in "Garden tour".', kind(false)],
    ['What does the speaker say about tomato sauce?', kind(false)],
    ['Summarize what she says about roses', kind(false)],
    ['What are the key moments?', kind(true)],
    ['What does the title card show?', kind(false)],
  ])('%s', (question, expected) => expect(classifyRequest(question)).toEqual(expected));
});

describe('broad answers over fixed evidence', () => {
  const ev = (kind: 'speech' | 'text' | 'label', start: number, text: string) => ({ kind, start, end: start + 2, text });
  const passages: Passage[] = [
    {
      n: 1,
      itemId: 'ksi_1',
      videoId: 'v1',
      title: 'Pasta night',
      start: 0,
      end: 10,
      evidence: [ev('label', 0, 'person'), ev('speech', 1, 'Welcome to my kitchen.'), ev('speech', 5, 'Today we cook fresh tomato pasta.')],
    },
    {
      n: 2,
      itemId: 'ksi_2',
      videoId: 'v2',
      title: 'Garden tour',
      start: 2,
      end: 5,
      evidence: [ev('speech', 2, 'These roses bloom in June.')],
    },
    { n: 3, itemId: 'ksi_3', videoId: 'v3', title: 'Street', start: 0, end: 4, evidence: [ev('label', 0, 'car')] },
  ];
  const cited = (sentences: string[]) => sentences.map((s) => citationsOf(s, passages).map((c) => c.itemId));

  it.each<[number, string[][], RegExp[]]>([
    [1, [['ksi_1']], [/Pasta night/]],
    [2, [['ksi_1'], ['ksi_2']], [/Pasta night/, /roses bloom/]],
    // Each item's best piece first, then the next best of those with more; what is seen when nothing is said.
    [4, [['ksi_1'], ['ksi_2'], ['ksi_3'], ['ksi_1']], [/Pasta night/, /roses/, /car/, /Pasta night/]],
  ])('%d sentence(s) asked: each cited to the moment it comes from', (limit, items, texts) => {
    const sentences = overview(passages, new Set(), limit);
    expect(cited(sentences)).toEqual(items);
    sentences.forEach((s, i) => expect(s).toMatch(texts[i]!));
  });

  it('mood: only from evidence that has words for one, else says the bundled model cannot judge it', () => {
    expect(moodAnswer(passages, new Set(), 2)).toEqual([NO_MOOD, ...overview(passages, new Set(), 2)]);
    const cheerful: Passage = { ...passages[1]!, evidence: [ev('label', 2, 'cheerful crowd'), ...passages[1]!.evidence] };
    const answer = moodAnswer([passages[0]!, cheerful], new Set(), 3);
    expect(answer).toHaveLength(1);
    expect(answer[0]).toMatch(/cheerful crowd/);
    expect(cited(answer)).toEqual([['ksi_2']]);
    expect(moodAnswer([], new Set(), 2)).toEqual([NO_MOMENT]);
    // A word said is not the video's mood.
    const said: Passage = { ...passages[1]!, evidence: [ev('speech', 2, 'Be happy with the incident.')] };
    expect(moodAnswer([said], new Set(), 2)[0]).toBe(NO_MOOD);
  });
});

describe('checkInput', () => {
  it.each<[string, { role: string; content: string }[], RegExp]>([
    ['no input', [], /input/],
    ['an unknown role', [{ role: 'robot', content: 'hi' }], /input\[0\]\.role/],
    ['an assistant message last', [{ role: 'assistant', content: 'hi' }], /last item/],
    ['an empty question', [{ role: 'user', content: '  ' }], /last item/],
    [
      'a message too long',
      [
        { role: 'assistant', content: 'x'.repeat(20_001) },
        { role: 'user', content: 'hi' },
      ],
      /input\[0\]\.content/,
    ],
  ])('refuses %s', (_name, input, message) => {
    expect(() => checkInput(input, '')).toThrow(message);
  });
});

describe('retrieval', () => {
  it('scope: the selections items, else every item with a video', () => {
    const items = [
      { itemId: 'ksi_1', videoId: 'v1', title: 'a' },
      { itemId: 'ksi_2', videoId: 'v2', title: 'b' },
      { itemId: 'ksi_3', videoId: '', title: 'not ready' },
    ];
    expect(itemsInScope(items, []).map((i) => i.itemId)).toEqual(['ksi_1', 'ksi_2']);
    expect(itemsInScope(items, [selections[1]!]).map((i) => i.itemId)).toEqual(['ksi_2']);
    expect(itemsInScope(items, [selections[0]!]).map((i) => i.itemId)).toEqual(['ksi_1']);
  });

  it('moments: best first, overlaps of a video joined, out of scope dropped, bounded', () => {
    const m = (videoId: string, start: number, end: number, score: number): Moment => ({ videoId, start, end, score });
    const merged = mergeMoments(
      [m('v1', 0, 5, 50), m('v1', 4, 9, 80), m('v2', 0, 5, 60), m('v9', 0, 5, 99), m('v2', 20, 25, 10)],
      new Set(['v1', 'v2']),
      2,
    );
    expect(merged).toEqual([m('v1', 0, 9, 80), m('v2', 0, 5, 60)]);
  });
});

/** Two videos: the cooking fixture (v1) and a garden tour (v2). */
const timelines: Record<string, Timeline> = {
  v1: assembleTimeline(cookingSources()),
  v2: assembleTimeline(
    cookingSources({
      video: { id: 'v2', indexId: 'i1', title: 'Garden tour', filename: 'garden.mp4', duration: 30, userMetadata: {} },
      transcription: [
        { start: 2, end: 5, value: 'These roses bloom in June.' },
        { start: 16, end: 20, value: 'The bicycle is parked by the gate.' },
      ],
      textInVideo: [],
      logos: [],
      visualSegments: [{ start: 0, end: 30, labels: ['bicycle'] }],
    }),
  ),
};

/** Search: the moments whose speech shares a word of four letters or more with the query. */
const library: Library = {
  async search(_org, query) {
    const words = new Set(query.text.toLowerCase().match(/\p{L}{4,}/gu));
    return query.videoIds.flatMap((id) =>
      timelines[id]!.items.filter(
        (e) =>
          e.kind === 'speech' &&
          e.text
            .toLowerCase()
            .match(/\p{L}+/gu)!
            .some((w) => words.has(w)),
      ).map((e) => ({ videoId: id, start: e.start, end: e.end, score: 70 })),
    );
  },
  async timeline(_org, _index, videoId) {
    return timelines[videoId]!;
  },
};

function setup() {
  const saved: { turn: TurnRecord; usage: readonly MeteredUsage[] }[] = [];
  const responses = createResponses({
    store: {
      async open(orgId, sessionId, storeId, limit) {
        const turns = saved.map((s) => s.turn).filter((t) => t.orgId === orgId && t.sessionId === sessionId);
        if (turns.length === 0) return undefined;
        return turns[0]!.knowledgeStoreId === storeId ? { turns: turns.length, recent: turns.slice(-limit) } : 'other_store';
      },
      async saveTurn(turn, usage) {
        saved.push({ turn, usage });
      },
    },
    library,
    provider: new ExtractiveProvider(wordnet),
    clock: systemClock,
    logger,
  });
  return { responses, saved };
}

const request = (content: string, overrides: Partial<RespondRequest> = {}): RespondRequest => ({
  knowledgeStoreId: 'ks_1',
  indexId: 'i1',
  items: [
    { itemId: 'ksi_1', videoId: 'v1', title: 'Pasta night' },
    { itemId: 'ksi_2', videoId: 'v2', title: 'Garden tour' },
  ],
  input: [{ role: 'user', content }],
  sessionId: '',
  instructions: '',
  includeIntermediate: true,
  selections: [],
  ...overrides,
});
const textOptions = { maxTokens: 4096, temperature: undefined, schema: undefined };

async function collect(events: AsyncIterable<ResponseEvent>): Promise<ResponseEvent[]> {
  const all: ResponseEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}
const completed = (events: ResponseEvent[]) => events.find((e) => e.type === 'completed') as Extract<ResponseEvent, { type: 'completed' }>;

describe('respond', () => {
  it('events come in order, and the citation points at the moment that answers', async () => {
    const { responses, saved } = setup();
    const events = await collect(
      responses.respond('org', request('Where is the bicycle parked?'), textOptions, new AbortController().signal),
    );
    const types = events.map((e) => e.type);
    expect(types[0]).toBe('started');
    expect(types[1]).toBe('intermediate');
    expect(types.at(-1)).toBe('completed');
    expect(types.slice(2, -1).every((t) => t === 'text')).toBe(true);
    const done = completed(events);
    expect(done.text).toBe(events.flatMap((e) => (e.type === 'text' ? [e.delta] : [])).join(''));
    expect(done.text).toContain('bicycle is parked by the gate');
    expect(done.citations[0]).toMatchObject({ itemId: 'ksi_2', videoId: 'v2', startSec: 16, endSec: 20 });
    expect(done.text.slice(done.citations[0]!.startIndex, done.citations[0]!.endIndex)).toBe('[1]');
    expect(done.status).toBe('completed');
    expect(done.inputTokens).toBeGreaterThan(0);
    expect(saved).toHaveLength(1);
    expect(saved[0]!.usage).toEqual([expect.objectContaining({ kind: 'output_tokens', category: 'analyze', quantity: done.outputTokens })]);
  });

  it('no intermediate event unless asked', async () => {
    const { responses } = setup();
    const asked = request('Where is the bicycle parked?', { includeIntermediate: false });
    const types = (await collect(responses.respond('org', asked, textOptions, new AbortController().signal))).map((e) => e.type);
    expect(types).toEqual(['started', ...types.slice(1, -1).map(() => 'text'), 'completed']);
  });

  it('a follow-up sees the earlier turn: "the three most important moments" are about what was asked before', async () => {
    const { responses, saved } = setup();
    const first = await collect(responses.respond('org', request('Where do the roses bloom?'), textOptions, new AbortController().signal));
    const started = first[0] as Extract<ResponseEvent, { type: 'started' }>;
    expect(started.messageId).toBe(`msg_${started.sessionId}_0`);
    const follow = await collect(
      responses.respond(
        'org',
        request('Now list the three most important moments', { sessionId: started.sessionId }),
        textOptions,
        new AbortController().signal,
      ),
    );
    expect((follow[0] as Extract<ResponseEvent, { type: 'started' }>).messageId).toBe(`msg_${started.sessionId}_1`);
    const done = completed(follow);
    expect(done.citations.map((c) => c.itemId)).toContain('ksi_2');
    expect(done.text).toContain('roses');
    expect(saved.map((s) => s.turn.turn)).toEqual([0, 1]);
  });

  it('a follow-up without selections continues a turn asked with them, which is kept as read', async () => {
    const { responses, saved } = setup();
    const withSelection = request('Where is the bicycle in {{sel:0}}?', {
      selections: [{ kind: 'item', id: 'ksi_2', label: 'Garden tour', itemIds: [] }],
    });
    const first = await collect(responses.respond('org', withSelection, textOptions, new AbortController().signal));
    const { sessionId } = first[0] as Extract<ResponseEvent, { type: 'started' }>;
    expect(saved[0]!.turn.input).toEqual([{ role: 'user', content: 'Where is the bicycle in "Garden tour"?' }]);
    const follow = await collect(
      responses.respond('org', request('And the roses?', { sessionId }), textOptions, new AbortController().signal),
    );
    expect(completed(follow).citations.map((c) => c.itemId)).toContain('ksi_2');
  });

  it('a session of another organization is not found; one of another store of the organization is a bad session_id (400)', async () => {
    const { responses } = setup();
    const first = await collect(responses.respond('org', request('Where do the roses bloom?'), textOptions, new AbortController().signal));
    const { sessionId } = first[0] as Extract<ResponseEvent, { type: 'started' }>;
    for (const [org, store, code] of [
      ['other-org', 'ks_1', 'resource_not_exist'],
      ['org', 'ks_2', 'parameter_invalid'],
    ]) {
      const asked = collect(
        responses.respond(org!, request('And then?', { sessionId, knowledgeStoreId: store! }), textOptions, new AbortController().signal),
      );
      await expect(asked).rejects.toMatchObject({ code });
    }
  });

  it('says no moment bears on a question nothing in the store meets', async () => {
    const { responses } = setup();
    const done = completed(
      await collect(responses.respond('org', request('Where is the giraffe?'), textOptions, new AbortController().signal)),
    );
    expect(done.text).toBe(NO_MOMENT);
    expect(done.citations).toEqual([]);
  });

  it('a broad question reads each item overview when search finds little', async () => {
    const { responses } = setup();
    const done = completed(
      await collect(responses.respond('org', request('Summarize this store'), textOptions, new AbortController().signal)),
    );
    expect(new Set(done.citations.map((c) => c.itemId))).toEqual(new Set(['ksi_1', 'ksi_2']));
  });

  it('a broad request in two sentences: two cited sentences, one from each item', async () => {
    const { responses } = setup();
    const asked = request('Summarize what happens in this knowledge store in two sentences.');
    const done = completed(await collect(responses.respond('org', asked, textOptions, new AbortController().signal)));
    expect(done.text.match(/\[\d+\]\./g)).toHaveLength(2);
    expect(done.citations.map((c) => c.itemId)).toEqual(['ksi_1', 'ksi_2']);
  });

  it('a broad follow-up asking for a list: three bullets over the session', async () => {
    const { responses } = setup();
    const first = await collect(
      responses.respond('org', request('Summarize what happens in this knowledge store.'), textOptions, new AbortController().signal),
    );
    const { sessionId } = first[0] as Extract<ResponseEvent, { type: 'started' }>;
    const follow = completed(
      await collect(
        responses.respond(
          'org',
          request('Now list the three most important moments as bullet points.', { sessionId }),
          textOptions,
          new AbortController().signal,
        ),
      ),
    );
    expect(follow.text.split('\n')).toHaveLength(3);
    expect(follow.text.split('\n').every((line) => /^- In ".+\[\d+\]\.$/.test(line))).toBe(true);
    expect(follow.citations).toHaveLength(3);
  });

  it('a mood question without mood words says so, and what the store shows', async () => {
    const { responses } = setup();
    const asked = request('What is the overall mood, and how did you decide?');
    const done = completed(await collect(responses.respond('org', asked, textOptions, new AbortController().signal)));
    expect(done.text.startsWith(NO_MOOD)).toBe(true);
    expect(done.citations.length).toBeGreaterThan(0);
  });

  it('a broad request of a selected item describes that item only', async () => {
    const { responses } = setup();
    const asked = request('Describe {{sel:0}} in one sentence.', {
      selections: [{ kind: 'item', id: 'ksi_2', label: 'Garden tour', itemIds: [] }],
    });
    const done = completed(await collect(responses.respond('org', asked, textOptions, new AbortController().signal)));
    expect(done.citations.map((c) => c.itemId)).toEqual(['ksi_2']);
  });

  it('a broad json_schema request fills a title and tags from the items', async () => {
    const { responses } = setup();
    const schema = compileResponseSchema(
      JSON.stringify({
        type: 'object',
        properties: { title: { type: 'string' }, tags: { type: 'array', items: { type: 'string' }, maxItems: 3 } },
        required: ['title', 'tags'],
      }),
    );
    const asked = request('Extract a title and a list of up to 3 tags for this content.');
    const done = completed(await collect(responses.respond('org', asked, { ...textOptions, schema }, new AbortController().signal)));
    const value = JSON.parse(done.text) as { title: string; tags: string[] };
    expect(value.title.length).toBeGreaterThan(0);
    expect(value.tags.length).toBeGreaterThan(0);
  });

  it('selections narrow retrieval to their items and read as their labels', async () => {
    const { responses } = setup();
    const asked = request('Where is the bicycle in {{sel:0}}?', {
      selections: [{ kind: 'item', id: 'ksi_1', label: 'Pasta night', itemIds: [] }],
    });
    const events = await collect(responses.respond('org', asked, textOptions, new AbortController().signal));
    const step = events.find((e) => e.type === 'intermediate') as Extract<ResponseEvent, { type: 'intermediate' }>;
    expect(step.detail).toMatchObject({ query: 'Where is the bicycle in "Pasta night"?' });
    expect(completed(events).citations.every((c) => c.itemId === 'ksi_1')).toBe(true);
  });

  it('max_output_tokens cuts the answer: incomplete', async () => {
    const { responses, saved } = setup();
    const done = completed(
      await collect(
        responses.respond('org', request('Summarize this store'), { ...textOptions, maxTokens: 5 }, new AbortController().signal),
      ),
    );
    expect(done).toMatchObject({ status: 'incomplete', incompleteReason: 'max_output_tokens', outputTokens: 5 });
    expect(saved[0]!.turn.status).toBe('incomplete');
  });

  it('a json_schema answer validates against the schema', async () => {
    const { responses } = setup();
    const schema = compileResponseSchema(
      JSON.stringify({ type: 'object', properties: { summary: { type: 'string' } }, required: ['summary'] }),
    );
    const done = completed(
      await collect(
        responses.respond('org', request('Where do the roses bloom?'), { ...textOptions, schema }, new AbortController().signal),
      ),
    );
    expect(JSON.parse(done.text)).toEqual({ summary: expect.any(String) });
  });

  it('a cancelled turn stops and keeps nothing', async () => {
    const { responses, saved } = setup();
    const abort = new AbortController();
    const events: ResponseEvent[] = [];
    for await (const event of responses.respond('org', request('Where is the bicycle parked?'), textOptions, abort.signal)) {
      events.push(event);
      abort.abort();
    }
    expect(events.map((e) => e.type)).toEqual(['started']);
    expect(saved).toEqual([]);
  });

  it('refuses an input whose last item is not a question', async () => {
    const { responses } = setup();
    const asked = collect(
      responses.respond('org', request('x', { input: [{ role: 'assistant', content: 'x' }] }), textOptions, new AbortController().signal),
    );
    await expect(asked).rejects.toBeInstanceOf(ApiError);
  });
});
