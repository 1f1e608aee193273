import { callServerStream, callUnary, createServiceClient, type OutgoingContext } from '@vus/grpc';
import type { AnalysisResult } from '@vus/grpc/types/analyze/v1/AnalysisResult';
import type { AnalyzeBatch } from '@vus/grpc/types/analyze/v1/AnalyzeBatch';
import type { AnalyzeBatchCreated } from '@vus/grpc/types/analyze/v1/AnalyzeBatchCreated';
import type { AnalyzeBatchPage } from '@vus/grpc/types/analyze/v1/AnalyzeBatchPage';
import type { AnalyzeTask } from '@vus/grpc/types/analyze/v1/AnalyzeTask';
import type { AnalyzeTaskPage } from '@vus/grpc/types/analyze/v1/AnalyzeTaskPage';
import type { CreateAnalyzeBatchRequest__Input } from '@vus/grpc/types/analyze/v1/CreateAnalyzeBatchRequest';
import type { CreateAnalyzeTaskRequest__Input } from '@vus/grpc/types/analyze/v1/CreateAnalyzeTaskRequest';
import type { ListAnalyzeBatchesRequest__Input } from '@vus/grpc/types/analyze/v1/ListAnalyzeBatchesRequest';
import type { ListAnalyzeTasksRequest__Input } from '@vus/grpc/types/analyze/v1/ListAnalyzeTasksRequest';
import type { AnalyzeServiceClient } from '@vus/grpc/types/analyze/v1/AnalyzeService';
import type { AnalyzeStreamEvent } from '@vus/grpc/types/analyze/v1/AnalyzeStreamEvent';
import type { AnalyzeVideoRequest__Input } from '@vus/grpc/types/analyze/v1/AnalyzeVideoRequest';
import type { GenerateGistRequest__Input } from '@vus/grpc/types/analyze/v1/GenerateGistRequest';
import type { GistResult } from '@vus/grpc/types/analyze/v1/GistResult';
import type { RespondEvent } from '@vus/grpc/types/analyze/v1/RespondEvent';
import type { RespondRequest__Input } from '@vus/grpc/types/analyze/v1/RespondRequest';
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
    /**
     * A response over a knowledge store's items (issue 33): started, then intermediate steps (when
     * asked), text deltas and completed, in that order. Aborting `signal` cancels the call (the
     * service stops retrieving or generating and keeps nothing of the turn); a failure (an unknown
     * session) arrives as an ApiError from the iteration.
     */
    respond: (ctx: OutgoingContext, request: RespondRequest__Input, signal?: AbortSignal): AsyncIterable<RespondEvent> =>
      callServerStream<RespondEvent>((md, opts) => client.Respond(request, md, opts), ctx, signal),
    // Asynchronous analysis: tasks and batches.
    createAnalyzeTask: (ctx: OutgoingContext, request: CreateAnalyzeTaskRequest__Input) =>
      callUnary<AnalyzeTask>((md, opts, cb) => client.CreateAnalyzeTask(request, md, opts, cb), ctx),
    getAnalyzeTask: (ctx: OutgoingContext, id: string) =>
      callUnary<AnalyzeTask>((md, opts, cb) => client.GetAnalyzeTask({ id }, md, opts, cb), ctx),
    listAnalyzeTasks: (ctx: OutgoingContext, request: ListAnalyzeTasksRequest__Input) =>
      callUnary<AnalyzeTaskPage>((md, opts, cb) => client.ListAnalyzeTasks(request, md, opts, cb), ctx),
    deleteAnalyzeTask: (ctx: OutgoingContext, id: string) =>
      callUnary<object>((md, opts, cb) => client.DeleteAnalyzeTask({ id }, md, opts, cb), ctx),
    createAnalyzeBatch: (ctx: OutgoingContext, request: CreateAnalyzeBatchRequest__Input) =>
      callUnary<AnalyzeBatchCreated>((md, opts, cb) => client.CreateAnalyzeBatch(request, md, opts, cb), ctx),
    getAnalyzeBatch: (ctx: OutgoingContext, id: string) =>
      callUnary<AnalyzeBatch>((md, opts, cb) => client.GetAnalyzeBatch({ id }, md, opts, cb), ctx),
    listAnalyzeBatches: (ctx: OutgoingContext, request: ListAnalyzeBatchesRequest__Input) =>
      callUnary<AnalyzeBatchPage>((md, opts, cb) => client.ListAnalyzeBatches(request, md, opts, cb), ctx),
    deleteAnalyzeBatch: (ctx: OutgoingContext, id: string) =>
      callUnary<object>((md, opts, cb) => client.DeleteAnalyzeBatch({ id }, md, opts, cb), ctx),
    cancelAnalyzeBatch: (ctx: OutgoingContext, id: string) =>
      callUnary<AnalyzeBatch>((md, opts, cb) => client.CancelAnalyzeBatch({ id }, md, opts, cb), ctx),
    /** A batch's items in request order; a failure (an unknown batch) arrives from the iteration. */
    listAnalyzeBatchResults: (ctx: OutgoingContext, id: string, signal?: AbortSignal): AsyncIterable<AnalyzeTask> =>
      callServerStream<AnalyzeTask>((md, opts) => client.ListAnalyzeBatchResults({ id }, md, opts), ctx, signal),
    close: () => client.close(),
  };
}

export type AnalyzeClient = ReturnType<typeof createAnalyzeClient>;
