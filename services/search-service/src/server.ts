import type { UntypedServiceImplementation } from '@grpc/grpc-js';
import { ApiError, errors, parseInput, protoPageLimitSchema, type Logger, knownId } from '@vus/core';
import { checkQueryText } from '@vus/domain';
import { implement, requireOrg, toMetadataValues, toProtoSegment, toTimestamp } from '@vus/grpc';
import type { SearchClip__Input } from '@vus/grpc/types/search/v1/SearchClip';
import type { SearchResultPage__Input } from '@vus/grpc/types/search/v1/SearchResultPage';
import type { SearchServiceHandlers } from '@vus/grpc/types/search/v1/SearchService';
import type { VideoFilter } from '@vus/grpc/types/index/v1/VideoFilter';
import type { QueryMedia } from '@vus/grpc/types/search/v1/QueryMedia';
import { z } from 'zod';
import { SEARCH_OPTIONS, type Clip } from './clips';
import type { CombinedSearch } from './combined-search';
import type { Ingest } from './ingest';
import type { Search } from './search';
import { MAX_QUERY_IMAGES } from './query-image';
import type { ResultPage, SearchParams } from './search-types';
import { displayScore } from './scoring';
import type { VideoSegmentReader } from './video-segments';
import { FACE_EMBEDDING_DIMENSIONS } from '@vus/models';

// proto3 has no required fields and the gateway is not the only caller: validate here too.
const option = z.enum(SEARCH_OPTIONS);
const finite = z.number().finite();
const segmentSchema = z
  .object({
    start: finite.min(0),
    end: finite.min(0),
    modality: option,
    text: z.string().max(10_000),
    vector: z.array(finite).max(4096),
    vector_model: z.string().max(100),
    labels: z.array(z.string().min(1).max(200)).max(200),
    tentative_labels: z.array(z.string().min(1).max(200)).max(200),
    thumbnail_key: z.string().max(1000),
  })
  .refine((s) => s.end >= s.start, { message: 'end must not be before start', path: ['end'] })
  .refine((s) => s.vector.length === 0 || s.vector_model !== '', { message: 'a vector needs its vector_model', path: ['vector_model'] });
const ingestSchema = z.object({ segments: z.array(segmentSchema).max(100_000) });
const faceTrackSchema = z
  .object({ start: finite.min(0), end: finite.min(0), embedding: z.array(finite).length(FACE_EMBEDDING_DIMENSIONS) })
  .refine((t) => t.end >= t.start, { message: 'end must not be before start', path: ['end'] });
const ingestFaceTracksSchema = z.object({ tracks: z.array(faceTrackSchema).max(100_000) });

/** Unset proto3 strings are empty: each falls back to the contract's default. Shared by both searches. */
const confidenceAndPaging = {
  threshold: z.enum(['', 'high', 'medium', 'low', 'none']).transform((v) => v || 'low'),
  adjust_confidence_level: z.number().min(0).max(1).optional(),
  page_limit: protoPageLimitSchema,
};
const paramsSchema = z.object({
  ...confidenceAndPaging,
  search_options: z.array(option).min(1),
  conversation_option: z.enum(['', 'semantic', 'lexical', 'exact_match']).transform((v) => v || 'semantic'),
  operator: z.enum(['', 'or', 'and']).transform((v) => v || 'or'),
  group_by: z.enum(['', 'clip', 'video']).transform((v) => v || 'clip'),
  sort_option: z.enum(['', 'score', 'clip_count']).transform((v) => v || 'score'),
});
const combinedParamsSchema = z.object(confidenceAndPaging);
const matchClipsSchema = z.object({
  search_options: z.array(option).min(1),
  conversation_option: paramsSchema.shape.conversation_option,
  threshold: confidenceAndPaging.threshold,
  video_ids: z.array(z.string()).max(10_000),
});

