import type * as grpc from '@grpc/grpc-js';
import { errors, knownId, type Logger } from '@vus/core';
import { implement, implementServerStream, requireOrg, toTimestamp } from '@vus/grpc';
import type { AnalysisResult__Input } from '@vus/grpc/types/analyze/v1/AnalysisResult';
import type { AnalyzeServiceHandlers } from '@vus/grpc/types/analyze/v1/AnalyzeService';
import type { AnalyzeStreamEvent__Input } from '@vus/grpc/types/analyze/v1/AnalyzeStreamEvent';
import type { AnalyzeVideoRequest } from '@vus/grpc/types/analyze/v1/AnalyzeVideoRequest';
import type { RespondEvent__Input } from '@vus/grpc/types/analyze/v1/RespondEvent';
import type { RespondRequest } from '@vus/grpc/types/analyze/v1/RespondRequest';
import type { ResponseFormat } from '@vus/grpc/types/analyze/v1/ResponseFormat';
import type { SummaryResult__Input } from '@vus/grpc/types/analyze/v1/SummaryResult';
import { checkOptions, type AnalyzeService, type GenerationOptions, type StreamEvent } from './analyze';
import type { Summary } from './provider';
import type { ResponseEvent, ResponseOptions, Responses } from './responses/responses';

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

/** Respond's text.format (json_schema, or text), max_output_tokens and temperature, checked. */
function responseOptionsOf(request: RespondRequest): ResponseOptions {
  const format = request.text_format;
  const schema = format?.type === 'json_schema' ? format.json_schema : undefined;
  if (format && format.type !== 'json_schema' && format.type !== 'text' && (format.type || format.json_schema)) {
    throw errors.invalid('text.format', 'Its type must be text or json_schema.');
  }
  if (format?.type === 'json_schema' && !schema) throw errors.notProvided('text.format.schema');
  const temperature = request._temperature === 'temperature' ? request.temperature : undefined;
  return checkOptions({ temperature, maxTokens: request.max_output_tokens, jsonSchema: schema }, 'max_output_tokens');
}

function toProtoResponseEvent(event: ResponseEvent): RespondEvent__Input {
  switch (event.type) {
    case 'started':
      return {
        started: {
          response_id: event.responseId,
          session_id: event.sessionId,
          created_at: toTimestamp(event.createdAt),
          message_id: event.messageId,
        },
      };
    case 'intermediate':
      return { intermediate: { kind: event.kind, summary: event.summary, detail_json: JSON.stringify(event.detail) } };
    case 'text':
      return { text_delta: { delta: event.delta } };
    case 'completed':
      return {
        completed: {
          text: event.text,
          citations: event.citations.map((c) => ({
            start_index: c.startIndex,
            end_index: c.endIndex,
            item_id: c.itemId,
            video_id: c.videoId,
            start_sec: c.startSec,
            end_sec: c.endSec,
            title: c.title,
          })),
          input_tokens: event.inputTokens,
          output_tokens: event.outputTokens,
          status: event.status,
          incomplete_reason: event.incompleteReason,
        },
      };
  }
}

/** Respond: each event written as the domain yields it; a cancelled call (the caller went away) stops the turn, which is then not kept. */
function respondStream(responses: Responses, logger: Logger): grpc.handleServerStreamingCall<RespondRequest, RespondEvent__Input> {
  return implementServerStream(async function* (request: RespondRequest, ctx, signal) {
    if (!request.knowledge_store_id) throw errors.notProvided('knowledge_store_id');
    if (!request.index_id) throw errors.notProvided('index_id');
    const options = responseOptionsOf(request);
    const turn = {
      knowledgeStoreId: request.knowledge_store_id,
      indexId: request.index_id,
      items: request.items.map((i) => ({ itemId: i.item_id, videoId: i.video_id, title: i.title })),
      input: request.input.map((m) => ({ role: m.role, content: m.content })),
      sessionId: request.session_id,
      instructions: request.instructions,
      includeIntermediate: request.include_intermediate,
      selections: request.selections.map((s) => ({ kind: s.kind, id: s.id, label: s.label, itemIds: s.item_ids })),
    };
    for await (const event of responses.respond(requireOrg(ctx), turn, options, signal)) yield toProtoResponseEvent(event);
  }, logger);
}

export function analyzeServiceImplementation(
  analyze: AnalyzeService,
  responses: Responses,
  logger: Logger,
): grpc.UntypedServiceImplementation {
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
  return { ...unary, AnalyzeVideoStream: analyzeStream(analyze, logger), Respond: respondStream(responses, logger) };
}
