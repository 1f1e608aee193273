import { errors, parseInput } from '@vus/core';
import type { CreateIndexRequest__Input } from '@vus/grpc/types/index/v1/CreateIndexRequest';
import { z } from 'zod';
import { looseList } from '../http/coerce';
import { codeAndMessage } from '../http/errors';
import { removed, type UnavailableEndpoint, type VersionAdapter, type VersionedEndpoint } from './adapter';
import { V12_OPTIONS } from './options';

export const createIndexSchema = z.object({
  index_name: z.string({ error: 'expected a string' }),
  engines: z.array(z.object({ engine_name: z.string(), engine_options: looseList(z.enum(V12_OPTIONS)) })).optional(),
  // Deprecated in v1.2 but still accepted (API-CONTRACT §5.1).
  engine_id: z.string().optional(),
  index_options: looseList(z.enum(V12_OPTIONS)).optional(),
  indexing_options: looseList(z.enum(V12_OPTIONS)).optional(),
  addons: looseList(z.string()).optional(),
});

/** `engines`, or the deprecated single `engine_id` with `index_options` (or `indexing_options`). */
function parseCreateIndex(body: unknown): CreateIndexRequest__Input {
  const input = parseInput(createIndexSchema, body);
  const models = input.engines?.map((e) => ({ name: e.engine_name, options: e.engine_options }));
  if (models) return { name: input.index_name, models, addons: input.addons ?? [] };
  if (input.engine_id === undefined) throw errors.notProvided('engines');
  const options = input.index_options ?? input.indexing_options;
  if (!options) throw errors.notProvided('index_options');
  return { name: input.index_name, models: [{ name: input.engine_id, options }], addons: input.addons ?? [] };
}

/** Endpoints only v1.3 has, as an earlier version answers them: assets and indexed assets (API-CONTRACT §5.9), knowledge stores, entities. */
export function addedInV13(current: string): Partial<Record<VersionedEndpoint, UnavailableEndpoint>> {
  const upgrade: UnavailableEndpoint = {
    code: 'api_upgrade_required',
    message: `This endpoint is supported starting with version v1.3. Your version is ${current}.`,
    docsVersion: 'v1.3',
  };
  return {
    'POST /assets': upgrade,
    'POST /indexes/{index_id}/indexed-assets': upgrade,
    'POST /knowledge-stores': upgrade,
    'POST /entity-collections': upgrade,
    'POST /analyze/tasks': upgrade,
  };
}

/**
 * v1.2 (twelvelabs-js 0.1–0.3, python 0.1–0.3): engines, the canonical option names, `metadata`
 * objects, `page_expired_at`; no `uploading` or `queued` status yet.
 */
export const v12: VersionAdapter = {
  name: 'v1.2',
  unavailable: {
    'GET /tasks/{task_id}/video-id': removed(
      'GET /indexes/tasks/{task_id}/video-id was a v1 endpoint. Read video_id from GET /tasks/{task_id}.',
    ),
    'POST /analyze': {
      code: 'api_upgrade_required',
      message: 'This endpoint is supported starting with version v1.3. Your version is v1.2. Use POST /generate.',
    },
    ...addedInV13('v1.2'),
  },

  indexes: {
    parseCreate: parseCreateIndex,
    presentModels: (index) => ({
      engines: index.models.map((m) => ({ engine_name: m.name, engine_options: m.options, addons: index.addons })),
    }),
    familyFilter: 'engine_family',
    optionFilter: { keys: ['engine_options', 'index_options'], values: V12_OPTIONS, toCanonical: (options) => [...options] },
  },

  engines: {
    presentFields: (engine) => ({ allowed_engine_options: engine.allowed_options }),
  },

  videos: {
    // One object: the user's keys, the title, then the system fields (which win).
    presentMetadata: ({ system, user, title }) => ({ metadata: { ...user, ...(title ? { video_title: title } : {}), ...system } }),
    updateField: 'metadata',
    putReplacesUserMetadata: false,
    transcriptionOnRetrieve: false,
    embeddingsOnRetrieve: 'embed',
  },

  tasks: {
    // Each shown status stands for the canonical ones it was before uploading and queued existed.
    statuses: {
      ready: ['ready'],
      validating: ['uploading', 'validating'],
      pending: ['pending', 'queued'],
      indexing: ['indexing'],
      failed: ['failed'],
    },
    metadataField: 'metadata',
    videoId: 'once-ready',
    showsProgress: true,
    videoStreamFlag: { field: 'disable_video_stream', negated: true },
    acceptsUserMetadata: false,
    created: { status: 201, withVideoId: false },
  },

  search: {
    options: { visual: ['visual'], conversation: ['conversation'], text_in_video: ['text_in_video'], logo: ['logo'] },
    conversationOption: true,
    jsonQuery: true,
    presentClipFields: (clip) => ({
      metadata: clip.matches.map((m) => (m.type === 'visual' || !m.text ? { type: m.type } : { type: m.type, text: m.text })),
      // The docs show `modules` only for searches with several options; later pages cannot tell, so
      // v1.2 always carries it (an optional field to every SDK).
      modules: clip.modules.map((m) => ({ type: m.type, confidence: m.confidence })),
    }),
    userMetadata: false,
    pageExpiryField: 'page_expired_at',
  },

  // gist/summarize/generate answered {id, …} only; `stream` is opt-in (js 0.2 text() omits it).
  generate: { generateStreamsByDefault: false, summarizeType: false, usage: false, responseFormat: false },
  embed: { modelField: 'engine_name', textFloat: true, embedV2: false },
  classify: { classesField: 'classes', videos: 'video_ids', threshold: 'object' },

  presentError: codeAndMessage,
};