const indexId = (raw: string) => knownId('Index', raw);
/** The face-track store, which every search-service has (main.ts); a search built without it stores none. */
const faceTracksOf = (search: Search) =>
  search.faceTracks ?? errorThrown(new ApiError('not_implemented', 'This search-service keeps no face tracks.'));
const errorThrown = (error: ApiError): never => {
  throw error;
};
const videoId = (raw: string) => knownId('Video', raw);

export function searchParams(request: unknown, filter: VideoFilter | null): SearchParams {
  const p = parseInput(paramsSchema, request);
  if (p.sort_option === 'clip_count' && p.group_by !== 'video') {
    throw errors.invalid('sort_option', 'clip_count sorts videos by their number of clips; it needs group_by=video.');
  }
  return {
    options: [...new Set(p.search_options)],
    conversationOption: p.conversation_option,
    operator: p.operator,
    threshold: p.threshold,
    adjustConfidenceLevel: p.adjust_confidence_level ?? 0.5,
    groupBy: p.group_by,
    sortOption: p.sort_option,
    pageLimit: p.page_limit,
    filter: filter ?? undefined,
  };
}

function toProtoClip(clip: Clip, userMetadata: ResultPage['userMetadata']): SearchClip__Input {
  const metadata = userMetadata?.get(clip.videoId);
  return {
    video_id: clip.videoId,
    start: clip.start,
    end: clip.end,
    score: displayScore(clip.score),
    confidence: clip.confidence,
    modules: clip.modules.map((m) => ({ type: m.option, confidence: m.confidence, score: displayScore(m.score) })),
    matches: clip.matches.map((m) => ({ type: m.option, text: m.text })),
    thumbnail_key: clip.thumbnailKey,
    transcription: clip.transcription,
    rank: clip.rank,
    user_metadata: metadata ? toMetadataValues(metadata) : {},
  };
}

export function toProtoPage(page: ResultPage): SearchResultPage__Input {
  const metadata = page.userMetadata;
  return {
    group_by: page.groupBy,
    clips: page.clips.map((clip) => toProtoClip(clip, metadata)),
    videos: page.videos.map((group) => {
      const own = metadata?.get(group.videoId);
      return {
        id: group.videoId,
        clips: group.clips.map((clip) => toProtoClip(clip, undefined)),
        user_metadata: own ? toMetadataValues(own) : {},
      };
    }),
    page_info: {
      limit_per_page: page.pageInfo.limitPerPage,
      total_results: page.pageInfo.totalResults,
      total_inner_matches: page.pageInfo.totalInnerMatches,
      next_page_token: page.pageInfo.nextPageToken,
      prev_page_token: page.pageInfo.prevPageToken,
      page_expires_at: toTimestamp(page.pageInfo.expiresAt),
    },
    search_pool: {
      total_count: page.searchPool.totalCount,
      total_duration: page.searchPool.totalDuration,
      index_id: page.searchPool.indexId,
    },
  };
}

