import type { Engine } from '@vus/grpc/types/index/v1/Engine';
import type { Index } from '@vus/grpc/types/index/v1/Index';
import type { SearchClip } from '@vus/grpc/types/search/v1/SearchClip';
import type { SearchResultPage } from '@vus/grpc/types/search/v1/SearchResultPage';
import type { Task } from '@vus/grpc/types/task/v1/Task';
import { ApiError } from '@vus/core';
import { codeOf } from '@vus/testing';
import { readQuery } from '../src/http/query';
import { presentSearchPage } from '../src/presenters/search';
import { presentStatusCounts, presentTask } from '../src/presenters/tasks';
import { parseSearch } from '../src/routes/search.schema';
import { parseCreateTask } from '../src/routes/tasks.schema';
import { endpointName } from '../src/endpoints/endpoint';
import { parseRetrieveVideo, parseUpdateVideo } from '../src/routes/videos.schema';
import {
  ADAPTERS,
  canonicalToV13Options,
  familyOfModel,
  named,
  presentError,
  requireEndpoint,
  SERVED_VERSIONS,
  TASK_STATUSES,
  UNSERVED_VERSIONS,
  V12_OPTIONS,
  v13FilterToCanonical,
  v13ToCanonicalOptions,
  type VersionedEndpoint,
  type VideoMetadataParts,
} from '../src/versions';

const adapters = Object.entries(ADAPTERS);
const INDEX = '6528dde58f9cd95a98cbd075';
const IDS = { indexId: INDEX, videoId: '6528dde58f9cd95a98cbd076' };

describe('the registry', () => {
  it('serves every version of the API', () => {
    expect(SERVED_VERSIONS).toEqual(['v1', 'v1.1', 'v1.1.1', 'v1.1.2', 'v1.2', 'v1.3']);
    expect(UNSERVED_VERSIONS).toEqual([]);
  });

  it.each(adapters)('%s is registered under its own name', (name, adapter) => {
    expect(adapter.name).toBe(name);
  });

  it.each([
    ['v1.1.1', 'v1.1'],
    ['v1.1.2', 'v1.1'],
  ] as const)('%s is a revision of %s, served with its shapes', (name, of) => {
    const shapes = (version: string) => ({ ...ADAPTERS[version as keyof typeof ADAPTERS], name: '', revisionOf: '', classify: undefined });
    expect(ADAPTERS[name].revisionOf).toBe(of);
    expect(shapes(name)).toEqual(shapes(of));
    expect(ADAPTERS[name].classify).not.toEqual(ADAPTERS[of].classify);
  });
});

// What every adapter must satisfy, so that a new version module cannot half-describe a mapping.
describe.each(adapters)('%s is complete', (_name, adapter) => {
  it('shows every canonical task status under exactly one of its names', () => {
    for (const status of TASK_STATUSES) {
      expect([status, Object.values(adapter.tasks.statuses).filter((canonical) => canonical.includes(status)).length]).toEqual([status, 1]);
    }
  });

  it('maps every search option name to canonical options only', () => {
    for (const canonical of Object.values(adapter.search.options)) {
      expect(canonical.length).toBeGreaterThan(0);
      for (const option of canonical) expect(V12_OPTIONS).toContain(option);
    }
  });
});

describe('requireEndpoint', () => {
  const removedInV13: VersionedEndpoint[] = [
    'GET /tasks/status',
    'POST /tasks/external-provider',
    'POST /tasks/transfers',
    'GET /indexes/{index_id}/videos/{video_id}/transcription',
    'GET /indexes/{index_id}/videos/{video_id}/text-in-video',
    'GET /indexes/{index_id}/videos/{video_id}/logo',
    'GET /indexes/{index_id}/videos/{video_id}/thumbnail',
    'POST /search-v2',
    'POST /combined-search',
  ];
  it.each(removedInV13)('v1.2 has %s; v1.3 answers endpoint_not_found', (endpoint) => {
    expect(codeOf(() => requireEndpoint(ADAPTERS['v1.2'], endpoint))).toBe(false);
    expect(codeOf(() => requireEndpoint(ADAPTERS['v1.3'], endpoint))).toBe('endpoint_not_found');
  });

  it('says where removed data went', () => {
    expect(() => requireEndpoint(ADAPTERS['v1.3'], 'GET /indexes/{index_id}/videos/{video_id}/transcription')).toThrow(
      'Use GET /indexes/{index_id}/videos/{video_id}?transcription=true.',
    );
  });
});

