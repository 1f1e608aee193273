import { knownId } from '@vus/core';
import { Router, type Request } from 'express';
import { outgoing } from '../http/context';
import { readQuery } from '../http/query';
import { receiveMultipart, type MultipartUpload } from '../http/upload';
import { streamUrls } from '../http/media-urls';
import { presentStatusCounts, presentTask } from '../presenters/tasks';
import { requireEndpoint } from '../versions';
import { parseCreateTask, parseListTasks, parseStatusCounts, TASK_FILE_FIELDS, TASK_FILE_LIMITS } from './tasks.schema';
import { notConfigured, type RouteDeps } from './deps';
import { versionOf } from './version';

/** POST /tasks arrives as multipart with a video: the body is streamed here, not by parseBody. */
export function isTaskUpload(req: Request): boolean {
  // v1's path is /indexes/tasks (versions/v1.ts); seen from inside the task router, /tasks.
  return req.method === 'POST' && /^(?:\/indexes)?\/tasks\/?$/.test(req.path) && req.is('multipart/form-data') === 'multipart/form-data';
}

const taskIdParam = (raw: string | string[] | undefined) => knownId('Task', raw);

const NOTHING_STORED: Omit<MultipartUpload, 'fields'> = { files: [], discard: async () => undefined };

export function taskRoutes({
  clients,
  timeoutMs,
  blobs,
  uploadLimits,
  thumbnails,
}: Pick<RouteDeps, 'clients' | 'timeoutMs' | 'blobs' | 'uploadLimits' | 'thumbnails'>): Router {
  const router = Router();
  const client = clients.task;
  if (!client) {
    const unavailable = () => {
      throw notConfigured('tasks');
    };
    // The same routes as with a task-service (and so the same OpenAPI document), each answering 501.
    router.post('/tasks', unavailable);
    router.get(['/tasks/status', '/tasks', '/tasks/:taskId', '/tasks/:taskId/video-id'], unavailable);
    router.delete('/tasks/:taskId', unavailable);
    return router;
  }
  const tasks = client;
  // Video streams of a task (uploads without a blob store: only video_url works).
  const streams = { ...thumbnails, signer: thumbnails.signer.hls };

  // Answered as soon as the upload is stored and the task written; indexing runs asynchronously.
  router.post('/tasks', async (req, res) => {
    const version = versionOf(res);
    const upload = isTaskUpload(req)
      ? await receiveMultipart(req, blobs, TASK_FILE_FIELDS, { ...uploadLimits, fileBytesOf: TASK_FILE_LIMITS })
      : { ...NOTHING_STORED, fields: req.body as unknown };
    try {
      const plan = parseCreateTask(version, upload.fields, upload.files, req.get('idempotency-key'));
      const store = blobs;
      if (store) await Promise.all(plan.unused.map((f) => store.delete(f.blobKey)));
      const task = await tasks.createTask(outgoing(res, timeoutMs), plan.request);
      const { created } = version.tasks;
      res.status(created.status).json(created.withVideoId ? { _id: task.id, video_id: task.video_id } : { _id: task.id });
    } catch (error) {
      await upload.discard();
      throw error;
    }
  });

  router.get('/tasks/status', async (req, res) => {
    const version = versionOf(res);
    requireEndpoint(version, 'GET /tasks/status');
    const counts = await tasks.getTaskStatusCounts(outgoing(res, timeoutMs), parseStatusCounts(readQuery(req.originalUrl)));
    res.json(presentStatusCounts(version, counts));
  });

  router.get('/tasks', async (req, res) => {
    const version = versionOf(res);
    const result = await tasks.listTasks(outgoing(res, timeoutMs), parseListTasks(version, readQuery(req.originalUrl)));
    const urls = streamUrls(req, streams);
    res.json({
      data: result.data.map((t) => presentTask(version, t, { hlsUrl: urls(t.system_metadata?.duration ?? 0) })),
      page_info: result.page_info,
    });
  });

  router.get('/tasks/:taskId', async (req, res) => {
    const task = await tasks.getTask(outgoing(res, timeoutMs), taskIdParam(req.params.taskId));
    const hlsUrl = streamUrls(req, streams)(task.system_metadata?.duration ?? 0);
    res.json(presentTask(versionOf(res), task, { hlsUrl }));
  });

  // v1 only (versions/v1.ts; later versions answer it as removed): the task's video, once indexed.
  router.get('/tasks/:taskId/video-id', async (req, res) => {
    const task = await tasks.getTask(outgoing(res, timeoutMs), taskIdParam(req.params.taskId));
    res.json({ video_id: task.status === 'ready' ? task.video_id : null });
  });

  router.delete('/tasks/:taskId', async (req, res) => {
    await tasks.deleteTask(outgoing(res, timeoutMs), taskIdParam(req.params.taskId));
    // No Content-Type on 204: js 0.1/0.2 would try to parse an empty JSON body (API-CONTRACT §2.4).
    res.status(204).end();
  });

  return router;
}
