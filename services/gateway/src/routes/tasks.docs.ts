import { z } from 'zod';
import { created, file, noContent, ok, paging, type OperationDoc } from '../openapi/operation';
import { id } from '../openapi/shapes';
import { createSchema as createTaskFields } from './tasks.schema';

/**
 * The OpenAPI operations of routes/tasks.ts (Indexing tasks): one per endpoint, named by its
 * descriptor's `doc` (openapi/operation.ts says what an operation holds; openapi/document.ts writes them).
 */

/** POST /tasks */
export const createTask: OperationDoc = (s) => {
  const { videoStreamFlag, acceptsUserMetadata, created: answer } = s.version.tasks;
  // The route's schema reads both stream switches and user_metadata; the version uses one switch and maybe no metadata.
  const { enable_video_stream, disable_video_stream, user_metadata, ...common } = createTaskFields.shape;
  const fields = z.object({
    ...common,
    ...(videoStreamFlag.field === 'enable_video_stream' ? { enable_video_stream } : { disable_video_stream }),
    ...(acceptsUserMetadata ? { user_metadata } : {}),
    video_file: file.optional(),
    transcription_file: file.optional(),
  });
  return {
    summary: 'Upload a video and index it',
    description: 'video_file or video_url (the URL wins). Answered once the upload is stored; follow the task until ready or failed.',
    tag: 'Tasks',
    body: { multipart: fields, json: fields.omit({ video_file: true, transcription_file: true }), required: true },
    responses: created(s.taskCreated, answer.status),
  };
};

/** GET /tasks */
export const listTasks: OperationDoc = (s) => ({
  summary: 'List tasks',
  tag: 'Tasks',
  query: {
    ...paging,
    index_id: { schema: z.string().optional() },
    status: { schema: z.array(z.enum(Object.keys(s.version.tasks.statuses) as [string, ...string[]])).optional() },
  },
  responses: ok(s.list(s.task)),
});

/** GET /tasks/{task_id} */
export const retrieveTask: OperationDoc = (s) => ({ summary: 'Retrieve a task', tag: 'Tasks', responses: ok(s.task) });

/** GET /tasks/{task_id}/video-id */
export const taskVideoId: OperationDoc = () => ({
  summary: 'The video of a task',
  description: 'Deprecated in v1; null until the task is ready.',
  tag: 'Tasks',
  responses: ok(z.object({ video_id: id.nullable() })),
});

/** DELETE /tasks/{task_id} */
export const deleteTask: OperationDoc = () => ({
  summary: 'Delete a task',
  description: 'Only a ready or failed task.',
  tag: 'Tasks',
  responses: noContent,
});

/** GET /tasks/status */
export const taskStatusCounts: OperationDoc = (s) => ({
  summary: 'Count the tasks of an index by status',
  tag: 'Tasks',
  query: { index_id: { schema: z.string() } },
  responses: ok(s.taskStatusCounts),
});
