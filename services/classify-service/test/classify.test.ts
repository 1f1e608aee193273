import { ApiError, ManualClock, slicePage } from '@vus/core';
import { createClassify, type ClassifyDirectory, type ClassifyParams, type StoredClassification, type VideoRef } from '../src/classify';
import type { PromptClip } from '../src/scoring';

/** Classification's domain on memory fakes: the directory answers prompts from a table of clips. */
const ORG = 'org1';
const VIDEOS: VideoRef[] = [
  { id: 'v-cat', indexId: 'idx1', duration: 20 },
  { id: 'v-phone', indexId: 'idx1', duration: 10 },
  { id: 'v-other', indexId: 'idx2', duration: 10 },
];
const CLIPS: Record<string, Omit<PromptClip, 'indexId' | 'prompt' | 'option' | 'thumbnailKey'>[]> = {
  cat: [{ videoId: 'v-cat', start: 2, end: 8, score: 85 }],
  phone: [
    { videoId: 'v-phone', start: 0, end: 5, score: 90 },
    { videoId: 'v-other', start: 1, end: 2, score: 40 },
  ],
};

function fakes() {
  const searches: { indexId: string; prompt: string; videoIds: readonly string[]; options: string[] }[] = [];
  const directory: ClassifyDirectory = {
    async videos(orgId, ids) {
      return ids.map((id) => {
        const video = VIDEOS.find((v) => v.id === id);
        if (orgId !== ORG || !video) throw new ApiError('resource_not_exist', `The video ${id} does not exist.`);
        return video;
      });
    },
    async indexVideos(orgId, indexId) {
      if (orgId !== ORG || !VIDEOS.some((v) => v.indexId === indexId))
        throw new ApiError('resource_not_exist', `The index ${indexId} does not exist.`);
      return VIDEOS.filter((v) => v.indexId === indexId);
    },
    async matchClips(_orgId, indexId, prompt, s) {
      searches.push({ indexId, prompt, videoIds: s.videoIds, options: s.options });
      if (s.options.includes('logo'))
        throw new ApiError('search_option_not_supported', `Search option logo is not supported for index ${indexId}.`);
      const inScope = (id: string) =>
        s.videoIds.length > 0 ? s.videoIds.includes(id) : VIDEOS.some((v) => v.id === id && v.indexId === indexId);
      return (CLIPS[prompt] ?? [])
        .filter((c) => inScope(c.videoId))
        .map((c) => ({ ...c, indexId, prompt, option: 'visual' as const, thumbnailKey: '' }));
    },
  };
  const sets = new Map<string, StoredClassification>();
  const store = {
    saveResultSet: async (set: StoredClassification) => void sets.set(set.id, set),
    async loadPage(orgId: string, id: string, page: number) {
      const set = sets.get(id);
      if (set?.orgId !== orgId) return undefined;
      return { set, total: set.items.length, items: slicePage(id, set.items, page, set.pageLimit).items };
    },
  };
  const clock = new ManualClock('2026-01-10T12:00:00Z');
  return { classify: createClassify({ directory, store, clock, pageTtlMs: 60_000 }), searches, clock };
}

const params = (overrides: Partial<ClassifyParams> = {}): ClassifyParams => ({
  classes: [
    { name: 'Animals', prompts: ['cat'] },
    { name: 'Devices', prompts: ['phone'] },
  ],
  options: ['visual'],
  conversationOption: 'semantic',
  confidence: 'low',
  thresholds: {},
  showDetailedScore: false,
  includeClips: false,
  pageLimit: 10,
  ...overrides,
});

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'no error',
    (error: unknown) => (error instanceof ApiError ? `${error.code} ${error.details?.param ?? ''}`.trim() : String(error)),
  );

