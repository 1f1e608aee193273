/*
 * POST /knowledge-stores/{id}/search, in pieces: the request (defaults and refusals), which
 * videos a search reads through which options, the page token, and the answer made of
 * search-service's page and the store's items (pure functions, table-driven); then the route over
 * stand-in task- and search-service clients (what it asks them, its refusals, its answers).
 */
import { ApiError, createLogger, isApiError } from '@vus/core';
import type { GetSearchPageRequest__Input } from '@vus/grpc/types/search/v1/GetSearchPageRequest';
import type { SearchRequest__Input } from '@vus/grpc/types/search/v1/SearchRequest';
import type { ResolveKnowledgeStoreItemsRequest__Input } from '@vus/grpc/types/task/v1/ResolveKnowledgeStoreItemsRequest';
import express from 'express';
import request from 'supertest';
import type { Clients } from '../src/clients';
import { routerOf } from '../src/endpoints/router';
import { requestContext } from '../src/http/context';
import { errorHandler } from '../src/http/errors';
import { categoriesOf } from '../src/limits/categories';
import { knowledgeSearchEndpoints } from '../src/routes/knowledge-search';
import type { SearchClip } from '@vus/grpc/types/search/v1/SearchClip';
import type { SearchResultPage } from '@vus/grpc/types/search/v1/SearchResultPage';
import type { ResolvedKnowledgeStoreItem } from '@vus/grpc/types/task/v1/ResolvedKnowledgeStoreItem';
import { itemsByVideo, presentKnowledgeSearchPage } from '../src/presenters/knowledge-search';
import { decodePageToken, encodePageToken, nextPageToken, resolvedAssetType, searchScope } from '../src/routes/knowledge-search.plan';
import { parseKnowledgeSearch } from '../src/routes/knowledge-search.schema';

const STORE = '6528dde58f9cd95a98cbd075';
const OTHER_STORE = '6528dde58f9cd95a98cbd076';

/** The error `fn` throws, as {status, code, param}; fails when it throws none or not an ApiError. */
function refusal(fn: () => unknown) {
  try {
    fn();
  } catch (error) {
    if (!isApiError(error)) throw error;
    return { status: error.httpStatus, code: error.code, param: error.details?.param };
  }
  throw new Error('expected a refusal');
}

const item = (overrides: Partial<ResolvedKnowledgeStoreItem> = {}): ResolvedKnowledgeStoreItem => ({
  item_id: 'a'.repeat(24),
  asset_type: 'video',
  status: 'ready',
  video_id: 'v'.repeat(24),
  title: 'clip.mp4',
  duration: 12,
  metadata: {},
  ...overrides,
});

const clip = (overrides: Partial<SearchClip> = {}): SearchClip => ({
  video_id: 'v'.repeat(24),
  start: 1,
  end: 4,
  score: 80,
  confidence: 'high',
  modules: [{ type: 'visual', confidence: 'high', score: 80 }],
  matches: [],
  thumbnail_key: '',
  transcription: '',
  rank: 1,
  user_metadata: {},
  ...overrides,
});

