import { callUnary, createServiceClient, type OutgoingContext } from '@vus/grpc';
import type { CreateEmbeddingRequest__Input } from '@vus/grpc/types/embed/v1/CreateEmbeddingRequest';
import type { DetectImageLabelsRequest__Input } from '@vus/grpc/types/embed/v1/DetectImageLabelsRequest';
import type { DetectImageLabelsResponse } from '@vus/grpc/types/embed/v1/DetectImageLabelsResponse';
import type { EmbedQueryRequest__Input } from '@vus/grpc/types/embed/v1/EmbedQueryRequest';
import type { EmbedQueryResponse } from '@vus/grpc/types/embed/v1/EmbedQueryResponse';
import type { EmbedServiceClient } from '@vus/grpc/types/embed/v1/EmbedService';
import type { Embedding } from '@vus/grpc/types/embed/v1/Embedding';
import type { ListModelsResponse } from '@vus/grpc/types/embed/v1/ListModelsResponse';
import type { CreateEmbedTaskRequest__Input } from '@vus/grpc/types/embed/v1/CreateEmbedTaskRequest';
import type { EmbedTask } from '@vus/grpc/types/embed/v1/EmbedTask';
import type { GetEmbedTaskRequest__Input } from '@vus/grpc/types/embed/v1/GetEmbedTaskRequest';
import type { GetEmbedTaskStatusRequest__Input } from '@vus/grpc/types/embed/v1/GetEmbedTaskStatusRequest';
import type { ListEmbedTasksRequest__Input } from '@vus/grpc/types/embed/v1/ListEmbedTasksRequest';
import type { ListEmbedTasksResponse } from '@vus/grpc/types/embed/v1/ListEmbedTasksResponse';
import type { EmbedIndexedVideoRequest__Input } from '@vus/grpc/types/embed/v1/EmbedIndexedVideoRequest';

/** embed-service: embeddings of text, images and audio; query vectors; the models it serves. */
export function createEmbedClient(address: string) {
  const client = createServiceClient<EmbedServiceClient>('embed-service', address);
  return {
    createEmbedding: (ctx: OutgoingContext, request: CreateEmbeddingRequest__Input) =>
      callUnary<Embedding>((md, opts, cb) => client.CreateEmbedding(request, md, opts, cb), ctx),
    embedQuery: (ctx: OutgoingContext, request: EmbedQueryRequest__Input) =>
      callUnary<EmbedQueryResponse>((md, opts, cb) => client.EmbedQuery(request, md, opts, cb), ctx),
    createEmbedTask: (ctx: OutgoingContext, request: CreateEmbedTaskRequest__Input) =>
      callUnary<EmbedTask>((md, opts, cb) => client.CreateEmbedTask(request, md, opts, cb), ctx),
    getEmbedTask: (ctx: OutgoingContext, request: GetEmbedTaskRequest__Input) =>
      callUnary<EmbedTask>((md, opts, cb) => client.GetEmbedTask(request, md, opts, cb), ctx),
    getEmbedTaskStatus: (ctx: OutgoingContext, request: GetEmbedTaskStatusRequest__Input) =>
      callUnary<EmbedTask>((md, opts, cb) => client.GetEmbedTaskStatus(request, md, opts, cb), ctx),
    listEmbedTasks: (ctx: OutgoingContext, request: ListEmbedTasksRequest__Input) =>
      callUnary<ListEmbedTasksResponse>((md, opts, cb) => client.ListEmbedTasks(request, md, opts, cb), ctx),
    embedIndexedVideo: (ctx: OutgoingContext, request: EmbedIndexedVideoRequest__Input) =>
      callUnary<Embedding>((md, opts, cb) => client.EmbedIndexedVideo(request, md, opts, cb), ctx),
    detectImageLabels: (ctx: OutgoingContext, request: DetectImageLabelsRequest__Input) =>
      callUnary<DetectImageLabelsResponse>((md, opts, cb) => client.DetectImageLabels(request, md, opts, cb), ctx),
    listModels: (ctx: OutgoingContext) => callUnary<ListModelsResponse>((md, opts, cb) => client.ListModels({}, md, opts, cb), ctx),
    close: () => client.close(),
  };
}

export type EmbedClient = ReturnType<typeof createEmbedClient>;
