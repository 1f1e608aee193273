import type { UntypedServiceImplementation } from '@grpc/grpc-js';
import { knownId, parseInput, protoPageLimitSchema, type Logger } from '@vus/core';
import { CANONICAL_OPTIONS } from '@vus/domain';
import { implement, requireOrg, toTimestamp } from '@vus/grpc';
import type { ClassifyResultPage__Input } from '@vus/grpc/types/classify/v1/ClassifyResultPage';
import type { ClassifyServiceHandlers } from '@vus/grpc/types/classify/v1/ClassifyService';
import { z } from 'zod';
import type { Classify, ClassifyPage, ClassifyParams } from './classify';

// proto3 has no required fields and the gateway is not the only caller: validate here too.
const option = z.enum(CANONICAL_OPTIONS);
const conversationOption = z.enum(['', 'semantic', 'exact_match']);
const optionalScore = (max: number) => z.number().min(0).max(max).optional();
const paramsSchema = z.object({
  classes: z
    .array(
      z.object({
        name: z.string().max(200),
        prompts: z.array(z.string().max(1000)),
        options: z.array(option),
        conversation_option: conversationOption,
      }),
    )
    .max(100),
  options: z.array(option).min(1),
  conversation_option: conversationOption.transform((v) => v || 'semantic'),
  threshold: z
    .object({
      min_video_score: optionalScore(100),
      min_clip_score: optionalScore(100),
      min_duration_ratio: optionalScore(1),
      min_confidence: z.enum(['', 'high', 'medium', 'low', 'none']),
    })
    .nullish(),
  show_detailed_score: z.boolean(),
  include_clips: z.boolean(),
  page_limit: protoPageLimitSchema,
});

const videoIdsSchema = z.object({ video_ids: z.array(z.string()).max(1000) });

/** A request's classes, options, thresholds and paging (the same in Classify and ClassifyBulk). */
export function classifyParams(request: unknown): ClassifyParams {
  const p = parseInput(paramsSchema, request);
  return {
    classes: p.classes.map((c) => ({
      name: c.name,
      prompts: c.prompts,
      options: c.options.length > 0 ? c.options : undefined,
      conversationOption: c.conversation_option || undefined,
    })),
    options: p.options,
    conversationOption: p.conversation_option,
    confidence: p.threshold?.min_confidence || 'low',
    thresholds: {
      minVideoScore: p.threshold?.min_video_score,
      minClipScore: p.threshold?.min_clip_score,
      minDurationRatio: p.threshold?.min_duration_ratio,
    },
    showDetailedScore: p.show_detailed_score,
    includeClips: p.include_clips,
    pageLimit: p.page_limit,
  };
}

function toProtoPage(page: ClassifyPage): ClassifyResultPage__Input {
  return {
    data: page.data.map((video) => ({
      video_id: video.videoId,
      classes: video.classes.map((c) => ({
        name: c.name,
        score: c.score,
        duration_ratio: c.durationRatio,
        detailed_scores: c.detailedScores
          ? {
              max_score: c.detailedScores.maxScore,
              avg_score: c.detailedScores.avgScore,
              normalized_score: c.detailedScores.normalizedScore,
            }
          : null,
        clips: c.clips.map((clip) => ({
          start: clip.start,
          end: clip.end,
          score: clip.score,
          option: clip.option,
          prompt: clip.prompt,
          thumbnail_key: clip.thumbnailKey,
          index_id: clip.indexId,
        })),
      })),
    })),
    page_info: {
      limit_per_page: page.pageInfo.limitPerPage,
      total_results: page.pageInfo.totalResults,
      next_page_token: page.pageInfo.nextPageToken,
      prev_page_token: page.pageInfo.prevPageToken,
      page_expires_at: toTimestamp(page.pageInfo.expiresAt),
    },
  };
}

export function classifyServiceImplementation(classify: Classify, logger: Logger): UntypedServiceImplementation {
  return implement<ClassifyServiceHandlers>(
    {
      // ctx.signal: the caller went away (the gateway cancels when its client disconnects) or its deadline passed.
      async Classify(request, ctx) {
        const params = classifyParams(request);
        const { video_ids } = parseInput(videoIdsSchema, request);
        return toProtoPage(
          await classify.classify(
            requireOrg(ctx),
            video_ids.map((id) => knownId('Video', id)),
            params,
            ctx.signal,
          ),
        );
      },
      async ClassifyBulk(request, ctx) {
        const params = classifyParams(request);
        return toProtoPage(await classify.classifyIndex(requireOrg(ctx), knownId('Index', request.index_id), params, ctx.signal));
      },
      async GetClassifyPage(request, ctx) {
        return toProtoPage(await classify.page(requireOrg(ctx), request.page_token));
      },
    },
    logger,
  );
}