describe('parseKnowledgeSearch', () => {
  it('applies the reference defaults: visual, both kinds of item, no grouping, 10 a page', () => {
    expect(parseKnowledgeSearch({ query: { text: '  a dog running ' } })).toEqual({
      text: 'a dog running',
      modalities: ['visual'],
      assetTypes: ['video', 'image'],
      itemIds: [],
      groupBy: 'none',
      pageSize: 10,
      pageToken: undefined,
      includeMetadata: false,
    });
  });

  it.each([
    [{ filter: { asset_type: { eq: 'video' } } }, { assetTypes: ['video'] }],
    [{ filter: { asset_type: { in: ['image', 'video', 'image'] } } }, { assetTypes: ['image', 'video'] }],
    [{ filter: { item_id: { eq: 'x1' } } }, { itemIds: ['x1'] }],
    [{ filter: { item_id: { in: ['x1', 'x2', 'x1'] } } }, { itemIds: ['x1', 'x2'] }],
    [{ search_options: { video: { modalities: ['audio', 'visual', 'audio'] } } }, { modalities: ['visual', 'audio'] }],
    [{ search_options: { video: { modalities: ['audio'] } } }, { modalities: ['audio'] }],
    [
      { group_by: 'item', page_size: 50, include_metadata: true, page_token: ' ks1.x ' },
      { groupBy: 'item', pageSize: 50, includeMetadata: true, pageToken: 'ks1.x' },
    ],
    // Fields the reference does not name are let through, as elsewhere in v1.3 (API-CONTRACT: parameter_unknown).
    [{ dummy: 1 }, {}],
  ])('reads %j', (fields, expected) => {
    expect(parseKnowledgeSearch({ query: { text: 'a dog' }, ...fields })).toMatchObject(expected);
  });

  it.each([
    ['no body', undefined, 400, 'parameter_not_provided', 'query'],
    ['an array', [], 400, 'parameter_invalid', 'body'],
    ['query as a string', { query: 'a dog' }, 400, 'parameter_invalid', 'query'],
    ['no text', { query: {} }, 400, 'parameter_not_provided', 'query.text'],
    ['text as a number', { query: { text: 5 } }, 400, 'parameter_invalid', 'query.text'],
    ['blank text', { query: { text: '  ' } }, 400, 'parameter_not_provided', 'query.text'],
    ['a huge text', { query: { text: 'word '.repeat(20_000) } }, 400, 'token_limit_exceeded', 'query.text'],
    [
      'an unknown modality',
      { search_options: { video: { modalities: ['smell'] } } },
      400,
      'parameter_invalid',
      'search_options.video.modalities.0',
    ],
    ['no modality', { search_options: { video: { modalities: [] } } }, 400, 'parameter_invalid', 'search_options.video.modalities'],
    [
      'video options without modalities',
      { search_options: { video: {} } },
      400,
      'parameter_not_provided',
      'search_options.video.modalities',
    ],
    [
      'video options over images only',
      { filter: { asset_type: { eq: 'image' } }, search_options: { video: { modalities: ['visual'] } } },
      400,
      'parameter_invalid',
      'search_options.video',
    ],
    ['an unknown asset type', { filter: { asset_type: { eq: 'audio' } } }, 400, 'parameter_invalid', 'filter.asset_type.eq'],
    ['both operators', { filter: { item_id: { eq: 'a', in: ['b'] } } }, 400, 'parameter_invalid', 'filter.item_id'],
    ['no operator', { filter: { asset_type: {} } }, 400, 'parameter_invalid', 'filter.asset_type'],
    [
      '1000 item ids',
      { filter: { item_id: { in: Array.from({ length: 1000 }, (_, i) => `id${i}`) } } },
      400,
      'parameter_invalid',
      'filter.item_id.in',
    ],
    ['an empty id list', { filter: { item_id: { in: [] } } }, 400, 'parameter_invalid', 'filter.item_id.in'],
    ['an id of 10,000 characters', { filter: { item_id: { eq: 'a'.repeat(10_000) } } }, 400, 'parameter_invalid', 'filter.item_id.eq'],
    ['group_by video', { group_by: 'video' }, 400, 'parameter_invalid', 'group_by'],
    ['page_size 0', { page_size: 0 }, 400, 'parameter_invalid', 'page_size'],
    ['page_size 51', { page_size: 51 }, 400, 'parameter_invalid', 'page_size'],
    ['page_size 1.5', { page_size: 1.5 }, 400, 'parameter_invalid', 'page_size'],
    ['page_size as text', { page_size: '10' }, 400, 'parameter_invalid', 'page_size'],
    ['a page token of 5,000 characters', { page_token: 'k'.repeat(5000) }, 400, 'parameter_invalid', 'page_token'],
    ['include_metadata as text', { include_metadata: 'yes' }, 400, 'parameter_invalid', 'include_metadata'],
  ])('refuses %s', (_what, body, status, code, param) => {
    const withQuery =
      body && typeof body === 'object' && !Array.isArray(body) && !('query' in body) ? { query: { text: 'a dog' }, ...body } : body;
    expect(refusal(() => parseKnowledgeSearch(withQuery))).toEqual({ status, code, param });
  });
});