describe('presentError', () => {
  const error = new ApiError('resource_not_exist', 'Index 1 does not exist.');
  it.each([['v1.2'], ['v1.3'], [undefined]] as const)('%s: {code, message}', (version) => {
    expect(presentError(version, error)).toEqual({ code: 'resource_not_exist', message: 'Index 1 does not exist.' });
  });
});

describe('named', () => {
  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])('does not take the inherited %s for a name', (name) => {
    expect(named(ADAPTERS['v1.2'].tasks.statuses, name)).toBeUndefined();
    expect(named(ADAPTERS['v1.3'].search.options, name)).toBeUndefined();
  });
});

describe('indexes.parseCreate', () => {
  it.each([
    [
      'v1.2 engines',
      'v1.2',
      { index_name: 'ads', engines: [{ engine_name: 'marengo2.6', engine_options: ['visual', 'conversation'] }], addons: ['thumbnail'] },
      { name: 'ads', models: [{ name: 'marengo2.6', options: ['visual', 'conversation'] }], addons: ['thumbnail'] },
    ],
    [
      'v1.2 deprecated engine_id + index_options',
      'v1.2',
      { index_name: 'a', engine_id: 'marengo2.5', index_options: 'visual,logo' },
      { name: 'a', models: [{ name: 'marengo2.5', options: ['visual', 'logo'] }], addons: [] },
    ],
    [
      'v1.2 deprecated engine_id + indexing_options',
      'v1.2',
      { index_name: 'a', engine_id: 'marengo2.5', indexing_options: ['visual'] },
      { name: 'a', models: [{ name: 'marengo2.5', options: ['visual'] }], addons: [] },
    ],
    [
      'v1.3 models with visual and audio',
      'v1.3',
      { index_name: 'a', models: [{ model_name: 'pegasus1.2', model_options: ['visual', 'audio'] }] },
      { name: 'a', models: [{ name: 'pegasus1.2', options: ['visual', 'conversation'] }], addons: [] },
    ],
    [
      'v1.3 Marengo visual means text and logos too',
      'v1.3',
      { index_name: 'a', models: [{ model_name: 'marengo2.7', model_options: 'visual' }], addons: 'thumbnail' },
      { name: 'a', models: [{ name: 'marengo2.7', options: ['visual', 'text_in_video', 'logo'] }], addons: ['thumbnail'] },
    ],
  ] as const)('%s', (_case, version, body, expected) => {
    expect(ADAPTERS[version].indexes.parseCreate(body)).toEqual(expected);
  });

  it.each([
    ['v1.2', {}, 'parameter_not_provided'],
    ['v1.2', { index_name: 'a' }, 'parameter_not_provided'],
    ['v1.2', { index_name: 'a', engine_id: 'marengo2.6' }, 'parameter_not_provided'],
    ['v1.2', { index_name: 'a', engines: [{ engine_name: 'marengo2.6', engine_options: ['smell'] }] }, 'parameter_invalid'],
    ['v1.2', { index_name: 'a', engines: [{ engine_name: 'marengo2.6', engine_options: ['audio'] }] }, 'parameter_invalid'],
    ['v1.2', { index_name: 42, engines: [] }, 'parameter_invalid'],
    ['v1.2', { index_name: 'a', engines: 'marengo' }, 'parameter_invalid'],
    // The newer version's names are not silently accepted, nor the older's.
    ['v1.2', { index_name: 'a', models: [{ model_name: 'marengo2.7', model_options: ['visual'] }] }, 'parameter_not_provided'],
    ['v1.3', { index_name: 'a', engines: [{ engine_name: 'marengo2.6', engine_options: ['visual'] }] }, 'parameter_not_provided'],
    ['v1.3', { index_name: 'a', models: [{ model_name: 'marengo2.7', model_options: ['taste'] }] }, 'parameter_invalid'],
    ['v1.3', [], 'parameter_invalid'],
  ] as const)('%s %j → %s', (version, body, code) => {
    expect(codeOf(() => ADAPTERS[version].indexes.parseCreate(body))).toBe(code);
  });
});

