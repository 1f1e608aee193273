import { readQuery } from '../src/http/query';
import { parseArtifactWindow, parseListVideos, parseUpdateVideo } from '../src/routes/videos.schema';
import { codeOf } from '@vus/testing';
import { ADAPTERS } from '../src/versions';

const INDEX = '6528dde58f9cd95a98cbd075';
const IDS = { indexId: INDEX, videoId: '6528dde58f9cd95a98cbd076' };

describe('parseListVideos', () => {
  const filterOf = (search: string) => parseListVideos(INDEX, readQuery(search)).filter!;

  it('reads paging with defaults', () => {
    expect(parseListVideos(INDEX, readQuery('?page=2&page_limit=5&sort_by=updated_at')).page).toEqual({
      page: 2,
      page_limit: 5,
      sort_by: 'updated_at',
      sort_option: '',
    });
  });

  it.each([
    ['?duration=10', { duration: { gte: 10, lte: 10 } }],
    ['?fps[gt]=24&fps[lt]=60', { fps: { gt: 24, lt: 60 } }],
    ['?size[gte]=1e3', { size: { gte: 1000 } }],
    ['?_id=a,b&id=c', { ids: ['a', 'b', 'c'] }],
    ['?filename=x.mp4', { filename: 'x.mp4' }],
  ])('%s', (search, expected) => {
    expect(filterOf(search)).toMatchObject(expected);
  });

  it('turns unknown plain keys into string metadata filters and JSON into typed ones', () => {
    const q = `?topic=cars&n=5&user_metadata=${encodeURIComponent('{"flag":true,"k":2}')}`;
    expect(filterOf(q).user_metadata).toEqual({
      topic: { string_value: 'cars' },
      n: { string_value: '5' },
      flag: { bool_value: true },
      k: { number_value: 2 },
    });
  });

  it.each(['?metadata=[object Object]', '?user_metadata=[object Object]', '?page_limit=10'])(
    'ignores %s as a metadata filter',
    (search) => {
      expect(filterOf(search).user_metadata).toEqual({});
    },
  );

  it.each(['?duration=x', '?user_metadata=[1', '?user_metadata=[1]', '?colour[lt]=2', '?sort_by=size', '?page_limit=100'])(
    'refuses %s',
    (search) => {
      expect(codeOf(() => parseListVideos(INDEX, readQuery(search)))).toBe('parameter_invalid');
    },
  );
});

describe('parseUpdateVideo', () => {
  it.each([
    ['v1.2', 'PUT', { video_title: 't', metadata: { a: 1, b: null } }, { title: 't', replace_user_metadata: false }],
    ['v1.3', 'PATCH', { user_metadata: { a: 1 } }, { replace_user_metadata: false }],
    ['v1.3', 'PUT', { user_metadata: { a: 1 } }, { replace_user_metadata: true }],
    ['v1.2', 'PATCH', { user_metadata: { a: 1 } }, { replace_user_metadata: false }],
  ] as const)('%s %s %j', (version, method, body, expected) => {
    expect(parseUpdateVideo(ADAPTERS[version], method, IDS, body)).toMatchObject({
      index_id: IDS.indexId,
      video_id: IDS.videoId,
      ...expected,
    });
  });

  it('keeps null as a delete marker', () => {
    expect(parseUpdateVideo(ADAPTERS['v1.2'], 'PUT', IDS, { metadata: { gone: null } }).user_metadata).toEqual({
      gone: { null_value: true },
    });
  });

  it.each([
    [{}, 'parameter_not_provided'],
    [{ metadata: { a: { b: 1 } } }, 'parameter_invalid'],
    [{ metadata: '{"a":' }, 'parameter_invalid'],
    [{ video_title: ['x'] }, 'parameter_invalid'],
  ])('refuses %j', (body, code) => {
    expect(codeOf(() => parseUpdateVideo(ADAPTERS['v1.2'], 'PUT', IDS, body))).toBe(code);
  });
});

describe('parseArtifactWindow', () => {
  it.each([
    ['', {}],
    ['?start=1.5', { start: 1.5 }],
    ['?start=0&end=4', { start: 0, end: 4 }],
  ])('%s', (search, expected) => {
    expect(parseArtifactWindow(readQuery(search))).toEqual(expected);
  });

  it.each(['?start=-1', '?end=x', '?start=3&end=1'])('refuses %s', (search) => {
    expect(codeOf(() => parseArtifactWindow(readQuery(search)))).toBe('parameter_invalid');
  });
});
