import type { ApiError } from '@vus/core';
import type { VersionAdapter } from './adapter';
import { addedSinceV12, engineIdCreateParser, presentEngineId, upgradeTo, v11 } from './v1.1';

/** v1's vocabulary: logo became an index option in v1.1. */
export const V1_OPTIONS = ['visual', 'conversation', 'text_in_video'] as const;

/** v1's numeric error codes (API-CONTRACT §2.5, the 2022 draft); codes it had no number for stay strings. */
const V1_ERROR_CODES: Readonly<Record<string, number>> = {
  api_key_invalid: 101,
  unauthorized: 101,
  parameter_not_provided: 102,
  parameter_unknown: 103,
  parameter_invalid: 104,
  resource_not_exist: 201,
  index_not_found: 201,
  video_not_found: 201,
  task_not_found: 201,
  video_file_broken: 401,
  search_option_not_supported: 501,
};

/** `{error_code, message}`: the number where v1 had one, else the code. */
export function presentV1Error(error: ApiError): Record<string, unknown> {
  return { error_code: V1_ERROR_CODES[error.code] ?? error.code, message: error.message };
}

/**
 * v1 (the 2022 draft, API-CONTRACT [DRAFT-v1]): v1.1's index and engine shapes without `logo`;
 * the task endpoints under `/indexes/tasks…` (with `/indexes/tasks/{id}/video-id`); a `type` on
 * success bodies; `next_page_id`/`prev_page_id` and `total_result` in search pages; clips with
 * `metadata` only; `{error_code, message}` errors. No thumbnails, logo, task counts or combined
 * queries yet.
 */
export const v1: VersionAdapter = {
  ...v11,
  name: 'v1',
  deprecation: { successor: 'v1.1' },
  unavailable: {
    ...addedSinceV12('v1'),
    'GET /tasks/status': upgradeTo('v1.1', 'v1'),
    'GET /indexes/{index_id}/videos/{video_id}/thumbnail': upgradeTo('v1.1', 'v1'),
    'GET /indexes/{index_id}/videos/{video_id}/logo': upgradeTo('v1.1', 'v1'),
    'POST /combined-search': upgradeTo('v1.1', 'v1'),
    'POST /classify': upgradeTo('v1.1', 'v1'),
  },
  // The draft's names; those it does not show are [INF] and follow its pattern.
  successTypes: {
    'POST /indexes': 'index_create',
    'GET /indexes': 'index_list',
    'GET /indexes/{index_id}': 'get_index',
    'GET /engines': 'engine_list',
    'GET /engines/{engine_id}': 'engine',
    'POST /tasks': 'index_task_create',
    'GET /tasks': 'index_task_list',
    'GET /tasks/{task_id}': 'index_task',
    'GET /tasks/{task_id}/video-id': 'index_task_video_id',
    'POST /tasks/transfers': 'transfers',
    'GET /indexes/{index_id}/videos': 'video_list',
    'GET /indexes/{index_id}/videos/{video_id}': 'video',
    'GET /indexes/{index_id}/videos/{video_id}/transcription': 'video_index_meta_transcription',
    'GET /indexes/{index_id}/videos/{video_id}/text-in-video': 'video_index_meta_text_in_video',
    'POST /search': 'search',
    'GET /search/{token}': 'search',
  },

  indexes: {
    parseCreate: engineIdCreateParser(V1_OPTIONS),
    presentModels: presentEngineId,
    familyFilter: 'engine_family',
    optionFilter: { keys: ['index_options'], values: V1_OPTIONS, toCanonical: (options) => [...options] },
  },

  tasks: { ...v11.tasks, pathPrefix: '/indexes' },

  search: {
    ...v11.search,
    options: { visual: ['visual'], conversation: ['conversation'], text_in_video: ['text_in_video'] },
    presentClipFields: (clip) => ({
      metadata: clip.matches.map((m) => (m.type === 'visual' || !m.text ? { type: m.type } : { type: m.type, text: m.text })),
    }),
    pageFields: { next: 'next_page_id', prev: 'prev_page_id', total: 'total_result' },
  },

  // Classify came with v1.1.
  classify: undefined,

  presentError: presentV1Error,
};
