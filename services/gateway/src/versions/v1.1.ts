import { errors, parseInput } from '@vus/core';
import type { CreateIndexRequest__Input } from '@vus/grpc/types/index/v1/CreateIndexRequest';
import type { Index } from '@vus/grpc/types/index/v1/Index';
import type { SearchClip } from '@vus/grpc/types/search/v1/SearchClip';
import { z } from 'zod';
import { looseList } from '../http/coerce';
import { codeAndMessage } from '../http/errors';
import { removed, type UnavailableEndpoint, type VersionAdapter, type VersionedEndpoint } from './adapter';
import { familyOfModel, V12_OPTIONS } from './options';
import { addedInV13, v12 } from './v1.2';

/** What a call to an endpoint a later version added gets (API-CONTRACT §2.5). */
export const upgradeTo = (since: string, current: string, hint = ''): UnavailableEndpoint => ({
  code: 'api_upgrade_required',
  message: `This endpoint is supported starting with version ${since}. Your version is ${current}.${hint ? ` ${hint}` : ''}`,
  docsVersion: since,
});

/** Endpoints v1.2 and v1.3 added, as a version before them answers them. */
export const addedSinceV12 = (current: string): Partial<Record<VersionedEndpoint, UnavailableEndpoint>> => ({
  'POST /tasks/external-provider': upgradeTo('v1.2', current),
  'POST /search-v2': upgradeTo('v1.2', current, 'Use POST /search with a JSON query.'),
  'POST /gist': upgradeTo('v1.2', current),
  'POST /summarize': upgradeTo('v1.2', current),
  'POST /generate': upgradeTo('v1.2', current),
  'POST /analyze': upgradeTo('v1.3', current),
  ...addedInV13(current),
});

/**
 * POST /indexes before v1.2: one `engine_id` and its `index_options` (API-CONTRACT §5.1). v1.2's
 * `engines` list is not read: such a body lacks `engine_id`.
 */
export const engineIdCreateSchema = (options: readonly [string, ...string[]]) =>
  z.object({
    index_name: z.string({ error: 'expected a string' }),
    engine_id: z.string({ error: 'expected an engine id such as marengo2.5' }),
    index_options: looseList(z.enum(options)),
    addons: looseList(z.string()).optional(),
  });

export function engineIdCreateParser(options: readonly [string, ...string[]]) {
  const schema = engineIdCreateSchema(options);
  return (body: unknown): CreateIndexRequest__Input => {
    const input = parseInput(schema, body);
    if (input.index_options.length === 0) throw errors.invalid('index_options', 'Give at least one index option.');
    return { name: input.index_name, models: [{ name: input.engine_id, options: input.index_options }], addons: input.addons ?? [] };
  };
}

/**
 * An index's engine as `engine_id` and `index_options`: these versions had one engine per index.
 * An index made through v1.2 or later with several shows its Marengo engine (the one search uses).
 */
export function presentEngineId(index: Index): Record<string, unknown> {
  const model = index.models.find((m) => familyOfModel(m.name) === 'marengo') ?? index.models[0];
  return { engine_id: model?.name ?? '', index_options: model?.options ?? [] };
}

/** v1.1's `module_confidence`: each search option that matched, with its confidence. */
export function presentModuleConfidence(clip: SearchClip): Record<string, unknown> {
  return {
    metadata: clip.matches.map((m) => (m.type === 'visual' || !m.text ? { type: m.type } : { type: m.type, text: m.text })),
    module_confidence: Object.fromEntries(clip.modules.map((m) => [m.type, m.confidence])),
  };
}

/**
 * v1.1 (twelvelabs-python before 0.1, `version="v1.1"`): one `engine_id` and `index_options`
 * per index, engines with `allowed_index_options`, the JSON search only (`query`) with
 * `module_confidence` per clip, combined queries at `/beta/search` (renamed `/combined-search`
 * in its 1.1.1 revision; both are served), `page_expired_at`. No generation, external-provider
 * upload or multipart search yet. Classify used `labels` and one `video_id`.
 */
export const v11: VersionAdapter = {
  name: 'v1.1',
  deprecation: { successor: 'v1.2' },
  unavailable: {
    ...addedSinceV12('v1.1'),
    'GET /tasks/{task_id}/video-id': removed(
      'GET /indexes/tasks/{task_id}/video-id was a v1 endpoint. Read video_id from GET /tasks/{task_id}.',
    ),
  },

  indexes: {
    parseCreate: engineIdCreateParser(V12_OPTIONS),
    presentModels: presentEngineId,
    familyFilter: 'engine_family',
    optionFilter: { keys: ['index_options'], values: V12_OPTIONS, toCanonical: (options) => [...options] },
  },

  engines: {
    presentFields: (engine) => ({ allowed_index_options: engine.allowed_options }),
  },

  // Video objects, task objects and statuses are v1.2's (API-CONTRACT §3 lists no change).
  videos: v12.videos,
  tasks: v12.tasks,

  search: {
    ...v12.search,
    presentClipFields: presentModuleConfidence,
    jsonOnly: true,
  },

  // No generation endpoints (unavailable above); the shape is v1.2's for completeness.
  generate: v12.generate,

  classify: { classesField: 'labels', videos: 'video_id', threshold: 'level' },

  presentError: codeAndMessage,
};
