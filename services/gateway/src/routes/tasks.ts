import { knownId } from '@vus/core';
import type { Request, Response } from 'express';
import type { Endpoint } from '../endpoints/endpoint';
import { outgoing } from '../http/context';
import { readQuery } from '../http/query';
import { receiveMultipart, type MultipartUpload } from '../http/upload';
import { streamUrls } from '../http/media-urls';
import { presentStatusCounts, presentTask } from '../presenters/tasks';
import { parseCreateTask, parseListTasks, parseStatusCounts, TASK_FILE_FIELDS, TASK_FILE_LIMITS } from './tasks.schema';
import { configured, type RouteDeps } from './deps';
import * as docs from './tasks.docs';
import { versionOf } from './version';

/** POST /tasks arrives as multipart with a video: the body is streamed here, not by parseBody. */
const isUpload = (req: Request): boolean => req.is('multipart/form-data') === 'multipart/form-data';

const taskIdParam = (raw: string | string[] | undefined) => knownId('Task', raw);

const NOTHING_STORED: Omit<MultipartUpload, 'fields'> = { files: [], discard: async () => undefined };

export function taskEndpoints({
  clients,
  timeoutMs,
  blobs,
  uploadLimits,
  thumbnails,
}: Pick<RouteDeps, 'clients' | 'timeoutMs' | 'blobs' | 'uploadLimits' | 'thumbnails'>): Endpoint[] {
  // Without a task-service every task endpoint is still served (the same OpenAPI document), answering 501.
  const tasks = () => configured(clients.task, 'tasks');
  // Video streams of a task (uploads without a blob store: only video_url works).
  const streams = { ...thumbnails, signer: thumbnails.signer.hls };

  // Answered as soon as the upload is stored and the task written; indexing runs asynchronously.
  const create = async (req: Request, res: Response) => {
    const client = tasks();
    const version = versionOf(res);
    const upload = isUpload(req)
      ? await receiveMultipart(req, blobs, TASK_FILE_FIELDS, { ...uploadLimits, fileBytesOf: TASK_FILE_LIMITS })
      : { ...NOTHING_STORED, fields: req.body as unknown };
    try {
      const plan = parseCreateTask(version, upload.fields, upload.files, req.get('idempotency-key'));
      const store = blobs;
      if (store) await Promise.all(plan.unused.map((f) => store.delete(f.blobKey)));
      const task = await client.createTask(outgoing(res, timeoutMs), plan.request);
      const { created } = version.tasks;
      res.status(created.status).json(created.withVideoId ? { _id: task.id, video_id: task.video_id } : { _id: task.id });
    } catch (error) {
      await upload.discard();
      throw error;
    }
  };

  const statusCounts = async (req: Request, res: Response) => {
    const version = versionOf(res);
    const counts = await tasks().getTaskStatusCounts(outgoing(res, timeoutMs), parseStatusCounts(readQuery(req.originalUrl)));
    res.json(presentStatusCounts(version, counts));
  };

  const list = async (req: Request, res: Response) => {
    const version = versionOf(res);
    const result = await tasks().listTasks(outgoing(res, timeoutMs), parseListTasks(version, readQuery(req.originalUrl)));
    const urls = streamUrls(req, streams);
    res.json({
      data: result.data.map((t) => presentTask(version, t, { hlsUrl: urls(t.system_metadata?.duration ?? 0) })),
      page_info: result.page_info,
    });
  };

  const retrieve = async (req: Request, res: Response) => {
    const task = await tasks().getTask(outgoing(res, timeoutMs), taskIdParam(req.params.taskId));
    const hlsUrl = streamUrls(req, streams)(task.system_metadata?.duration ?? 0);
    res.json(presentTask(versionOf(res), task, { hlsUrl }));
  };

  // v1 only (versions/v1.ts; later versions answer it as removed): the task's video, once indexed.
  const videoId = async (req: Request, res: Response) => {
    const task = await tasks().getTask(outgoing(res, timeoutMs), taskIdParam(req.params.taskId));
    res.json({ video_id: task.status === 'ready' ? task.video_id : null });
  };

  const remove = async (req: Request, res: Response) => {
    await tasks().deleteTask(outgoing(res, timeoutMs), taskIdParam(req.params.taskId));
    // No Content-Type on 204: js 0.1/0.2 would try to parse an empty JSON body (API-CONTRACT §2.4).
    res.status(204).end();
  };

  return [
    { method: 'post', path: '/tasks', rate: 'index', body: { streamedWhen: isUpload }, doc: docs.createTask, handle: create },
    { method: 'get', path: '/tasks/status', availability: 'GET /tasks/status', doc: docs.taskStatusCounts, handle: statusCounts },
    { method: 'get', path: '/tasks', doc: docs.listTasks, handle: list },
    { method: 'get', path: '/tasks/:taskId', doc: docs.retrieveTask, handle: retrieve },
    {
      method: 'get',
      path: '/tasks/:taskId/video-id',
      availability: 'GET /tasks/{task_id}/video-id',
      doc: docs.taskVideoId,
      handle: videoId,
    },
    { method: 'delete', path: '/tasks/:taskId', doc: docs.deleteTask, handle: remove },
  ];
}
