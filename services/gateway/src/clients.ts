import { callUnary, createClient, loadProto, type OutgoingContext } from '@vus/grpc';
import type { CreateIndexRequest__Input } from '@vus/grpc/types/index/v1/CreateIndexRequest';
import type { Engine } from '@vus/grpc/types/index/v1/Engine';
import type { Index } from '@vus/grpc/types/index/v1/Index';
import type { IndexServiceClient } from '@vus/grpc/types/index/v1/IndexService';
import type { ListEnginesResponse } from '@vus/grpc/types/index/v1/ListEnginesResponse';
import type { ListIndexesRequest__Input } from '@vus/grpc/types/index/v1/ListIndexesRequest';
import type { ListIndexesResponse } from '@vus/grpc/types/index/v1/ListIndexesResponse';
import type { GetVideoArtifactsRequest__Input } from '@vus/grpc/types/index/v1/GetVideoArtifactsRequest';
import type { GetVideoThumbnailRequest__Input } from '@vus/grpc/types/index/v1/GetVideoThumbnailRequest';
import type { ListVideosRequest__Input } from '@vus/grpc/types/index/v1/ListVideosRequest';
import type { ListVideosResponse } from '@vus/grpc/types/index/v1/ListVideosResponse';
import type { UpdateVideoRequest__Input } from '@vus/grpc/types/index/v1/UpdateVideoRequest';
import type { Video } from '@vus/grpc/types/index/v1/Video';
import type { VideoArtifacts } from '@vus/grpc/types/index/v1/VideoArtifacts';
import type { VideoThumbnail } from '@vus/grpc/types/index/v1/VideoThumbnail';
import type { CreateTaskRequest__Input } from '@vus/grpc/types/task/v1/CreateTaskRequest';
import type { GetTaskStatusCountsRequest__Input } from '@vus/grpc/types/task/v1/GetTaskStatusCountsRequest';
import type { ListTasksRequest__Input } from '@vus/grpc/types/task/v1/ListTasksRequest';
import type { ListTasksResponse } from '@vus/grpc/types/task/v1/ListTasksResponse';
import type { Task } from '@vus/grpc/types/task/v1/Task';
import type { TaskServiceClient } from '@vus/grpc/types/task/v1/TaskService';
import type { TaskStatusCounts } from '@vus/grpc/types/task/v1/TaskStatusCounts';
import type { CreateWebhookEndpointRequest__Input } from '@vus/grpc/types/task/v1/CreateWebhookEndpointRequest';
import type { ListWebhookDeliveriesRequest__Input } from '@vus/grpc/types/task/v1/ListWebhookDeliveriesRequest';
import type { ListWebhookDeliveriesResponse } from '@vus/grpc/types/task/v1/ListWebhookDeliveriesResponse';
import type { ListWebhookEndpointsResponse } from '@vus/grpc/types/task/v1/ListWebhookEndpointsResponse';
import type { WebhookEndpoint } from '@vus/grpc/types/task/v1/WebhookEndpoint';

