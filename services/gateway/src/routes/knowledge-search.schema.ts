import { errors, parseInput } from '@vus/core';
import { z } from 'zod';
import { checkQueryText } from '../http/text-limits';
import { ITEM_ASSET_TYPES } from './knowledge-stores.schema';

/** The request of POST /knowledge-stores/{id}/search (twelvelabs-js 1.3.4 SearchKnowledgeStoreRequest). */

export const SEARCH_MODALITIES = ['visual', 'audio'] as const;
export type SearchModality = (typeof SEARCH_MODALITIES)[number];
export type ItemAssetType = (typeof ITEM_ASSET_TYPES)[number];
export const GROUP_BY = ['none', 'item'] as const;
export type KnowledgeGroupBy = (typeof GROUP_BY)[number];

/** At most this many items in filter.item_id.in (task-service resolves up to 1000 ids; a search names fewer). */
export const MAX_FILTER_ITEM_IDS = 500;
export const MAX_PAGE_SIZE = 50;
/** A list of a few names (modalities, asset types) may repeat one, but not without end. */
const MAX_ENUM_VALUES = 10;
const MAX_PAGE_TOKEN_CHARS = 1024;

/** `eq` one value or `in` a list: exactly one of them (the reference's AssetTypeFilter, ItemIdFilter). */
const oneOperator = <T extends z.ZodType>(value: T, maxIn: number) =>
  z
    .object(
      {
        eq: value.optional(),
        in: z
          .array(value, { error: 'expected a list' })
          .min(1, 'expected at least one value')
          .max(maxIn, `at most ${maxIn} values`)
          .optional(),
      },
      { error: 'expected an object with eq or in' },
    )
    .refine((f) => (f.eq === undefined) !== (f.in === undefined), 'expected exactly one of eq and in');

const assetType = z.enum(ITEM_ASSET_TYPES, { error: 'expected video or image' });
const itemId = z.string({ error: 'expected an item id' }).trim().min(1, 'expected an item id').max(64, 'expected an item id');

export const knowledgeSearchSchema = z.object({
  query: z.object({ text: z.string({ error: 'expected a string' }).describe('What to find, in words.') }, { error: 'expected an object' }),
  filter: z
    .object(
      { asset_type: oneOperator(assetType, MAX_ENUM_VALUES).optional(), item_id: oneOperator(itemId, MAX_FILTER_ITEM_IDS).optional() },
      { error: 'expected an object' },
    )
    .optional(),
  search_options: z
    .object(
      {
        video: z
          .object(
            {
              modalities: z
                .array(z.enum(SEARCH_MODALITIES, { error: 'expected visual or audio' }), { error: 'expected a list' })
                .min(1, 'expected visual, audio or both')
                .max(MAX_ENUM_VALUES, `at most ${MAX_ENUM_VALUES} values`),
            },
            { error: 'expected an object' },
          )
          .optional(),
      },
      { error: 'expected an object' },
    )
    .optional(),
  group_by: z.enum(GROUP_BY, { error: 'expected none or item' }).optional(),
  page_size: z
    .int({ error: `expected an integer from 1 to ${MAX_PAGE_SIZE}` })
    .min(1, `expected 1 to ${MAX_PAGE_SIZE}`)
    .max(MAX_PAGE_SIZE, `expected 1 to ${MAX_PAGE_SIZE}`)
    .optional(),
  page_token: z
    .string({ error: 'expected a string' })
    .trim()
    .min(1, 'expected a page token')
    .max(MAX_PAGE_TOKEN_CHARS, 'not a page token of this server')
    .optional(),
  include_metadata: z.boolean({ error: 'expected true or false' }).optional(),
});

/** A search as the route runs it: defaults applied, the filter's two operators made one list each. */
export interface KnowledgeSearchInput {
  text: string;
  /** The video modalities asked for; the reference's default: visual. */
  modalities: SearchModality[];
  /** The kinds of item searched (filter.asset_type; both without it). */
  assetTypes: ItemAssetType[];
  /** filter.item_id's items; empty: every item. */
  itemIds: string[];
  groupBy: KnowledgeGroupBy;
  pageSize: number;
  pageToken: string | undefined;
  includeMetadata: boolean;
}

const listOf = <T>(filter: { eq?: T | undefined; in?: T[] | undefined } | undefined): T[] | undefined =>
  filter ? [...new Set(filter.eq !== undefined ? [filter.eq] : (filter.in ?? []))] : undefined;

export function parseKnowledgeSearch(body: unknown): KnowledgeSearchInput {
  const input = parseInput(knowledgeSearchSchema, body ?? {});
  const text = input.query.text.trim();
  if (text === '') throw errors.notProvided('query.text');
  checkQueryText('query.text', text);
  const assetTypes = listOf(input.filter?.asset_type) ?? [...ITEM_ASSET_TYPES];
  const video = input.search_options?.video;
  // The reference: video options with a filter that excludes videos are a 400, not ignored.
  if (video && !assetTypes.includes('video')) {
    throw errors.invalid('search_options.video', 'Video options apply to videos, and filter.asset_type leaves them out.');
  }
  return {
    text,
    modalities: video ? SEARCH_MODALITIES.filter((m) => video.modalities.includes(m)) : ['visual'],
    assetTypes,
    itemIds: listOf(input.filter?.item_id) ?? [],
    groupBy: input.group_by ?? 'none',
    pageSize: input.page_size ?? 10,
    pageToken: input.page_token,
    includeMetadata: input.include_metadata ?? false,
  };
}
