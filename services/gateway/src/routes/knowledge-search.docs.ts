import { z } from 'zod';
import { ok, type OperationDoc } from '../openapi/operation';
import { id } from '../openapi/shapes';
import { knowledgeSearchSchema, SEARCH_MODALITIES } from './knowledge-search.schema';

/** The OpenAPI operation of routes/knowledge-search.ts, as presenters/knowledge-search.ts writes its answer. */

const modalities = z.array(z.enum(SEARCH_MODALITIES));
const rank = z.int().min(1).describe('The place in the whole result, from 1; with group_by item, items by their best clip.');
const metadata = z
  .strictObject({
    system: z.strictObject({ duration: z.number().optional() }).describe("The item's media: a video's duration in seconds."),
    user: z.record(z.string(), z.string()).describe('The metadata set on the item.'),
  })
  .optional()
  .describe('With include_metadata.');

const videoHit = z.strictObject({
  asset_type: z.literal('video'),
  rank,
  item_id: id,
  metadata,
  matches: z
    .array(
      z.strictObject({
        start_sec: z.number(),
        end_sec: z.number(),
        modalities: modalities.describe('The modalities that matched in the clip.'),
        transcription: z.string().optional().describe('The words said in the clip, where speech was recognised.'),
      }),
    )
    .describe('group_by none: the one clip; item: every matching clip of the video, best first.'),
});
const imageHit = z.strictObject({ asset_type: z.literal('image'), rank, item_id: id, metadata });

const searchResponse = z.strictObject({
  data: z.array(z.discriminatedUnion('asset_type', [videoHit, imageHit])),
  next_page_token: z.string().optional().describe('Absent on the last page. Pass it as page_token, with the same request.'),
  effective_search_options: z
    .strictObject({ video: z.strictObject({ modalities }).optional() })
    .describe('The video modalities searched (visual by default); {} when filter.asset_type leaves videos out.'),
});

/** POST /knowledge-stores/{knowledge_store_id}/search */
export const searchKnowledgeStore: OperationDoc = () => ({
  summary: 'Search a knowledge store',
  description: [
    "Finds the moments of the store's ready items that match query.text: video clips, and images as a whole.",
    'Videos are matched through search_options.video.modalities (visual by default), images always visually;',
    'audio alone over a store with ready images and videos is refused (search_option_combination_not_supported).',
    'Items not ready yet are not searched; a store without a ready item answers an empty page.',
    'A later page: the same request with page_token; its search settings are those of the first page,',
    'and it is not counted in the search rate limit.',
  ].join(' '),
  tag: 'Knowledge stores',
  body: { json: knowledgeSearchSchema, required: true },
  responses: ok(searchResponse),
});