/** One function per downstream RPC; each carries the caller's identity and deadline. */
export function createIndexClient(address: string) {
  const client: IndexServiceClient = createClient(loadProto().proto.vus.index.v1.IndexService, address);
  return {
    createIndex: (ctx: OutgoingContext, request: CreateIndexRequest__Input) =>
      callUnary<Index>((md, opts, cb) => client.CreateIndex(request, md, opts, cb), ctx),
    getIndex: (ctx: OutgoingContext, indexId: string) =>
      callUnary<Index>((md, opts, cb) => client.GetIndex({ index_id: indexId }, md, opts, cb), ctx),
    listIndexes: (ctx: OutgoingContext, request: ListIndexesRequest__Input) =>
      callUnary<ListIndexesResponse>((md, opts, cb) => client.ListIndexes(request, md, opts, cb), ctx),
    renameIndex: (ctx: OutgoingContext, indexId: string, name: string) =>
      callUnary<Index>((md, opts, cb) => client.UpdateIndex({ index_id: indexId, name }, md, opts, cb), ctx),
    deleteIndex: (ctx: OutgoingContext, indexId: string) =>
      callUnary<unknown>((md, opts, cb) => client.DeleteIndex({ index_id: indexId }, md, opts, cb), ctx),
    listEngines: (ctx: OutgoingContext, page: number, pageLimit: number) =>
      callUnary<ListEnginesResponse>((md, opts, cb) => client.ListEngines({ page: { page, page_limit: pageLimit } }, md, opts, cb), ctx),
    getEngine: (ctx: OutgoingContext, engineId: string) =>
      callUnary<Engine>((md, opts, cb) => client.GetEngine({ engine_id: engineId }, md, opts, cb), ctx),
    listVideos: (ctx: OutgoingContext, request: ListVideosRequest__Input) =>
      callUnary<ListVideosResponse>((md, opts, cb) => client.ListVideos(request, md, opts, cb), ctx),
    getVideo: (ctx: OutgoingContext, indexId: string, videoId: string) =>
      callUnary<Video>((md, opts, cb) => client.GetVideo({ index_id: indexId, video_id: videoId }, md, opts, cb), ctx),
    updateVideo: (ctx: OutgoingContext, request: UpdateVideoRequest__Input) =>
      callUnary<Video>((md, opts, cb) => client.UpdateVideo(request, md, opts, cb), ctx),
    deleteVideo: (ctx: OutgoingContext, indexId: string, videoId: string) =>
      callUnary<unknown>((md, opts, cb) => client.DeleteVideo({ index_id: indexId, video_id: videoId }, md, opts, cb), ctx),
    getVideoArtifacts: (ctx: OutgoingContext, request: GetVideoArtifactsRequest__Input) =>
      callUnary<VideoArtifacts>((md, opts, cb) => client.GetVideoArtifacts(request, md, opts, cb), ctx),
    getVideoThumbnail: (ctx: OutgoingContext, request: GetVideoThumbnailRequest__Input) =>
      callUnary<VideoThumbnail>((md, opts, cb) => client.GetVideoThumbnail(request, md, opts, cb), ctx),
    close: () => client.close(),
  };
}

export type IndexClient = ReturnType<typeof createIndexClient>;

/** task-service: indexing tasks and webhooks. */
export function createTaskClient(address: string) {
  const client: TaskServiceClient = createClient(loadProto().proto.vus.task.v1.TaskService, address);
  return {
    createTask: (ctx: OutgoingContext, request: CreateTaskRequest__Input) =>
      callUnary<Task>((md, opts, cb) => client.CreateTask(request, md, opts, cb), ctx),
    getTask: (ctx: OutgoingContext, taskId: string) =>
      callUnary<Task>((md, opts, cb) => client.GetTask({ task_id: taskId }, md, opts, cb), ctx),
    listTasks: (ctx: OutgoingContext, request: ListTasksRequest__Input) =>
      callUnary<ListTasksResponse>((md, opts, cb) => client.ListTasks(request, md, opts, cb), ctx),
    deleteTask: (ctx: OutgoingContext, taskId: string) =>
      callUnary<unknown>((md, opts, cb) => client.DeleteTask({ task_id: taskId }, md, opts, cb), ctx),
    getTaskStatusCounts: (ctx: OutgoingContext, request: GetTaskStatusCountsRequest__Input) =>
      callUnary<TaskStatusCounts>((md, opts, cb) => client.GetTaskStatusCounts(request, md, opts, cb), ctx),
    createWebhookEndpoint: (ctx: OutgoingContext, request: CreateWebhookEndpointRequest__Input) =>
      callUnary<WebhookEndpoint>((md, opts, cb) => client.CreateWebhookEndpoint(request, md, opts, cb), ctx),
    listWebhookEndpoints: (ctx: OutgoingContext, page: number, pageLimit: number) =>
      callUnary<ListWebhookEndpointsResponse>((md, opts, cb) => client.ListWebhookEndpoints({ page: { page, page_limit: pageLimit } }, md, opts, cb), ctx),
    deleteWebhookEndpoint: (ctx: OutgoingContext, endpointId: string) =>
      callUnary<unknown>((md, opts, cb) => client.DeleteWebhookEndpoint({ webhook_endpoint_id: endpointId }, md, opts, cb), ctx),
    listWebhookDeliveries: (ctx: OutgoingContext, request: ListWebhookDeliveriesRequest__Input) =>
      callUnary<ListWebhookDeliveriesResponse>((md, opts, cb) => client.ListWebhookDeliveries(request, md, opts, cb), ctx),
    close: () => client.close(),
  };
}

export type TaskClient = ReturnType<typeof createTaskClient>;

export interface Clients {
  index: IndexClient;
  /** Absent when no task-service is configured: the task endpoints answer 501. */
  task?: TaskClient | undefined;
}