describe('indexes.presentModels', () => {
  const index = {
    addons: ['thumbnail'],
    models: [
      { name: 'marengo2.6', options: ['visual', 'conversation', 'text_in_video', 'logo'] },
      { name: 'pegasus1.1', options: ['visual'] },
    ],
  } as unknown as Index;
  it.each([
    [
      'v1.2',
      {
        engines: [
          { engine_name: 'marengo2.6', engine_options: ['visual', 'conversation', 'text_in_video', 'logo'], addons: ['thumbnail'] },
          { engine_name: 'pegasus1.1', engine_options: ['visual'], addons: ['thumbnail'] },
        ],
      },
    ],
    [
      'v1.3',
      {
        models: [
          { model_name: 'marengo2.6', model_options: ['visual', 'audio'] },
          { model_name: 'pegasus1.1', model_options: ['visual'] },
        ],
      },
    ],
  ] as const)('%s', (version, expected) => {
    expect(ADAPTERS[version].indexes.presentModels(index)).toEqual(expected);
  });
});

describe('indexes option and family filters', () => {
  it.each([
    ['v1.2', ['engine_options', 'index_options'], 'engine_family', ['visual', 'logo'], ['visual', 'logo']],
    ['v1.3', ['model_options', 'engine_options'], 'model_family', ['audio', 'visual', 'conversation'], ['conversation', 'visual']],
  ] as const)('%s reads %j and %s', (version, keys, family, asked, canonical) => {
    const { optionFilter, familyFilter } = ADAPTERS[version].indexes;
    expect([optionFilter.keys, familyFilter]).toEqual([keys, family]);
    expect(optionFilter.toCanonical(asked)).toEqual(canonical);
  });
});

describe('engines.presentFields', () => {
  const engine = {
    id: 'marengo2.6',
    family: 'marengo',
    allowed_options: ['visual', 'conversation', 'text_in_video', 'logo'],
  } as unknown as Engine;
  it.each([
    ['v1.2', { allowed_engine_options: ['visual', 'conversation', 'text_in_video', 'logo'] }],
    ['v1.3', { model_name: 'marengo2.6', model_family: 'marengo', allowed_model_options: ['visual', 'audio'] }],
  ] as const)('%s', (version, expected) => {
    expect(ADAPTERS[version].engines.presentFields(engine)).toEqual(expected);
  });
});

describe('videos', () => {
  const parts: VideoMetadataParts = {
    system: { filename: 'a.mp4', duration: 10, fps: 25, width: 640, height: 480, size: 1000 },
    user: { topic: 'cars', filename: 'mine' },
    title: 'Cars',
    transcription: [{ start: 0, end: 1, value: 'hi' }],
  };
  it.each([
    // v1.2: one object; the system fields win over a user key of the same name.
    [
      'v1.2',
      parts,
      { metadata: { topic: 'cars', video_title: 'Cars', filename: 'a.mp4', duration: 10, fps: 25, width: 640, height: 480, size: 1000 } },
    ],
    [
      'v1.2',
      { ...parts, title: '' },
      { metadata: { topic: 'cars', filename: 'a.mp4', duration: 10, fps: 25, width: 640, height: 480, size: 1000 } },
    ],
    ['v1.3', parts, { system_metadata: parts.system, user_metadata: parts.user, transcription: parts.transcription }],
    ['v1.3', { ...parts, transcription: undefined }, { system_metadata: parts.system, user_metadata: parts.user }],
  ] as const)('%s presents metadata', (version, given, expected) => {
    expect(ADAPTERS[version].videos.presentMetadata(given)).toEqual(expected);
  });

  it.each([
    ['v1.2', 'PUT', { metadata: { a: 1 } }, false],
    ['v1.2', 'PATCH', { metadata: { a: 1 } }, false],
    ['v1.3', 'PUT', { user_metadata: { a: 1 } }, true],
    ['v1.3', 'PATCH', { user_metadata: { a: 1 } }, false],
  ] as const)('%s %s %j replaces the user metadata: %s', (version, method, body, replaces) => {
    expect(parseUpdateVideo(ADAPTERS[version], method, IDS, body).replace_user_metadata).toBe(replaces);
  });

  it.each([
    ['v1.2', 'metadata'],
    ['v1.3', 'user_metadata'],
  ] as const)('%s names %s when an update changes nothing', (version, field) => {
    expect(() => parseUpdateVideo(ADAPTERS[version], 'PATCH', IDS, {})).toThrow(`The ${field} parameter is required`);
  });

  it.each([
    ['v1.2', false],
    ['v1.3', true],
  ] as const)('%s reads ?transcription=true: %s', (version, read) => {
    expect(parseRetrieveVideo(ADAPTERS[version], readQuery('?transcription=true'))).toEqual({ transcription: read });
  });
});

