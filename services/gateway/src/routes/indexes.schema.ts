import { ApiError, parseInput } from '@vus/core';
import type { ListIndexesRequest__Input } from '@vus/grpc/types/index/v1/ListIndexesRequest';
import { z } from 'zod';
import { parsePageQuery } from '../http/paging';
import { list, scalar, type RawQuery } from '../http/query';
import { parseTimeRange } from '../http/ranges';
import type { VersionAdapter } from '../versions';

const indexName = z.string({ error: 'expected a string' });

const ENGINE_KEYS = ['engines', 'engine_id', 'models', 'engine_name', 'model_name'];
const OPTION_KEYS = ['index_options', 'indexing_options', 'engine_options', 'model_options', 'addons'];
export const renameSchema = z.object({ index_name: indexName });

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
export function parseListIndexes(version: VersionAdapter, query: RawQuery): ListIndexesRequest__Input {
  const page = parsePageQuery(query);
  const { family } = parseInput(familyQuery, { family: scalar(query, version.indexes.familyFilter, 'engine_family', 'model_family') });
  const optionFilter = version.indexes.optionFilter;
  const [optionKey] = optionFilter.keys;
  const asked = parseInput(z.object({ [optionKey]: z.array(z.enum(optionFilter.values)) }), {
    [optionKey]: list(query, ...optionFilter.keys) ?? [],
  });
  return {
    page: { page: page.page, page_limit: page.pageLimit, sort_by: page.sortBy ?? '', sort_option: page.sortOption ?? '' },
    ids: list(query, '_id', 'id') ?? [],
    name: scalar(query, 'index_name') ?? '',
    options: optionFilter.toCanonical(asked[optionKey] ?? []),
    family: family ?? '',
    model_name: scalar(query, 'model_name', 'engine_name') ?? '',
    created_at: parseTimeRange('created_at', query, 'createdAt'),
    updated_at: parseTimeRange('updated_at', query, 'updatedAt'),
  };
}