describe('searchScope', () => {
  const video = item({ item_id: 'i1', video_id: 'v1' });
  const image = item({ item_id: 'i2', video_id: 'v2', asset_type: 'image', duration: 0 });
  const VISUAL = ['visual', 'text_in_video', 'logo'];

  it.each([
    ['no item', [], ['visual'], undefined],
    ['no ready item', [item({ status: 'processing', video_id: '' }), item({ status: 'failed', video_id: '' })], ['visual'], undefined],
    ['a ready video', [video], ['visual'], { videoIds: ['v1'], options: VISUAL }],
    ['a ready video, by audio', [video], ['audio'], { videoIds: ['v1'], options: ['conversation'] }],
    ['a ready video, both ways', [video], ['visual', 'audio'], { videoIds: ['v1'], options: [...VISUAL, 'conversation'] }],
    [
      'ready items beside others',
      [video, item({ item_id: 'i3', status: 'queued', video_id: '' })],
      ['visual'],
      { videoIds: ['v1'], options: VISUAL },
    ],
    ['videos and images, visually', [video, image], ['visual', 'audio'], { videoIds: ['v1', 'v2'], options: [...VISUAL, 'conversation'] }],
    // Images are always matched visually, whatever the video modalities.
    ['images only, by audio', [image], ['audio'], { videoIds: ['v2'], options: VISUAL }],
  ])('%s', (_what, items, modalities, expected) => {
    expect(searchScope(items, modalities as ('visual' | 'audio')[])).toEqual(expected);
  });

  it('refuses audio alone over ready videos and images, which one search cannot match both ways', () => {
    expect(refusal(() => searchScope([video, image], ['audio']))).toEqual({
      status: 400,
      code: 'search_option_combination_not_supported',
      param: 'search_options',
    });
  });

  it.each([
    [['video', 'image'], ''],
    [['video'], 'video'],
    [['image'], 'image'],
  ])('asks task-service for asset type %j as %j', (assetTypes, expected) => {
    expect(resolvedAssetType({ assetTypes: assetTypes as ('video' | 'image')[] })).toBe(expected);
  });
});

describe('page tokens', () => {
  const cursor = { storeId: STORE, groupBy: 'item' as const, modalities: ['visual' as const], offset: 20, searchToken: 'set-3' };

  it('carries the cursor through next_page_token', () => {
    expect(decodePageToken(encodePageToken(cursor), STORE)).toEqual(cursor);
  });

  it('moves the offset by the page size, and has none on the last page', () => {
    const page = (next: string): SearchResultPage =>
      ({ page_info: { limit_per_page: 10, total_results: 40, next_page_token: next, prev_page_token: '' } }) as SearchResultPage;
    expect(decodePageToken(nextPageToken(cursor, page('set-4'))!, STORE)).toEqual({ ...cursor, offset: 30, searchToken: 'set-4' });
    expect(nextPageToken(cursor, page(''))).toBeUndefined();
    expect(nextPageToken(cursor, undefined)).toBeUndefined();
  });

  const encoded = (wire: unknown) => `ks1.${Buffer.from(JSON.stringify(wire)).toString('base64url')}`;
  it.each([
    ['a search-service token', '6785b870-66fb-4c0f-a80c-cbf307d2d0f9-2'],
    ['not base64 JSON', 'ks1.!!!'],
    ['JSON of another shape', encoded({ s: STORE })],
    ['an extra field', encoded({ s: STORE, g: 'none', m: [], o: 0, t: 'x', admin: true })],
    ['a negative offset', encoded({ s: STORE, g: 'none', m: [], o: -5, t: 'x' })],
  ])('refuses %s with a 400', (_what, token) => {
    expect(refusal(() => decodePageToken(token, STORE))).toEqual({ status: 400, code: 'parameter_invalid', param: 'page_token' });
  });

  it("refuses another store's token", () => {
    const error = refusal(() => decodePageToken(encodePageToken(cursor), OTHER_STORE));
    expect(error).toEqual({ status: 400, code: 'parameter_invalid', param: 'page_token' });
  });
});