describe('tasks', () => {
  it.each([
    ['validating', ['uploading', 'validating'], ['validating']],
    ['pending', ['pending', 'queued'], ['pending']],
    ['queued', undefined, ['queued']],
    ['uploading', undefined, ['uploading']],
    ['ready', ['ready'], ['ready']],
  ] as const)('status filter %s: v1.2 %j, v1.3 %j', (status, v12, v13) => {
    expect(named(ADAPTERS['v1.2'].tasks.statuses, status)).toEqual(v12);
    expect(named(ADAPTERS['v1.3'].tasks.statuses, status)).toEqual(v13);
  });

  const at = (seconds: number) => ({ seconds, nanos: 0 });
  const task = {
    id: 't1',
    index_id: INDEX,
    video_id: 'v1',
    status: 'queued',
    failure: null,
    hls: null,
    system_metadata: { filename: 'a.mp4', duration: 10, width: 640, height: 480 },
    process: { percentage: 40, remain_seconds: 6 },
    estimated_time: at(100),
    created_at: at(1),
    updated_at: at(2),
  } as unknown as Task;
  const common = { _id: 't1', index_id: INDEX, created_at: '1970-01-01T00:00:01.000Z', updated_at: '1970-01-01T00:00:02.000Z' };
  const metadata = { filename: 'a.mp4', duration: 10, width: 640, height: 480 };
  it.each([
    [
      'v1.2',
      task,
      {
        ...common,
        status: 'pending',
        metadata,
        estimated_time: '1970-01-01T00:01:40.000Z',
        process: { percentage: 40, remain_seconds: 6 },
      },
    ],
    ['v1.2', { ...task, status: 'ready', process: null, estimated_time: null }, { ...common, status: 'ready', video_id: 'v1', metadata }],
    ['v1.3', task, { ...common, status: 'queued', video_id: 'v1', system_metadata: metadata }],
  ] as const)('%s presents a task', (version, given, expected) => {
    expect(presentTask(ADAPTERS[version], given)).toEqual(expected);
  });

  it('v1.2 counts each status it shows, in its order', () => {
    const counts = {
      index_id: INDEX,
      uploading: 1,
      validating: 2,
      pending: 3,
      queued: 4,
      indexing: 5,
      ready: 6,
      failed: 7,
      total_result: 28,
    };
    const shown = presentStatusCounts(ADAPTERS['v1.2'], counts);
    expect(Object.entries(shown)).toEqual([
      ['index_id', INDEX],
      ['ready', 6],
      ['validating', 3],
      ['pending', 7],
      ['indexing', 5],
      ['failed', 7],
      ['total_result', 28],
    ]);
  });

  const upload = {
    index_id: INDEX,
    video_url: 'https://example.com/a.mp4',
    enable_video_stream: 'true',
    disable_video_stream: 'true',
    user_metadata: '{"topic":"cars"}',
  };
  it.each([
    // v1.2 reads only disable_video_stream, and no user metadata.
    ['v1.2', { enable_video_stream: false }, false],
    ['v1.3', { enable_video_stream: true, user_metadata: { topic: { string_value: 'cars' } } }, true],
  ] as const)('%s POST /tasks reads its stream switch and metadata', (version, expected, hasMetadata) => {
    const { request } = parseCreateTask(ADAPTERS[version], upload, [], undefined);
    expect(request).toMatchObject(expected);
    expect('user_metadata' in request).toBe(hasMetadata);
  });

  it.each([
    ['v1.2', 201, false],
    ['v1.3', 200, true],
  ] as const)('%s answers POST /tasks with %i, naming the video: %s', (version, status, withVideoId) => {
    expect(ADAPTERS[version].tasks.created).toEqual({ status, withVideoId });
  });
});

