import type * as grpc from '@grpc/grpc-js';
import {
  callUnary,
  createServiceClient,
  DEFAULT_CALL_POLICY,
  fromServiceError,
  inheritCaller,
  internalSecret,
  toMetadata,
  type OutgoingContext,
} from '@vus/grpc';
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
    async *analyzeVideoStream(
      ctx: OutgoingContext,
      request: AnalyzeVideoRequest__Input,
      signal?: AbortSignal,
    ): AsyncIterable<AnalyzeStreamEvent> {
      const outgoing = inheritCaller(ctx);
      const deadline = outgoing.deadline ?? new Date(Date.now() + DEFAULT_CALL_POLICY.defaultTimeoutMs);
      const call = client.AnalyzeVideoStream(request, toMetadata({ ...outgoing, deadline }, internalSecret()), { deadline });
      const cancel = () => call.cancel();
      signal?.addEventListener('abort', cancel, { once: true });
      try {
        for await (const event of call as AsyncIterable<AnalyzeStreamEvent>) yield event;
      } catch (error) {
        if (signal?.aborted) return;
        throw fromServiceError(error as grpc.ServiceError);
      } finally {
        signal?.removeEventListener('abort', cancel);
        // A consumer that stops early (return()) must not leave the generation running.
        call.cancel();
      }
    },
    close: () => client.close(),
  };
}

export type AnalyzeClient = ReturnType<typeof createAnalyzeClient>;
