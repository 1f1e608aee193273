import { z } from 'zod';
import type { VersionAdapter } from '../versions';
import { schemasOf, type VersionSchemas } from '../versions/schemas';

/**
 * The response bodies of one version as zod schemas: the common fields the presenters write
 * (src/presenters/) with the version's parts (versions/schemas.ts for what its functions present,
 * the adapter's own data for names, statuses and flags). Strict objects: a key a presenter writes
 * and this does not name fails the tests that validate recorded answers.
 */
export interface VersionShapes {
  version: VersionAdapter;
  schemas: VersionSchemas;
  index: z.ZodObject;
  engine: z.ZodObject;
  video: z.ZodObject;
  task: z.ZodObject;
  taskCreated: z.ZodObject;
  taskStatusCounts: z.ZodObject;
  searchPage: z.ZodObject;
  /** A list answer: `data` of the items and the page-number `page_info`. */
  list(item: z.ZodType): z.ZodObject;
}

const time = z.string().describe('RFC 3339 time, e.g. 2023-10-12T06:36:27.542Z');
export const id = z.string().describe('24-hex object id');
const int = z.int().min(0);

export const pageInfo = z.object({ limit_per_page: int, page: int, total_page: int, total_results: int });
export const hls = z.object({
  video_url: z.string().optional(),
  thumbnail_urls: z.array(z.string()),
  status: z.string(),
  updated_at: time.optional(),
});
/** What the engines listing says about the models behind the engines (presenters/providers.ts), one key per kind. */
export const modelProviders = z
  .object({
    speech: z
      .object({
        provider: z.string().describe('whisper, pocketsphinx, or none (speech only from subtitles and transcription files)'),
        source: z.enum(['bundled', 'downloadable']).optional(),
        reason: z.string().optional().describe('with none: why no recogniser can run'),
      })
      .describe('The speech recogniser that transcribes videos without subtitles.'),
    embeddings: z
      .record(
        z.string(),
        z.object({
          provider: z.string().describe('concept-embedding (bundled), clip or clap (from MODELS_DIR)'),
          source: z.enum(['bundled', 'downloadable']),
          available: z.boolean(),
          reason: z.string().optional().describe('when not available: why it cannot load here'),
        }),
      )
      .describe('Each embedding model name (Marengo-retrieval-2.7, marengo3.0, clip, clap …) and the provider that embeds it.'),
  })
  .describe('The models behind the engines, where the model service answers.');
export const timedValue = z.object({ start: z.number(), end: z.number(), value: z.string() });
const userMetadata = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]));

export function versionShapes(version: VersionAdapter): VersionShapes {
  const schemas = schemasOf(version);
  const index = z.object({
    _id: id,
    index_name: z.string(),
    addons: z.array(z.string()),
    video_count: int,
    total_duration: z.number(),
    created_at: time.nullable(),
    updated_at: time.nullable(),
    expires_at: time.nullable(),
    ...schemas.indexModels,
  });
  const engine = z.object({
    _id: z.string(),
    author: z.string(),
    ready: z.boolean(),
    finetune: z.boolean(),
    created_at: time.optional(),
    updated_at: time.optional(),
    ...schemas.engineFields,
  });
  const video = z.object({
    _id: id,
    created_at: time.optional(),
    updated_at: time.optional(),
    indexed_at: time.optional(),
    hls: hls.optional(),
    ...schemas.videoMetadata,
    ...(version.embed
      ? {
          embedding: z
            .object({
              [version.embed.modelField]: z.string(),
              video_embedding: z.object({
                segments: z.array(
                  z.object({
                    float: z.array(z.number()),
                    start_offset_sec: z.number(),
                    end_offset_sec: z.number(),
                    embedding_scope: z.string(),
                    embedding_option: z.string(),
                  }),
                ),
              }),
            })
            .optional()
            .describe('Only when asked for (embedding_option, or embed=true in v1.2): 6 s clips of what the video shows and says.'),
        }
      : {}),
  });

  const shape = version.tasks;
  const statuses = Object.keys(shape.statuses) as [string, ...string[]];
  const videoId = z.string().describe('The indexed video.');
  const task = z.object({
    _id: id,
    index_id: id,
    status: z.enum(statuses),
    created_at: time.optional(),
    updated_at: time.optional(),
    hls: hls.optional(),
    error: z.object({ code: z.string(), message: z.string() }).optional().describe('Why a failed task failed.'),
    video_id: shape.videoId === 'always' ? videoId : videoId.optional().describe('Once the task is ready.'),
    [shape.metadataField]: z.object({
      filename: z.string(),
      duration: z.number().optional(),
      width: z.number().optional(),
      height: z.number().optional(),
    }),
    ...(shape.showsProgress
      ? { estimated_time: time.optional(), process: z.object({ percentage: z.number(), remain_seconds: z.number() }).optional() }
      : {}),
  });
  const taskCreated = z.object({ _id: id, ...(shape.created.withVideoId ? { video_id: id } : {}) });
  const taskStatusCounts = z.object({
    index_id: id,
    ...Object.fromEntries(statuses.map((status) => [status, int])),
    total_result: int,
  });

  const search = version.search;
  const names = search.pageFields ?? { next: 'next_page_token', prev: 'prev_page_token', total: 'total_results' };
  const withUserMetadata = search.userMetadata ? { user_metadata: userMetadata.optional() } : {};
  const clip = z.object({
    score: z.number(),
    start: z.number(),
    end: z.number(),
    video_id: id,
    confidence: z.enum(['high', 'medium', 'low', 'none']),
    thumbnail_url: z.string().optional(),
    ...schemas.clipFields,
    ...withUserMetadata,
  });
  const group = z.object({ id: id.describe('The video.'), clips: z.array(clip), ...withUserMetadata });
  const searchPage = z.object({
    data: z.array(z.union([clip, group])).describe('Clips, or videos with their clips when group_by=video.'),
    page_info: z.object({
      limit_per_page: int,
      [names.total]: int,
      [search.pageExpiryField]: time.nullable(),
      [names.next]: z.string().nullable().describe('Absent or null on the last page.'),
      [names.prev]: z.string().optional(),
      total_inner_matches: int.optional().describe('With group_by=video: the clips in all groups.'),
    }),
    search_pool: z.object({ total_count: int, total_duration: z.number(), index_id: id }),
  });

  return {
    version,
    schemas,
    index,
    engine,
    video,
    task,
    taskCreated,
    taskStatusCounts,
    searchPage,
    list: (item) => z.object({ data: z.array(item), page_info: pageInfo }),
  };
}
