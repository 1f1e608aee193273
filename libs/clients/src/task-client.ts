import { callUnary, createServiceClient, type OutgoingContext } from '@vus/grpc';
import type { CreateTaskRequest__Input } from '@vus/grpc/types/task/v1/CreateTaskRequest';
import type { CreateWebhookEndpointRequest__Input } from '@vus/grpc/types/task/v1/CreateWebhookEndpointRequest';
import type { GetTaskStatusCountsRequest__Input } from '@vus/grpc/types/task/v1/GetTaskStatusCountsRequest';
import type { ListTasksRequest__Input } from '@vus/grpc/types/task/v1/ListTasksRequest';
import type { ListTasksResponse } from '@vus/grpc/types/task/v1/ListTasksResponse';
import type { ListWebhookDeliveriesRequest__Input } from '@vus/grpc/types/task/v1/ListWebhookDeliveriesRequest';
import type { ListWebhookDeliveriesResponse } from '@vus/grpc/types/task/v1/ListWebhookDeliveriesResponse';
import type { ListWebhookEndpointsResponse } from '@vus/grpc/types/task/v1/ListWebhookEndpointsResponse';
import type { Task } from '@vus/grpc/types/task/v1/Task';
import type { TaskServiceClient } from '@vus/grpc/types/task/v1/TaskService';
import type { TaskStatusCounts } from '@vus/grpc/types/task/v1/TaskStatusCounts';
import type { WebhookEndpoint } from '@vus/grpc/types/task/v1/WebhookEndpoint';

/** task-service: indexing tasks and webhooks. */
export function createTaskClient(address: string) {
  const client = createServiceClient<TaskServiceClient>('task-service', address);
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
      callUnary<ListWebhookEndpointsResponse>(
        (md, opts, cb) => client.ListWebhookEndpoints({ page: { page, page_limit: pageLimit } }, md, opts, cb),
        ctx,
      ),
    deleteWebhookEndpoint: (ctx: OutgoingContext, endpointId: string) =>
      callUnary<unknown>((md, opts, cb) => client.DeleteWebhookEndpoint({ webhook_endpoint_id: endpointId }, md, opts, cb), ctx),
    listWebhookDeliveries: (ctx: OutgoingContext, request: ListWebhookDeliveriesRequest__Input) =>
      callUnary<ListWebhookDeliveriesResponse>((md, opts, cb) => client.ListWebhookDeliveries(request, md, opts, cb), ctx),
    close: () => client.close(),
  };
}

export type TaskClient = ReturnType<typeof createTaskClient>;