describe('search', () => {
  const clip = {
    rank: 2,
    transcription: 'said',
    matches: [
      { type: 'visual', text: 'not shown' },
      { type: 'conversation', text: 'said' },
      { type: 'logo', text: '' },
    ],
    modules: [{ type: 'visual', confidence: 'high' }],
  } as unknown as SearchClip;
  it.each([
    [
      'v1.2',
      clip,
      {
        metadata: [{ type: 'visual' }, { type: 'conversation', text: 'said' }, { type: 'logo' }],
        modules: [{ type: 'visual', confidence: 'high' }],
      },
    ],
    ['v1.3', clip, { rank: 2, transcription: 'said' }],
    ['v1.3', { ...clip, transcription: '' }, { rank: 2 }],
  ] as const)('%s clip fields', (version, given, expected) => {
    expect(ADAPTERS[version].search.presentClipFields(given)).toEqual(expected);
  });

  it.each([
    ['v1.2', { page_expired_at: '1970-01-01T01:00:00.000Z' }, undefined],
    ['v1.3', { page_expires_at: '1970-01-01T01:00:00.000Z' }, { topic: 'cars' }],
  ] as const)('%s pages: expiry %j, user metadata %j', (version, expiry, userMetadata) => {
    const page = {
      group_by: 'video',
      clips: [],
      videos: [
        {
          id: 'v1',
          clips: [{ ...clip, video_id: 'v1', user_metadata: { topic: { kind: 'string_value', string_value: 'cars' } } }],
          user_metadata: { topic: { kind: 'string_value', string_value: 'cars' } },
        },
      ],
      page_info: {
        limit_per_page: 10,
        total_results: 1,
        page_expires_at: { seconds: 3600, nanos: 0 },
        next_page_token: '',
        prev_page_token: '',
        total_inner_matches: 1,
      },
      search_pool: { total_count: 1, total_duration: 10, index_id: INDEX },
    } as unknown as SearchResultPage;
    const shown = presentSearchPage(page, { version: ADAPTERS[version], thumbnailUrl: () => undefined }) as {
      data: Record<string, unknown>[];
      page_info: object;
    };
    expect(shown.page_info).toEqual({ limit_per_page: 10, total_results: 1, ...expiry, next_page_token: null, total_inner_matches: 1 });
    expect(shown.data[0]!.user_metadata).toEqual(userMetadata);
    expect((shown.data[0]!.clips as Record<string, unknown>[])[0]!.user_metadata).toEqual(userMetadata);
  });

  it.each([
    // v1.2's JSON search names its text `query`; v1.3 reads conversation_option no more (ignored, not refused).
    ['v1.2', 'query', 'exact_match'],
    ['v1.3', 'query_text', ''],
  ] as const)('%s names a missing text %s and reads conversation_option as %j', (version, missing, conversation) => {
    const body = { index_id: INDEX, search_options: ['visual'], conversation_option: 'exact_match' };
    expect(() => parseSearch(ADAPTERS[version], { ...body, query: ' ' })).toThrow(`The ${missing} parameter is required`);
    expect(parseSearch(ADAPTERS[version], { ...body, query_text: 'a dog' }).conversation_option).toBe(conversation);
  });
});

describe('v13ToCanonicalOptions', () => {
  it.each([
    ['marengo2.7', ['visual'], ['visual', 'text_in_video', 'logo']],
    ['marengo2.7', ['audio'], ['conversation']],
    ['marengo2.7', ['visual', 'audio'], ['visual', 'text_in_video', 'logo', 'conversation']],
    // Pegasus has no on-screen text or logo options.
    ['pegasus1.2', ['visual', 'audio'], ['visual', 'conversation']],
    // Legacy names pass through; duplicates collapse.
    ['marengo2.7', ['conversation', 'audio'], ['conversation']],
    ['marengo2.7', ['logo'], ['logo']],
  ] as const)('%s %p → %p', (model, options, expected) => {
    expect(v13ToCanonicalOptions(model, options)).toEqual(expected);
  });
});

