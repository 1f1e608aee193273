import { parseInput } from '@vus/core';
import type { CreateIndexRequest__Input } from '@vus/grpc/types/index/v1/CreateIndexRequest';
import { z } from 'zod';
import { looseList } from '../http/coerce';
import { codeAndMessage } from '../http/errors';
import { removed, TASK_STATUSES, type VersionAdapter } from './adapter';
import { canonicalToV13Options, V13_OPTIONS, v13FilterToCanonical, v13ToCanonicalOptions } from './options';

export const createIndexSchema = z.object({
  index_name: z.string({ error: 'expected a string' }),
  models: z.array(z.object({ model_name: z.string(), model_options: looseList(z.enum(V13_OPTIONS)) })),
  addons: looseList(z.string()).optional(),
});

function parseCreateIndex(body: unknown): CreateIndexRequest__Input {
  const input = parseInput(createIndexSchema, body);
  return {
    name: input.index_name,
    models: input.models.map((m) => ({ name: m.model_name, options: v13ToCanonicalOptions(m.model_name, m.model_options) })),
    addons: input.addons ?? [],
  };
}

/**
 * v1.3 (twelvelabs-js 0.4 and 1.x, python 0.4 and 1.x): models with the visual/audio vocabulary,
 * `system_metadata` and `user_metadata` apart, `page_expires_at`, every task status; the per-video
 * artifact endpoints, /tasks/status, imports, /search-v2 and combined queries are gone.
 */
export const v13: VersionAdapter = {
  name: 'v1.3',
  unavailable: {
    'GET /tasks/{task_id}/video-id': removed(
      'GET /indexes/tasks/{task_id}/video-id was a v1 endpoint. Read video_id from GET /tasks/{task_id}.',
    ),
    'GET /tasks/status': removed('GET /tasks/status was removed in v1.3. Use GET /tasks?index_id=…&status=… instead.'),
    'POST /tasks/external-provider': removed(
      'POST /tasks/external-provider was removed in v1.3. Upload the video with POST /tasks instead.',
    ),
    'POST /tasks/transfers': removed(
      'POST /tasks/transfers was removed in v1.3; its replacement, POST /tasks/transfers/import/{integration_id}, is not available on this server.',
    ),
    'GET /indexes/{index_id}/videos/{video_id}/transcription': removed(
      'GET …/videos/{video_id}/transcription was removed in v1.3. Use GET /indexes/{index_id}/videos/{video_id}?transcription=true.',
    ),
    'GET /indexes/{index_id}/videos/{video_id}/text-in-video': removed('GET …/videos/{video_id}/text-in-video was removed in v1.3.'),
    'GET /indexes/{index_id}/videos/{video_id}/logo': removed('GET …/videos/{video_id}/logo was removed in v1.3.'),
    'GET /indexes/{index_id}/videos/{video_id}/thumbnail': removed('GET …/videos/{video_id}/thumbnail was removed in v1.3.'),
    'POST /search-v2': removed('POST /search-v2 was removed in v1.3; use POST /search (multipart).'),
    'POST /combined-search': removed('Combined queries was removed in v1.3; use POST /search (multipart).'),
    // API-CONTRACT §2.5 names /v1.3/classify as a call to the wrong URL version: api_upgrade_required.
    'POST /classify': {
      code: 'api_upgrade_required',
      message: 'Classification was removed in v1.3. It is served from v1.1 to v1.2: use /v1.2/classify.',
      docsVersion: 'v1.2',
    },
  },

  indexes: {
    parseCreate: parseCreateIndex,
    presentModels: (index) => ({
      models: index.models.map((m) => ({ model_name: m.name, model_options: canonicalToV13Options(m.options) })),
    }),
    familyFilter: 'model_family',
    optionFilter: { keys: ['model_options', 'engine_options'], values: V13_OPTIONS, toCanonical: v13FilterToCanonical },
  },

  // v1.3 dropped /engines; this server keeps it, with v1.3's names.
  engines: {
    presentFields: (engine) => ({
      model_name: engine.id,
      model_family: engine.family,
      allowed_model_options: canonicalToV13Options(engine.allowed_options),
    }),
  },

  videos: {
    presentMetadata: ({ system, user, transcription }) => ({
      system_metadata: system,
      user_metadata: user,
      ...(transcription ? { transcription } : {}),
    }),
    updateField: 'user_metadata',
    putReplacesUserMetadata: true,
    transcriptionOnRetrieve: true,
    embeddingsOnRetrieve: 'embedding_option',
  },

  tasks: {
    statuses: Object.fromEntries(TASK_STATUSES.map((status) => [status, [status]])),
    metadataField: 'system_metadata',
    videoId: 'always',
    showsProgress: false,
    videoStreamFlag: { field: 'enable_video_stream', negated: false },
    acceptsUserMetadata: true,
    created: { status: 200, withVideoId: true },
  },

  search: {
    // `visual` covers on-screen text and logos; `audio` (and Marengo 3.0's `transcription`) is speech.
    options: {
      visual: ['visual', 'text_in_video', 'logo'],
      audio: ['conversation'],
      transcription: ['conversation'],
      conversation: ['conversation'],
      text_in_video: ['text_in_video'],
      logo: ['logo'],
    },
    conversationOption: false,
    transcriptionOptions: true,
    severalQueryImages: true,
    jsonQuery: false,
    presentClipFields: (clip) => ({ rank: clip.rank, ...(clip.transcription ? { transcription: clip.transcription } : {}) }),
    userMetadata: true,
    pageExpiryField: 'page_expires_at',
  },

  // /generate is deprecated for /analyze; both stream unless `stream: false`.
  generate: { generateStreamsByDefault: true, summarizeType: true, usage: true, responseFormat: true },
  embed: { modelField: 'model_name', textFloat: false, embedV2: true },

  presentError: codeAndMessage,
};