describe('classify (domain, on memory fakes)', () => {
  it('classifies the given videos, searching each prompt once per index over those videos only', async () => {
    const { classify, searches } = fakes();
    const page = await classify.classify(ORG, ['v-phone', 'v-cat', 'v-other'], params());
    expect(page.data.map((v) => [v.videoId, v.classes.map((c) => c.name)])).toEqual([
      ['v-phone', ['Devices']],
      ['v-cat', ['Animals']],
      ['v-other', ['Devices']],
    ]);
    expect(searches.map((s) => `${s.prompt}@${s.indexId}:${[...s.videoIds].sort().join(',')}`).sort()).toEqual([
      'cat@idx1:v-cat,v-phone',
      'cat@idx2:v-other',
      'phone@idx1:v-cat,v-phone',
      'phone@idx2:v-other',
    ]);
  });

  it('classifies a whole index with one search per prompt', async () => {
    const { classify, searches } = fakes();
    const page = await classify.classifyIndex(ORG, 'idx1', params());
    expect(page.data.map((v) => v.videoId)).toEqual(['v-phone', 'v-cat']);
    expect(searches.map((s) => [s.prompt, s.videoIds.length])).toEqual([
      ['cat', 0],
      ['phone', 0],
    ]);
  });

  it('answers clips and detailed scores only when asked, on every page', async () => {
    const { classify } = fakes();
    const bare = await classify.classify(ORG, ['v-cat'], params());
    expect(bare.data[0]!.classes[0]).toEqual({ name: 'Animals', score: 85, durationRatio: 0.3, clips: [], detailedScores: undefined });
    const first = await classify.classify(ORG, ['v-cat', 'v-phone'], params({ includeClips: true, showDetailedScore: true, pageLimit: 1 }));
    const second = await classify.page(ORG, first.pageInfo.nextPageToken);
    expect(second.data[0]!.classes[0]!.detailedScores).toEqual({ maxScore: 85, avgScore: 85, normalizedScore: 100 });
    expect(second.data[0]!.classes[0]!.clips.map((c) => [c.start, c.end, c.prompt])).toEqual([[2, 8, 'cat']]);
  });

  it('serves pages from one fixed list: page 2 is disjoint from page 1', async () => {
    const { classify } = fakes();
    const first = await classify.classify(ORG, ['v-cat', 'v-phone', 'v-other'], params({ pageLimit: 2 }));
    const second = await classify.page(ORG, first.pageInfo.nextPageToken);
    expect([first.data.map((v) => v.videoId), second.data.map((v) => v.videoId)]).toEqual([['v-phone', 'v-cat'], ['v-other']]);
    expect([first.pageInfo.totalResults, second.pageInfo.nextPageToken, second.pageInfo.prevPageToken !== '']).toEqual([3, '', true]);
  });

  it.each([
    ['no classes', () => fakes().classify.classify(ORG, ['v-cat'], params({ classes: [] })), 'parameter_not_provided classes'],
    ['no videos', () => fakes().classify.classify(ORG, [], params()), 'parameter_not_provided video_ids'],
    [
      'a class without prompts',
      () => fakes().classify.classify(ORG, ['v-cat'], params({ classes: [{ name: 'A', prompts: [] }] })),
      'parameter_invalid classes[0].prompts',
    ],
    [
      'an empty prompt',
      () => fakes().classify.classify(ORG, ['v-cat'], params({ classes: [{ name: 'A', prompts: ['cat', ' '] }] })),
      'parameter_invalid classes[0].prompts',
    ],
    [
      'more than 100 prompts',
      () =>
        fakes().classify.classify(
          ORG,
          ['v-cat'],
          params({
            classes: [
              { name: 'A', prompts: Array.from({ length: 60 }, (_, i) => `p${i}`) },
              { name: 'B', prompts: Array.from({ length: 41 }, (_, i) => `q${i}`) },
            ],
          }),
        ),
      'parameter_invalid classes',
    ],
    ['another organization’s video', () => fakes().classify.classify('org2', ['v-cat'], params()), 'resource_not_exist'],
    ['another organization’s index', () => fakes().classify.classifyIndex('org2', 'idx1', params()), 'resource_not_exist'],
    [
      'an option the index lacks',
      () => fakes().classify.classifyIndex(ORG, 'idx1', params({ options: ['logo'] })),
      'search_option_not_supported',
    ],
  ])('refuses %s', async (_case, run, expected) => {
    expect(await codeOf(run())).toBe(expected);
  });

  it('refuses more than 10 hours of video in all', async () => {
    const { classify } = fakes();
    VIDEOS.push({ id: 'v-long', indexId: 'idx1', duration: 36_000 });
    try {
      expect(await codeOf(classify.classify(ORG, ['v-long'], params()))).toBe('no error');
      expect(await codeOf(classify.classify(ORG, ['v-long', 'v-cat'], params()))).toBe('parameter_invalid video_ids');
    } finally {
      VIDEOS.pop();
    }
  });

  it.each([
    ['an expired', (f: ReturnType<typeof fakes>, token: string) => (f.clock.advance(60_001), f.classify.page(ORG, token))],
    ["another organization's", (f: ReturnType<typeof fakes>, token: string) => f.classify.page('org2', token)],
    ['a malformed', (f: ReturnType<typeof fakes>) => f.classify.page(ORG, 'not-a-token')],
  ])('reads %s page token as expired', async (_case, page) => {
    const f = fakes();
    const first = await f.classify.classify(ORG, ['v-cat', 'v-phone'], params({ pageLimit: 1 }));
    expect(await codeOf(page(f, first.pageInfo.nextPageToken))).toBe('search_page_token_expired page_token');
  });
});