describe('presentKnowledgeSearchPage', () => {
  const video = item({ item_id: 'i1', video_id: 'v1', duration: 30, metadata: { team: 'qa' } });
  const image = item({ item_id: 'i2', video_id: 'v2', asset_type: 'image', duration: 0 });
  const byVideo = itemsByVideo([video, image, item({ item_id: 'i3', status: 'processing', video_id: '' })]);
  const how = { itemsByVideo: byVideo, offset: 0, includeMetadata: false, modalities: ['visual' as const] };
  const clipPage = (clips: SearchClip[]): SearchResultPage => ({ group_by: 'clip', clips, videos: [], page_info: null, search_pool: null });

  it.each([
    ['no page (no ready item)', undefined, how, { data: [], effective_search_options: { video: { modalities: ['visual'] } } }],
    [
      'clips: a video clip with its modalities and words, and an image without times',
      clipPage([
        clip({
          video_id: 'v1',
          start: 2,
          end: 5.5,
          transcription: 'hello there',
          modules: [
            { type: 'conversation', confidence: 'high', score: 90 },
            { type: 'text_in_video', confidence: 'low', score: 20 },
          ],
        }),
        clip({ video_id: 'v2', start: 0, end: 2 }),
      ]),
      { ...how, modalities: ['visual', 'audio'] as const },
      {
        data: [
          {
            asset_type: 'video',
            rank: 1,
            item_id: 'i1',
            matches: [{ start_sec: 2, end_sec: 5.5, modalities: ['visual', 'audio'], transcription: 'hello there' }],
          },
          { asset_type: 'image', rank: 2, item_id: 'i2' },
        ],
        effective_search_options: { video: { modalities: ['visual', 'audio'] } },
      },
    ],
    [
      'a later page: ranks follow the offset; a video no item holds any more is left out, the ranks stay',
      clipPage([clip({ video_id: 'gone' }), clip({ video_id: 'v1', start: 7, end: 9 })]),
      { ...how, offset: 10, nextPageToken: 'ks1.next' },
      {
        data: [{ asset_type: 'video', rank: 12, item_id: 'i1', matches: [{ start_sec: 7, end_sec: 9, modalities: ['visual'] }] }],
        next_page_token: 'ks1.next',
        effective_search_options: { video: { modalities: ['visual'] } },
      },
    ],
    [
      'grouped by item: every clip of the video under it, and metadata when asked',
      {
        group_by: 'video',
        clips: [],
        videos: [
          {
            id: 'v1',
            clips: [clip({ video_id: 'v1', start: 3, end: 4 }), clip({ video_id: 'v1', start: 10, end: 12 })],
            user_metadata: {},
          },
          { id: 'v2', clips: [clip({ video_id: 'v2', start: 0, end: 2 })], user_metadata: {} },
        ],
        page_info: null,
        search_pool: null,
      } satisfies SearchResultPage,
      { ...how, includeMetadata: true },
      {
        data: [
          {
            asset_type: 'video',
            rank: 1,
            item_id: 'i1',
            metadata: { system: { duration: 30 }, user: { team: 'qa' } },
            matches: [
              { start_sec: 3, end_sec: 4, modalities: ['visual'] },
              { start_sec: 10, end_sec: 12, modalities: ['visual'] },
            ],
          },
          { asset_type: 'image', rank: 2, item_id: 'i2', metadata: { system: {}, user: {} } },
        ],
        effective_search_options: { video: { modalities: ['visual'] } },
      },
    ],
    [
      'images only: no video options applied',
      clipPage([clip({ video_id: 'v2' })]),
      { ...how, modalities: [] },
      { data: [{ asset_type: 'image', rank: 1, item_id: 'i2' }], effective_search_options: {} },
    ],
  ])('%s', (_what, page, presentation, expected) => {
    expect(presentKnowledgeSearchPage(page, presentation)).toEqual(expected);
  });
});

