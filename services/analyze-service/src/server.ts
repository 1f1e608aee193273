import type * as grpc from '@grpc/grpc-js';
import { errors, knownId, type Logger } from '@vus/core';
import { implement, implementServerStream, requireOrg } from '@vus/grpc';
import type { AnalysisResult__Input } from '@vus/grpc/types/analyze/v1/AnalysisResult';
import type { AnalyzeServiceHandlers } from '@vus/grpc/types/analyze/v1/AnalyzeService';
import type { AnalyzeStreamEvent__Input } from '@vus/grpc/types/analyze/v1/AnalyzeStreamEvent';
import type { AnalyzeVideoRequest } from '@vus/grpc/types/analyze/v1/AnalyzeVideoRequest';
import type { ResponseFormat } from '@vus/grpc/types/analyze/v1/ResponseFormat';
import type { SummaryResult__Input } from '@vus/grpc/types/analyze/v1/SummaryResult';
import type { AnalyzeService, GenerationOptions, StreamEvent } from './analyze';
import type { Summary } from './provider';

const videoId = (raw: string) => knownId('Video', raw);

/** The request's options; an unset proto3 `optional` is absent, a set one is checked by the domain. */
function optionsOf(request: {
  temperature?: number;
  _temperature?: string;
  max_tokens: number;
  response_format: ResponseFormat | null;
}): GenerationOptions {
  const format = request.response_format;
  if (format && (format.type || format.json_schema)) {
    if (format.type !== 'json_schema') throw errors.invalid('response_format', 'Its type must be json_schema.');
    if (!format.json_schema) throw errors.notProvided('response_format.json_schema');
  }
  return {
    temperature: request._temperature === 'temperature' ? request.temperature : undefined,
    maxTokens: request.max_tokens,
    jsonSchema: format?.json_schema || undefined,
  };
}

function toProtoSummary(id: string, summary: Summary, outputTokens: number): SummaryResult__Input {
  const base = { id, summarize_type: summary.type, usage: { output_tokens: outputTokens } };
  if (summary.type === 'summary') return { ...base, summary: summary.summary };
  if (summary.type === 'chapter') {
    return {
      ...base,
      chapters: summary.chapters.map((c) => ({
        chapter_number: c.chapterNumber,
        start: c.start,
        end: c.end,
        chapter_title: c.title,
        chapter_summary: c.summary,
      })),
    };
  }
  return {
    ...base,
    highlights: summary.highlights.map((h) => ({ start: h.start, end: h.end, highlight: h.highlight, highlight_summary: h.summary })),
  };
}

function toProtoEvent(generationId: string, event: StreamEvent): AnalyzeStreamEvent__Input {
  switch (event.type) {
    case 'start':
      return { generation_id: generationId, stream_start: {} };
    case 'text':
      return { generation_id: generationId, text_generation: { text: event.text, output_tokens: event.outputTokens } };
    case 'end':
      return {
        generation_id: generationId,
        stream_end: { finish_reason: event.finishReason, usage: { output_tokens: event.outputTokens } },
      };
  }
}

/**
 * AnalyzeVideoStream: each event is written as soon as the domain yields it (waiting for the
 * transport to drain); a cancelled call (the caller went away) aborts the generation.
 */
function analyzeStream(
  analyze: AnalyzeService,
  logger: Logger,
): grpc.handleServerStreamingCall<AnalyzeVideoRequest, AnalyzeStreamEvent__Input> {
  return implementServerStream(async function* (request: AnalyzeVideoRequest, ctx, signal) {
    let generationId = '';
    for await (const event of analyze.analyze(requireOrg(ctx), videoId(request.video_id), request.prompt, optionsOf(request), signal)) {
      if (event.type === 'start') generationId = event.generationId;
      yield toProtoEvent(generationId, event);
    }
  }, logger);
}

export function analyzeServiceImplementation(analyze: AnalyzeService, logger: Logger): grpc.UntypedServiceImplementation {
  const unary = implement<AnalyzeServiceHandlers>(
    {
      async GenerateGist(request, ctx) {
        const { id, gist, outputTokens } = await analyze.gist(requireOrg(ctx), videoId(request.video_id), request.types);
        return {
          id,
          title: gist.title ?? '',
          topics: gist.topics ?? [],
          hashtags: gist.hashtags ?? [],
          usage: { output_tokens: outputTokens },
        };
      },
      async SummarizeVideo(request, ctx) {
        const { id, summary, outputTokens } = await analyze.summarize(
          requireOrg(ctx),
          videoId(request.video_id),
          request.type,
          request.prompt,
          optionsOf(request),
        );
        return toProtoSummary(id, summary, outputTokens);
      },
      async AnalyzeVideo(request, ctx): Promise<AnalysisResult__Input> {
        const result: AnalysisResult__Input = { id: '', data: '', finish_reason: 'stop', usage: { output_tokens: 0 } };
        for await (const event of analyze.analyze(requireOrg(ctx), videoId(request.video_id), request.prompt, optionsOf(request))) {
          if (event.type === 'start') result.id = event.generationId;
          else if (event.type === 'text') result.data += event.text;
          else Object.assign(result, { finish_reason: event.finishReason, usage: { output_tokens: event.outputTokens } });
        }
        return result;
      },
    },
    logger,
  );
  return { ...unary, AnalyzeVideoStream: analyzeStream(analyze, logger) };
}
