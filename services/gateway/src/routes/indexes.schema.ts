import { ApiError, errors, parseInput } from '@vus/core';
import type { CreateIndexRequest__Input } from '@vus/grpc/types/index/v1/CreateIndexRequest';
import type { ListIndexesRequest__Input } from '@vus/grpc/types/index/v1/ListIndexesRequest';
import { z } from 'zod';
import { looseList } from '../http/coerce';
import { parsePageQuery } from '../http/paging';
import { list, scalar, type RawQuery } from '../http/query';
import { parseTimeRange } from '../http/ranges';
import {
  V12_OPTIONS,
  V13_OPTIONS,
  v13FilterToCanonical,
  v13ToCanonicalOptions,
  type ApiVersion,
} from '../versions';

const indexName = z.string({ error: 'expected a string' });
const addons = looseList(z.string()).optional();

const createV12 = z.object({
  index_name: indexName,
  engines: z
    .array(z.object({ engine_name: z.string(), engine_options: looseList(z.enum(V12_OPTIONS)) }))
    .optional(),
  // Deprecated in v1.2 but still accepted (API-CONTRACT §5.1).
  engine_id: z.string().optional(),
  index_options: looseList(z.enum(V12_OPTIONS)).optional(),
  indexing_options: looseList(z.enum(V12_OPTIONS)).optional(),
  addons,
});

const createV13 = z.object({
  index_name: indexName,
  models: z.array(z.object({ model_name: z.string(), model_options: looseList(z.enum(V13_OPTIONS)) })),
  addons,
});

export function parseCreateIndex(version: ApiVersion, body: unknown): CreateIndexRequest__Input {
  if (version === 'v1.3') {
    const input = parseInput(createV13, body);
    return {
      name: input.index_name,
      models: input.models.map((m) => ({ name: m.model_name, options: v13ToCanonicalOptions(m.model_name, m.model_options) })),
      addons: input.addons ?? [],
    };
  }
  const input = parseInput(createV12, body);
  const models = input.engines?.map((e) => ({ name: e.engine_name, options: e.engine_options }));
  if (models) return { name: input.index_name, models, addons: input.addons ?? [] };
  if (input.engine_id === undefined) throw errors.notProvided('engines');
  const options = input.index_options ?? input.indexing_options;
  if (!options) throw errors.notProvided('index_options');
  return { name: input.index_name, models: [{ name: input.engine_id, options }], addons: input.addons ?? [] };
}

const ENGINE_KEYS = ['engines', 'engine_id', 'models', 'engine_name', 'model_name'];
const OPTION_KEYS = ['index_options', 'indexing_options', 'engine_options', 'model_options', 'addons'];
const renameSchema = z.object({ index_name: indexName });

/** PUT /indexes/{id}: only the name can change (API-CONTRACT §5.1). */
export function parseRenameIndex(body: unknown): string {
  const keys = body && typeof body === 'object' ? Object.keys(body) : [];
  if (keys.some((k) => ENGINE_KEYS.includes(k))) {
    throw new ApiError('index_engine_cannot_be_changed', 'The engines of an index cannot be changed after it is created.');
  }
  if (keys.some((k) => OPTION_KEYS.includes(k))) {
    throw new ApiError('index_option_cannot_be_changed', 'The options of an index cannot be changed after it is created.');
  }
  return parseInput(renameSchema, body).index_name;
}

const familyQuery = z.object({ family: z.enum(['marengo', 'pegasus']).optional() });

/** GET /indexes query, with the aliases and encodings of API-CONTRACT §2.3. */
export function parseListIndexes(version: ApiVersion, query: RawQuery): ListIndexesRequest__Input {
  const familyKey = version === 'v1.3' ? 'model_family' : 'engine_family';
  const page = parsePageQuery(query);
  const { family } = parseInput(familyQuery, { family: scalar(query, familyKey, 'engine_family', 'model_family') });
  const options =
    version === 'v1.3'
      ? v13FilterToCanonical(
          parseInput(z.object({ model_options: z.array(z.enum(V13_OPTIONS)) }), {
            model_options: list(query, 'model_options', 'engine_options') ?? [],
          }).model_options,
        )
      : parseInput(z.object({ engine_options: z.array(z.enum(V12_OPTIONS)) }), {
          engine_options: list(query, 'engine_options', 'index_options') ?? [],
        }).engine_options;
  return {
    page: { page: page.page, page_limit: page.pageLimit, sort_by: page.sortBy ?? '', sort_option: page.sortOption ?? '' },
    ids: list(query, '_id', 'id') ?? [],
    name: scalar(query, 'index_name') ?? '',
    options,
    family: family ?? '',
    model_name: scalar(query, 'model_name', 'engine_name') ?? '',
    created_at: parseTimeRange('created_at', query, 'createdAt'),
    updated_at: parseTimeRange('updated_at', query, 'updatedAt'),
  };
}
