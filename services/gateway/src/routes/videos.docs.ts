import { z } from 'zod';
import { noContent, ok, paging, type OperationDoc } from '../openapi/operation';
import { id, timedValue } from '../openapi/shapes';
import { updateSchema as updateVideoFields, VIDEO_EMBEDDING_OPTIONS } from './videos.schema';

/**
 * The OpenAPI operations of routes/videos.ts (Videos): one per endpoint, named by its
 * descriptor's `doc` (openapi/operation.ts says what an operation holds; openapi/document.ts writes them).
 */

const artifact =
  (what: string): OperationDoc =>
  () => ({
    summary: `The ${what} of a video`,
    tag: 'Videos',
    query: { start: { schema: z.number().min(0).optional() }, end: { schema: z.number().min(0).optional() } },
    responses: ok(z.object({ _id: id, index_id: id, data: z.array(timedValue) })),
  });

/** GET /indexes/{index_id}/videos */
export const listVideos: OperationDoc = (s) => ({
  summary: 'List the videos of an index',
  description: 'Other query keys filter on user metadata (?category=news).',
  tag: 'Videos',
  query: { ...paging, filename: { schema: z.string().optional() }, duration: { schema: z.number().optional() } },
  responses: ok(s.list(s.video)),
});

/** GET /indexes/{index_id}/videos/{video_id} */
export const retrieveVideo: OperationDoc = (s) => ({
  summary: 'Retrieve a video',
  tag: 'Videos',
  query: {
    ...(s.version.videos.transcriptionOnRetrieve ? { transcription: { schema: z.boolean().optional() } } : {}),
    ...(!s.version.embed
      ? {}
      : s.version.videos.embeddingsOnRetrieve === 'embed'
        ? { embed: { schema: z.boolean().optional() } }
        : { embedding_option: { schema: z.array(z.enum(VIDEO_EMBEDDING_OPTIONS)).optional() } }),
  },
  responses: ok(s.video),
});

/** PUT /indexes/{index_id}/videos/{video_id} */
export const putVideo: OperationDoc = (s) => ({
  summary: 'Update a video',
  description: s.version.videos.putReplacesUserMetadata ? 'Replaces the user metadata.' : 'Merges the metadata; null deletes a key.',
  tag: 'Videos',
  body: { json: updateVideoFields, required: true },
  responses: noContent,
});

/** PATCH /indexes/{index_id}/videos/{video_id} */
export const patchVideo: OperationDoc = () => ({
  summary: 'Update a video (merge)',
  tag: 'Videos',
  body: { json: updateVideoFields, required: true },
  responses: noContent,
});

/** DELETE /indexes/{index_id}/videos/{video_id} */
export const deleteVideo: OperationDoc = () => ({ summary: 'Delete a video', tag: 'Videos', responses: noContent });

/** GET /indexes/{index_id}/videos/{video_id}/transcription */
export const transcription: OperationDoc = artifact('transcription');

/** GET /indexes/{index_id}/videos/{video_id}/text-in-video */
export const textInVideo: OperationDoc = artifact('on-screen text');

/** GET /indexes/{index_id}/videos/{video_id}/logo */
export const logo: OperationDoc = artifact('logos');

/** GET /indexes/{index_id}/videos/{video_id}/thumbnail */
export const thumbnail: OperationDoc = () => ({
  summary: 'A thumbnail of a video',
  description: 'A signed, expiring URL. Needs the thumbnail addon.',
  tag: 'Videos',
  query: { time: { schema: z.number().min(0).optional() } },
  responses: ok(z.object({ thumbnail: z.string() })),
});