export function searchServiceImplementation(
  deps: {
    ingest: Ingest;
    search: Search;
    combined: CombinedSearch;
    segments: VideoSegmentReader;
    fetchImage: (url: string) => Promise<Buffer>;
  },
  logger: Logger,
): UntypedServiceImplementation {
  return implement<SearchServiceHandlers>(
    {
      async IngestSegments(request, ctx) {
        const { segments } = parseInput(ingestSchema, request);
        await deps.ingest.replace(requireOrg(ctx), indexId(request.index_id), videoId(request.video_id), segments);
        return {};
      },
      async IngestFaceTracks(request, ctx) {
        const { tracks } = parseInput(ingestFaceTracksSchema, request);
        await faceTracksOf(deps.search).replaceVideo(
          requireOrg(ctx),
          indexId(request.index_id),
          videoId(request.video_id),
          tracks.map((t) => ({ startSec: t.start, endSec: t.end, embedding: Float32Array.from(t.embedding) })),
        );
        return {};
      },
      async DeleteVideoSegments(request, ctx) {
        await deps.ingest.deleteVideo(requireOrg(ctx), indexId(request.index_id), videoId(request.video_id));
        await deps.search.faceTracks?.deleteVideo(requireOrg(ctx), indexId(request.index_id), videoId(request.video_id));
        return {};
      },
      async DeleteIndexSegments(request, ctx) {
        await deps.ingest.deleteIndex(requireOrg(ctx), indexId(request.index_id));
        await deps.search.faceTracks?.deleteIndex(requireOrg(ctx), indexId(request.index_id));
        return {};
      },
      async ListVideoSegments(request, ctx) {
        const segments = await deps.segments.videoSegments(requireOrg(ctx), indexId(request.index_id), videoId(request.video_id));
        return {
          segments: segments.map(toProtoSegment),
        };
      },
      async Search(request, ctx) {
        const orgId = requireOrg(ctx);
        const params = searchParams(request, request.filter);
        const media = request.query_media;
        if (media && media.media_type !== 'image') throw errors.invalid('query_media_type', 'The only query media type is image.');
        const more = request.more_query_media ?? [];
        if (more.length > 0 && !media) throw errors.notProvided('query_media');
        if (1 + more.length > MAX_QUERY_IMAGES) {
          throw errors.invalid('query_media_file', `Send at most ${MAX_QUERY_IMAGES} query images; this request has ${1 + more.length}.`);
        }
        if (more.some((m) => m.media_type !== 'image')) throw errors.invalid('query_media_type', 'The only query media type is image.');
        const imageOf = async (m: QueryMedia): Promise<Buffer | undefined> =>
          m.source === 'url' ? deps.fetchImage(m.url!) : m.source === 'data' ? Buffer.from(m.data!) : undefined;
        const image = media ? await imageOf(media) : undefined;
        // One at a time: each fetched image is up to 5 MB held until the search is done.
        const moreImages: Buffer[] = [];
        for (const m of more) {
          const bytes = await imageOf(m);
          if (!bytes) throw errors.invalid('query_media_file', 'A query image has neither bytes nor a URL.');
          moreImages.push(bytes);
        }
        const text = request.query_text.trim() ? request.query_text : undefined;
        if (text === undefined && !image) throw errors.notProvided('query_text');
        // Before any work: a query is planned per word, and an unbounded text is an unbounded statement.
        if (text !== undefined) checkQueryText('query_text', text);
        const page = await deps.search.search(
          orgId,
          indexId(request.index_id),
          { text, image, moreImages },
          params,
          request.include_user_metadata,
        );
        return toProtoPage(page);
      },
      async GetSearchPage(request, ctx) {
        return toProtoPage(await deps.search.page(requireOrg(ctx), request.page_token, request.include_user_metadata));
      },
      async MatchClips(request, ctx) {
        const p = parseInput(matchClipsSchema, request);
        if (!request.query_text.trim()) throw errors.notProvided('query_text');
        checkQueryText('query_text', request.query_text);
        const clips = await deps.search.matchClips(requireOrg(ctx), indexId(request.index_id), request.query_text, {
          options: [...new Set(p.search_options)],
          conversationOption: p.conversation_option,
          threshold: p.threshold,
          videoIds: p.video_ids.map(videoId),
        });
        return { clips: clips.map((clip) => toProtoClip(clip, undefined)) };
      },
      async CombinedSearch(request, ctx) {
        if (!request.query) throw errors.notProvided('query');
        const p = parseInput(combinedParamsSchema, request);
        const page = await deps.combined.search(requireOrg(ctx), indexId(request.index_id), request.query, {
          searchOptions: request.search_options,
          conversationOption: request.conversation_option,
          threshold: p.threshold,
          adjustConfidenceLevel: p.adjust_confidence_level ?? 0.5,
          pageLimit: p.page_limit,
          filter: request.filter ?? undefined,
        });
        return toProtoPage(page);
      },
    },
    logger,
  );
}