describe('canonicalToV13Options', () => {
  it.each([
    [
      ['visual', 'conversation'],
      ['visual', 'audio'],
    ],
    [['text_in_video'], ['visual']],
    [['logo', 'text_in_video', 'visual'], ['visual']],
    [['conversation'], ['audio']],
    [[], []],
  ])('%p → %p', (options, expected) => {
    expect(canonicalToV13Options(options)).toEqual(expected);
  });

  it('round-trips what v1.3 creates', () => {
    for (const options of [['visual'], ['audio'], ['visual', 'audio']] as const) {
      expect(canonicalToV13Options(v13ToCanonicalOptions('marengo3.0', options))).toEqual(options);
    }
  });
});

describe('v13FilterToCanonical', () => {
  it('maps audio to conversation', () => {
    expect(v13FilterToCanonical(['audio', 'visual'])).toEqual(['conversation', 'visual']);
  });
});

describe('familyOfModel', () => {
  it.each([
    ['marengo2.6', 'marengo'],
    ['pegasus1', 'pegasus'],
    ['whisper', undefined],
  ])('%s → %p', (name, family) => {
    expect(familyOfModel(name)).toBe(family);
  });
});

// v1 and v1.1 (with its revisions v1.1.1 and v1.1.2): one engine per index, the JSON search only.
describe('versions before v1.2', () => {
  it.each([
    [
      'v1.1 engine_id + index_options',
      'v1.1',
      { index_name: 'a', engine_id: 'marengo2.5', index_options: ['visual', 'logo'], addons: ['thumbnail'] },
      { name: 'a', models: [{ name: 'marengo2.5', options: ['visual', 'logo'] }], addons: ['thumbnail'] },
    ],
    [
      'v1.1.2 the same',
      'v1.1.2',
      { index_name: 'a', engine_id: 'marengo2.5', index_options: 'conversation' },
      { name: 'a', models: [{ name: 'marengo2.5', options: ['conversation'] }], addons: [] },
    ],
    [
      'v1 without logo',
      'v1',
      { index_name: 'a', engine_id: 'marengo2.5', index_options: ['visual', 'text_in_video'] },
      { name: 'a', models: [{ name: 'marengo2.5', options: ['visual', 'text_in_video'] }], addons: [] },
    ],
  ] as const)('parseCreate: %s', (_case, version, body, expected) => {
    expect(ADAPTERS[version].indexes.parseCreate(body)).toEqual(expected);
  });

  it.each([
    // The newer versions' names get the older version's error: engine_id is what is missing.
    [
      'v1.1',
      { index_name: 'a', engines: [{ engine_name: 'marengo2.6', engine_options: ['visual'] }] },
      'parameter_not_provided',
      'engine_id',
    ],
    ['v1.1', { index_name: 'a', models: [{ model_name: 'marengo2.7', model_options: ['visual'] }] }, 'parameter_not_provided', 'engine_id'],
    [
      'v1',
      { index_name: 'a', engines: [{ engine_name: 'marengo2.6', engine_options: ['visual'] }] },
      'parameter_not_provided',
      'engine_id',
    ],
    ['v1.1', { index_name: 'a', engine_id: 'marengo2.5' }, 'parameter_not_provided', 'index_options'],
    ['v1.1', { index_name: 'a', engine_id: 'marengo2.5', index_options: [] }, 'parameter_invalid', 'index_options'],
    ['v1.1', { index_name: 'a', engine_id: 'marengo2.5', index_options: ['audio'] }, 'parameter_invalid', 'index_options'],
    ['v1', { index_name: 'a', engine_id: 'marengo2.5', index_options: ['logo'] }, 'parameter_invalid', 'index_options'],
  ] as const)('parseCreate %s %j → %s naming %s', (version, body, code, param) => {
    expect(codeOf(() => ADAPTERS[version].indexes.parseCreate(body))).toBe(code);
    expect(() => ADAPTERS[version].indexes.parseCreate(body)).toThrow(param);
  });

  it('shows an index by its Marengo engine, even one made with several engines', () => {
    const index = {
      models: [
        { name: 'pegasus1.1', options: ['visual'] },
        { name: 'marengo2.6', options: ['visual', 'logo'] },
      ],
    } as unknown as Index;
    for (const version of ['v1', 'v1.1', 'v1.1.1', 'v1.1.2'] as const) {
      expect(ADAPTERS[version].indexes.presentModels(index)).toEqual({ engine_id: 'marengo2.6', index_options: ['visual', 'logo'] });
    }
  });

  it('engines name their options allowed_index_options', () => {
    const engine = { id: 'marengo2.5', allowed_options: ['visual', 'logo'] } as unknown as Engine;
    expect(ADAPTERS['v1.1'].engines.presentFields(engine)).toEqual({ allowed_index_options: ['visual', 'logo'] });
    expect(ADAPTERS.v1.engines.presentFields(engine)).toEqual({ allowed_index_options: ['visual', 'logo'] });
  });

  it.each([
    ['v1.1', 'POST /gist', 'api_upgrade_required', 'starting with version v1.2. Your version is v1.1.'],
    ['v1.1', 'POST /search-v2', 'api_upgrade_required', 'v1.2'],
    ['v1.1', 'POST /tasks/external-provider', 'api_upgrade_required', 'v1.2'],
    ['v1.1', 'POST /analyze', 'api_upgrade_required', 'v1.3'],
    ['v1.1', 'GET /tasks/{task_id}/video-id', 'endpoint_not_found', 'Read video_id from GET /tasks/{task_id}'],
    ['v1.2', 'GET /tasks/{task_id}/video-id', 'endpoint_not_found', 'Read video_id'],
    ['v1', 'POST /combined-search', 'api_upgrade_required', 'starting with version v1.1. Your version is v1.'],
    ['v1', 'GET /tasks/status', 'api_upgrade_required', 'v1.1'],
    ['v1', 'GET /indexes/{index_id}/videos/{video_id}/thumbnail', 'api_upgrade_required', 'v1.1'],
    ['v1', 'POST /generate', 'api_upgrade_required', 'Your version is v1.'],
  ] as const)('%s %s → %s', (version, endpoint, code, message) => {
    expect(codeOf(() => requireEndpoint(ADAPTERS[version], endpoint))).toBe(code);
    expect(() => requireEndpoint(ADAPTERS[version], endpoint)).toThrow(message);
  });

  it('an endpoint added later points docs_url at the version that has it (v1.1 on; v1 had no docs_url)', () => {
    const error = (() => {
      try {
        requireEndpoint(ADAPTERS['v1.1'], 'POST /gist');
      } catch (caught) {
        return caught as ApiError;
      }
      throw new Error('not refused');
    })();
    expect(presentError('v1.1', error)).toEqual({
      code: 'api_upgrade_required',
      message: expect.any(String),
      docs_url: '/docs?version=v1.2',
    });
    expect(presentError('v1', error)).toEqual({ error_code: 'api_upgrade_required', message: expect.any(String) });
    expect(presentError('v1.1', new ApiError('parameter_invalid', 'x', { param: 'a' }))).toEqual({
      code: 'parameter_invalid',
      message: 'x',
    });
  });

  it.each([
    ['v1.1', 'POST /combined-search'],
    ['v1.1', 'GET /indexes/{index_id}/videos/{video_id}/logo'],
    ['v1.1', 'GET /tasks/status'],
    ['v1', 'GET /tasks/{task_id}/video-id'],
    ['v1', 'GET /indexes/{index_id}/videos/{video_id}/transcription'],
  ] as const)('%s has %s', (version, endpoint) => {
    expect(codeOf(() => requireEndpoint(ADAPTERS[version], endpoint))).toBe(false);
  });

  it.each([
    [
      'v1.1',
      {
        metadata: [{ type: 'visual' }, { type: 'conversation', text: 'said' }],
        module_confidence: { visual: 'high', conversation: 'low' },
      },
    ],
    ['v1', { metadata: [{ type: 'visual' }, { type: 'conversation', text: 'said' }] }],
  ] as const)('%s clip fields', (version, expected) => {
    const clip = {
      matches: [
        { type: 'visual', text: 'x' },
        { type: 'conversation', text: 'said' },
      ],
      modules: [
        { type: 'visual', confidence: 'high' },
        { type: 'conversation', confidence: 'low' },
      ],
    } as unknown as SearchClip;
    expect(ADAPTERS[version].search.presentClipFields(clip)).toEqual(expected);
  });

  it.each([
    ['v1.1', { total_results: 3, page_expired_at: '1970-01-01T01:00:00.000Z', next_page_token: 'n', prev_page_token: 'p' }],
    ['v1', { total_result: 3, page_expired_at: '1970-01-01T01:00:00.000Z', next_page_id: 'n', prev_page_id: 'p' }],
  ] as const)('%s page_info names', (version, expected) => {
    const page = {
      group_by: 'clip',
      clips: [],
      videos: [],
      page_info: {
        limit_per_page: 10,
        total_results: 3,
        page_expires_at: { seconds: 3600, nanos: 0 },
        next_page_token: 'n',
        prev_page_token: 'p',
      },
      search_pool: { total_count: 1, total_duration: 10, index_id: INDEX },
    } as unknown as SearchResultPage;
    const shown = presentSearchPage(page, { version: ADAPTERS[version], thumbnailUrl: () => undefined }) as { page_info: object };
    expect(shown.page_info).toEqual({ limit_per_page: 10, ...expected });
  });

  it.each(['v1', 'v1.1', 'v1.1.2'] as const)('%s reads only the JSON query: query_text alone lacks query', (version) => {
    const body = { index_id: INDEX, search_options: ['visual'], query_text: 'a dog', query_media_url: 'https://example.com/a.png' };
    expect(() => parseSearch(ADAPTERS[version], body)).toThrow('The query parameter is required');
    expect(parseSearch(ADAPTERS[version], { ...body, query: 'a dog' })).toMatchObject({ query_text: 'a dog', query_media: null });
  });

  it('v1 has no logo search option', () => {
    expect(codeOf(() => parseSearch(ADAPTERS.v1, { index_id: INDEX, search_options: ['logo'], query: 'x' }))).toBe('parameter_invalid');
  });

  it.each([
    [
      new ApiError('parameter_not_provided', 'The index_id parameter is required.'),
      { error_code: 102, message: 'The index_id parameter is required.' },
    ],
    [new ApiError('resource_not_exist', 'gone'), { error_code: 201, message: 'gone' }],
    [new ApiError('too_many_requests', 'slow down'), { error_code: 'too_many_requests', message: 'slow down' }],
  ])('v1 errors: %s → %j', (error, body) => {
    expect(presentError('v1', error)).toEqual(body);
    expect(presentError('v1.1', error)).toEqual({ code: error.code, message: error.message });
  });

  it.each([
    ['v1.1', { classesField: 'labels', videos: 'video_id', threshold: 'level' }],
    ['v1.1.1', { classesField: 'classes', videos: 'video_id', threshold: 'integer' }],
    ['v1.1.2', { classesField: 'classes', videos: 'video_ids', threshold: 'object' }],
    ['v1.2', { classesField: 'classes', videos: 'video_ids', threshold: 'object' }],
    ['v1', undefined],
    ['v1.3', undefined],
  ] as const)('%s classify names %j', (version, expected) => {
    expect(ADAPTERS[version].classify).toEqual(expected);
  });
});

describe('endpointName', () => {
  it.each([
    [{ method: 'get', path: '/indexes/:indexId/videos/:videoId/transcription' }, 'GET /indexes/{index_id}/videos/{video_id}/transcription'],
    // v1 serves the task endpoints under /indexes: the same endpoint, the same name.
    [{ method: 'get', path: '/tasks/:taskId/video-id', mount: '/indexes' }, 'GET /tasks/{task_id}/video-id'],
    [{ method: 'get', path: '/indexes/:indexId' }, 'GET /indexes/{index_id}'],
    [{ method: 'post', path: '/gist' }, 'POST /gist'],
  ] as const)('%j → %s', (endpoint, name) => {
    expect(endpointName(endpoint)).toBe(name);
  });
});