/**
 * Issue 28 item 6: one organization's heavy classifications (100 classes × a long prompt ×
 * four options, 5.7 s of CPU each) slowed every other organization's searches.
 */
describe("one organization's share of classification", () => {
  /** A directory whose org-A searches wait until released, counting A's classifications in flight. */
  function heldDirectory() {
    const inFlight = new Map<string, number>();
    let mostAtOnce = 0;
    let searches = 0;
    const held: (() => void)[] = [];
    const directory: ClassifyDirectory = {
      videos: async () => [],
      indexVideos: async (_orgId, indexId) => [{ id: `${indexId}-v`, indexId, duration: 10 }],
      async matchClips(orgId, _indexId, prompt) {
        searches++;
        if (orgId !== 'org-a') return [];
        // A classification's prompts are `<call>:<n>`: count calls with a search in flight.
        const call = prompt.split(':')[0]!;
        inFlight.set(call, (inFlight.get(call) ?? 0) + 1);
        mostAtOnce = Math.max(mostAtOnce, inFlight.size);
        await new Promise<void>((resolve) => held.push(resolve));
        const left = inFlight.get(call)! - 1;
        if (left === 0) inFlight.delete(call);
        else inFlight.set(call, left);
        return [];
      },
    };
    const store = { saveResultSet: async () => undefined, loadPage: async () => undefined };
    const classify = createClassify({ directory, store, clock: new ManualClock('2026-01-10T12:00:00Z'), pageTtlMs: 60_000 });
    return {
      classify,
      mostAtOnce: () => mostAtOnce,
      searches: () => searches,
      releaseAll: () => held.splice(0).forEach((release) => release()),
    };
  }
  const heavy = (call: string, prompts = 8) =>
    params({ classes: Array.from({ length: prompts }, (_, i) => ({ name: `class ${i}`, prompts: [`${call}:${i}`] })) });
  const settle = async () => {
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  };

  it('runs 2 of an organization’s classifications at once, queues 4, refuses the next; another organization is served', async () => {
    const fake = heldDirectory();
    const calls = Array.from({ length: 6 }, (_, i) => fake.classify.classifyIndex('org-a', 'idx-a', heavy(`c${i}`)));
    await settle();
    expect(await codeOf(fake.classify.classifyIndex('org-a', 'idx-a', heavy('c6')))).toBe('too_many_requests');
    expect(await codeOf(fake.classify.classifyIndex('org-b', 'idx-b', heavy('b0')))).toBe('no error');
    // Release rounds of searches until every call of A has finished.
    let done = false;
    void Promise.all(calls).then(() => (done = true));
    for (let round = 0; !done && round < 500; round++) {
      fake.releaseAll();
      await settle();
    }
    expect(done).toBe(true);
    expect(fake.mostAtOnce()).toBe(2);
  });

  it('stops searching once its caller has gone', async () => {
    const fake = heldDirectory();
    const leaving = new AbortController();
    const outcome = codeOf(fake.classify.classifyIndex('org-a', 'idx-a', heavy('gone', 100), leaving.signal));
    await settle();
    const started = fake.searches();
    expect(started).toBeGreaterThan(0);
    leaving.abort();
    fake.releaseAll();
    await settle();
    fake.releaseAll();
    expect(await outcome).toMatch(/AbortError|aborted/);
    expect(fake.searches()).toBe(started);
  });

  it('lets other work run while it scores many videos', async () => {
    const videos = Array.from({ length: 2_000 }, (_, i) => ({ id: `v${i}`, indexId: 'idx', duration: 10 }));
    const events: string[] = [];
    const directory: ClassifyDirectory = {
      videos: async () => [],
      indexVideos: async () => videos,
      matchClips: async (_orgId, indexId, prompt) =>
        videos.map((v) => ({ videoId: v.id, indexId, start: 0, end: 5, score: 80, option: 'visual' as const, prompt, thumbnailKey: '' })),
    };
    const store = { saveResultSet: async () => void events.push('scored and saved'), loadPage: async () => undefined };
    const classify = createClassify({ directory, store, clock: new ManualClock('2026-01-10T12:00:00Z'), pageTtlMs: 60_000 });
    const classes = Array.from({ length: 10 }, (_, i) => ({ name: `class ${i}`, prompts: [`p${i}`] }));
    const call = classify.classifyIndex('org-a', 'idx', params({ classes }));
    // Searches answered at once (microtasks only): another request's turn comes only if scoring yields.
    setImmediate(() => events.push('another request'));
    await call;
    expect(events).toEqual(['another request', 'scored and saved']);
  });
});
