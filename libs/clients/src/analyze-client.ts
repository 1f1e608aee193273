import { callServerStream, callUnary, createServiceClient, type OutgoingContext } from '@vus/grpc';
import type { AnalysisResult } from '@vus/grpc/types/analyze/v1/AnalysisResult';
import type { AnalyzeServiceClient } from '@vus/grpc/types/analyze/v1/AnalyzeService';
import type { AnalyzeStreamEvent } from '@vus/grpc/types/analyze/v1/AnalyzeStreamEvent';
import type { AnalyzeVideoRequest__Input } from '@vus/grpc/types/analyze/v1/AnalyzeVideoRequest';
import type { GenerateGistRequest__Input } from '@vus/grpc/types/analyze/v1/GenerateGistRequest';
import type { GistResult } from '@vus/grpc/types/analyze/v1/GistResult';
import type { SummarizeVideoRequest__Input } from '@vus/grpc/types/analyze/v1/SummarizeVideoRequest';
import type { SummaryResult } from '@vus/grpc/types/analyze/v1/SummaryResult';

/** analyze-service: gist, summaries and open prompts over a video's evidence. */
export function createAnalyzeClient(address: string) {
  const client = createServiceClient<AnalyzeServiceClient>('analyze-service', address);
  return {
    generateGist: (ctx: OutgoingContext, request: GenerateGistRequest__Input) =>
      callUnary<GistResult>((md, opts, cb) => client.GenerateGist(request, md, opts, cb), ctx),
    summarizeVideo: (ctx: OutgoingContext, request: SummarizeVideoRequest__Input) =>
      callUnary<SummaryResult>((md, opts, cb) => client.SummarizeVideo(request, md, opts, cb), ctx),
    analyzeVideo: (ctx: OutgoingContext, request: AnalyzeVideoRequest__Input) =>
      callUnary<AnalysisResult>((md, opts, cb) => client.AnalyzeVideo(request, md, opts, cb), ctx),
    /**
     * The generation's events as analyze-service produces them. Aborting `signal` cancels the call
     * (the service stops generating); a failure arrives as an ApiError from the iteration.
     */
    /**
     * The generation's events as analyze-service produces them. Aborting `signal` cancels the call
     * (the service stops generating); a failure arrives as an ApiError from the iteration.
     */
    analyzeVideoStream: (
      ctx: OutgoingContext,
      request: AnalyzeVideoRequest__Input,
      signal?: AbortSignal,
    ): AsyncIterable<AnalyzeStreamEvent> =>
      callServerStream<AnalyzeStreamEvent>((md, opts) => client.AnalyzeVideoStream(request, md, opts), ctx, signal),
    close: () => client.close(),
  };
}

export type AnalyzeClient = ReturnType<typeof createAnalyzeClient>;