describe('the route, over stand-in services', () => {
  const logger = createLogger({ service: 'knowledge-search-test', level: 'silent' });
  /** task-service's store: the items of STORE; any other store is unknown (another organization's too). */
  let storeItems: ResolvedKnowledgeStoreItem[] = [];
  let indexId = 'i'.repeat(24);
  const resolves: ResolveKnowledgeStoreItemsRequest__Input[] = [];
  const searches: SearchRequest__Input[] = [];
  const pages: GetSearchPageRequest__Input[] = [];
  let searchAnswer: SearchResultPage;

  const clients = {
    task: {
      resolveKnowledgeStoreItems: async (_ctx: unknown, req: ResolveKnowledgeStoreItemsRequest__Input) => {
        resolves.push(req);
        if (req.knowledge_store_id !== STORE)
          throw new ApiError('resource_not_exist', `Knowledge store with id ${req.knowledge_store_id} does not exist.`);
        const wanted = req.item_ids ?? [];
        const items = storeItems.filter(
          (i) => (wanted.length === 0 || wanted.includes(i.item_id)) && (!req.asset_type || i.asset_type === req.asset_type),
        );
        return { index_id: indexId, items };
      },
    },
    search: {
      search: async (_ctx: unknown, req: SearchRequest__Input) => (searches.push(req), searchAnswer),
      getSearchPage: async (_ctx: unknown, req: GetSearchPageRequest__Input) => (pages.push(req), searchAnswer),
    },
  } as unknown as Clients;
  const app = express()
    .use(requestContext(logger))
    .use(express.json())
    .use((_req, res, next) => ((res.locals.orgId = 'org-1'), next()))
    .use('/v1.3', routerOf(knowledgeSearchEndpoints({ clients, timeoutMs: 5_000 })))
    .use(errorHandler(logger));
  const post = (body: unknown, store = STORE) =>
    request(app)
      .post(`/v1.3/knowledge-stores/${store}/search`)
      .send(body as object);

  const video = item({ item_id: 'i1', video_id: 'v1' });
  const image = item({ item_id: 'i2', video_id: 'v2', asset_type: 'image', duration: 0 });
  beforeEach(() => {
    storeItems = [video, image, item({ item_id: 'i3', status: 'processing', video_id: '' })];
    indexId = 'i'.repeat(24);
    resolves.length = searches.length = pages.length = 0;
    searchAnswer = {
      group_by: 'clip',
      clips: [clip({ video_id: 'v1', start: 1, end: 3 }), clip({ video_id: 'v2', start: 0, end: 2 })],
      videos: [],
      page_info: {
        limit_per_page: 2,
        total_results: 3,
        next_page_token: 'set-2',
        prev_page_token: '',
        page_expires_at: null,
        total_inner_matches: 3,
      },
      search_pool: null,
    };
  });

  it("searches the ready items' videos of the store's index and names items in the answer", async () => {
    const answer = await post({ query: { text: 'a dog' }, page_size: 2 });
    expect(answer.status).toBe(200);
    expect(resolves).toEqual([{ knowledge_store_id: STORE, item_ids: [], collection_ids: [], asset_type: '' }]);
    expect(searches).toEqual([
      expect.objectContaining({
        index_id: indexId,
        query_text: 'a dog',
        search_options: ['visual', 'text_in_video', 'logo'],
        group_by: 'clip',
        page_limit: 2,
        filter: { ids: ['v1', 'v2'] },
      }),
    ]);
    expect(answer.body).toEqual({
      data: [
        { asset_type: 'video', rank: 1, item_id: 'i1', matches: [{ start_sec: 1, end_sec: 3, modalities: ['visual'] }] },
        { asset_type: 'image', rank: 2, item_id: 'i2' },
      ],
      next_page_token: expect.stringMatching(/^ks1\./),
      effective_search_options: { video: { modalities: ['visual'] } },
    });
  });

  it('narrows by the filter through task-service, and groups by video for group_by item', async () => {
    await post({
      query: { text: 'a dog' },
      filter: { item_id: { in: ['i1'] }, asset_type: { eq: 'video' } },
      search_options: { video: { modalities: ['audio'] } },
      group_by: 'item',
    });
    expect(resolves[0]).toMatchObject({ item_ids: ['i1'], asset_type: 'video' });
    expect(searches[0]).toMatchObject({ search_options: ['conversation'], group_by: 'video', page_limit: 10, filter: { ids: ['v1'] } });
  });

  it('reads a later page by its token, with ranks after the first page, and counts it in no rate limit', async () => {
    const first = await post({ query: { text: 'a dog' }, page_size: 2 });
    searchAnswer = {
      ...searchAnswer,
      clips: [clip({ video_id: 'v1', start: 8, end: 9 })],
      page_info: { ...searchAnswer.page_info!, next_page_token: '' },
    };
    const second = await post({ query: { text: 'a dog' }, page_size: 2, page_token: first.body.next_page_token });
    expect(second.status).toBe(200);
    expect(pages).toEqual([{ page_token: 'set-2', include_user_metadata: false }]);
    expect(resolves[1]).toMatchObject({ item_ids: [], asset_type: '' });
    expect(second.body).toEqual({
      data: [{ asset_type: 'video', rank: 3, item_id: 'i1', matches: [{ start_sec: 8, end_sec: 9, modalities: ['visual'] }] }],
      effective_search_options: { video: { modalities: ['visual'] } },
    });
    const [endpoint] = knowledgeSearchEndpoints({ clients, timeoutMs: 1 });
    expect(categoriesOf(endpoint, { query: { text: 'a dog' } })).toEqual(['search']);
    expect(categoriesOf(endpoint, { query: { text: 'a dog' }, page_token: first.body.next_page_token })).toEqual([]);
  });

  it.each([
    ['no item is ready', () => (storeItems = [item({ status: 'pending', video_id: '' })])],
    ['the store has no item (nor index) yet', () => ((storeItems = []), (indexId = ''))],
  ])('answers an empty page when %s, without searching', async (_what, arrange) => {
    arrange();
    const answer = await post({ query: { text: 'a dog' } });
    expect([answer.status, answer.body]).toEqual([200, { data: [], effective_search_options: { video: { modalities: ['visual'] } } }]);
    expect(searches).toEqual([]);
  });

  it.each([
    ["an unknown (or another organization's) store", OTHER_STORE, { query: { text: 'a dog' } }, 404, 'resource_not_exist'],
    ['a malformed store id', 'nope', { query: { text: 'a dog' } }, 404, 'resource_not_exist'],
    ['no query', STORE, { page_size: 5 }, 400, 'parameter_not_provided'],
    ['a wrong type', STORE, { query: { text: ['a'] } }, 400, 'parameter_invalid'],
    ['a huge text', STORE, { query: { text: 'x'.repeat(50_000) } }, 400, 'token_limit_exceeded'],
    [
      '1000 item ids',
      STORE,
      { query: { text: 'a' }, filter: { item_id: { in: Array.from({ length: 1000 }, (_, i) => `i${i}`) } } },
      400,
      'parameter_invalid',
    ],
    ['a forged page token', STORE, { query: { text: 'a' }, page_token: 'ks1.e30' }, 400, 'parameter_invalid'],
    [
      'audio alone over videos and images',
      STORE,
      { query: { text: 'a' }, search_options: { video: { modalities: ['audio'] } } },
      400,
      'search_option_combination_not_supported',
    ],
  ])('refuses %s in the API format', async (_what, store, body, status, code) => {
    const answer = await post(body, store);
    expect(answer.status).toBe(status);
    expect(answer.body).toEqual({ code, message: expect.any(String) });
    expect(answer.body.message).not.toMatch(/127\.0\.0\.1|\/work\/|node_modules/);
    expect(searches).toEqual([]);
  });
});
