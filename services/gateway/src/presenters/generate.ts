import type { AnalysisResult } from '@vus/grpc/types/analyze/v1/AnalysisResult';
import type { AnalyzeStreamEvent } from '@vus/grpc/types/analyze/v1/AnalyzeStreamEvent';
import type { GistResult } from '@vus/grpc/types/analyze/v1/GistResult';
import type { SummaryResult } from '@vus/grpc/types/analyze/v1/SummaryResult';
import type { VersionAdapter } from '../versions';

const usageOf = (version: VersionAdapter, tokens: number | undefined) =>
  version.generate.usage ? { usage: { output_tokens: tokens ?? 0 } } : {};

/** Only the requested types (API-CONTRACT §5.7). */
export function presentGist(version: VersionAdapter, result: GistResult, types: readonly string[]): Record<string, unknown> {
  return {
    id: result.id,
    ...(types.includes('title') ? { title: result.title } : {}),
    ...(types.includes('topic') ? { topics: result.topics } : {}),
    ...(types.includes('hashtag') ? { hashtags: result.hashtags } : {}),
    ...usageOf(version, result.usage?.output_tokens),
  };
}

export function presentSummary(version: VersionAdapter, result: SummaryResult): Record<string, unknown> {
  const type = result.summarize_type;
  const body =
    type === 'chapter'
      ? {
          chapters: result.chapters.map((c) => ({
            chapter_number: c.chapter_number,
            start: c.start,
            end: c.end,
            chapter_title: c.chapter_title,
            chapter_summary: c.chapter_summary,
          })),
        }
      : type === 'highlight'
        ? {
            highlights: result.highlights.map((h) => ({
              start: h.start,
              end: h.end,
              highlight: h.highlight,
              highlight_summary: h.highlight_summary,
            })),
          }
        : { summary: result.summary };
  return {
    id: result.id,
    ...(version.generate.summarizeType ? { summarize_type: type } : {}),
    ...body,
    ...usageOf(version, result.usage?.output_tokens),
  };
}

/** A non-streamed /generate or /analyze answer. */
export function presentGeneration(version: VersionAdapter, result: AnalysisResult): Record<string, unknown> {
  return {
    id: result.id,
    data: result.data,
    ...(version.generate.usage ? { finish_reason: result.finish_reason, ...usageOf(version, result.usage?.output_tokens) } : {}),
  };
}

/** One NDJSON line of a streamed generation (API-CONTRACT §5.7 "Streaming wire format"). */
export function streamLine(event: AnalyzeStreamEvent): Record<string, unknown> | undefined {
  const generationId = event.generation_id;
  if (event.stream_start) return { event_type: 'stream_start', metadata: { generation_id: generationId } };
  if (event.text_generation) return { event_type: 'text_generation', text: event.text_generation.text };
  if (event.stream_end) {
    return {
      event_type: 'stream_end',
      finish_reason: event.stream_end.finish_reason,
      metadata: { generation_id: generationId, usage: { output_tokens: event.stream_end.usage?.output_tokens ?? 0 } },
    };
  }
  return undefined;
}

export function streamErrorLine(message: string): Record<string, unknown> {
  return { event_type: 'stream_error', error: { message } };
}
