import { ApiError, knownId } from '@vus/core';
import type { CreateTaskRequest__Input } from '@vus/grpc/types/task/v1/CreateTaskRequest';
import type { Request, Response } from 'express';
import type { Endpoint } from '../endpoints/endpoint';
import { outgoing } from '../http/context';
import { askProvider, isMediaType, providerUnreachable } from '../providers';
import { objectUrl, parseExternalProvider, parseTransfers } from './imports.schema';
import { configured, type RouteDeps } from './deps';
import * as docs from './imports.docs';

/**
 * Imports from outside services (API-CONTRACT §5.3), as far as they are honest on a server
 * without cloud accounts: the request is validated whole (its indexes must be the caller's), then
 * the provider is asked, within `providers.timeoutMs`. Unreachable: 503 naming the provider and
 * the URL tried, promptly. Reachable: YouTube pages are web pages, not media, and this server has
 * no YouTube extractor, so external-provider creates a task only when the provider serves a media
 * file (a mirror); transfers create one URL task per listed video (S3 objects read path-style and
 * without credentials: a private object fails its task with the HTTP status S3 gave).
 */
export function importEndpoints({ clients, timeoutMs, providers }: Pick<RouteDeps, 'clients' | 'timeoutMs' | 'providers'>): Endpoint[] {
  const { index } = clients;
  // Without a task-service both endpoints are still served, answering 501.
  const tasks = () => configured(clients.task, 'tasks');

  /** 404 unless every index exists and is the caller's (another organization's is a missing one). */
  const requireIndexes = async (res: Response, indexIds: Iterable<string>) => {
    for (const id of new Set(indexIds)) await index.getIndex(outgoing(res, timeoutMs), knownId('Index', id));
  };

  const externalProvider = async (req: Request, res: Response) => {
    const client = tasks();
    const input = parseExternalProvider(req.body);
    await requireIndexes(res, [input.indexId]);
    const tried = `${providers.youtubeUrl.replace(/\/+$/, '')}/watch?v=${input.youtubeId}`;
    const answer = await askProvider(tried, providers.timeoutMs);
    if (!answer.reached) {
      throw providerUnreachable('YouTube', tried, answer.why, 'Download the video and upload it with POST /tasks (video_file) instead.');
    }
    if (answer.status < 200 || answer.status >= 300 || !isMediaType(answer.contentType)) {
      throw new ApiError(
        'not_implemented',
        `YouTube answered GET ${tried} with HTTP ${answer.status} (${answer.contentType || 'no content type'}), which is not a media file: ` +
          'this server does not extract videos from YouTube pages. Download the video and upload it with POST /tasks (video_file), ' +
          'or give its direct media URL as video_url.',
      );
    }
    const task = await client.createTask(outgoing(res, timeoutMs), {
      index_id: input.indexId,
      video_url: tried,
      filename: `youtube-${input.youtubeId}`,
      language: '',
      idempotency_key: req.get('idempotency-key') ?? '',
    });
    res.status(201).json({ _id: task.id });
  };

  const transfers = async (req: Request, res: Response) => {
    const client = tasks();
    const videos = parseTransfers(req.body);
    await requireIndexes(
      res,
      videos.map((v) => v.indexId),
    );
    if (videos.some((v) => v.object.kind === 's3' || v.transcription?.kind === 's3')) {
      const tried = `${providers.s3Url.replace(/\/+$/, '')}/`;
      const answer = await askProvider(tried, providers.timeoutMs);
      if (!answer.reached) {
        throw providerUnreachable(
          'S3',
          tried,
          answer.why,
          'The s3:// objects cannot be read; list presigned https URLs instead, or upload the videos with POST /tasks.',
        );
      }
    }
    // Everything was checked above: a failure from here on is the services', not the file's.
    const ids: string[] = [];
    for (const video of videos) {
      const request: CreateTaskRequest__Input = {
        index_id: video.indexId,
        video_url: objectUrl(video.object, providers.s3Url),
        filename: '',
        language: video.language ?? '',
        idempotency_key: '',
      };
      if (video.transcription) request.transcription_url = objectUrl(video.transcription, providers.s3Url);
      ids.push((await client.createTask(outgoing(res, timeoutMs), request)).id);
    }
    res
      .status(200)
      .json({ message: `${ids.length} video(s) are being transferred; follow them with GET /tasks.`, type: 'transfers', task_ids: ids });
  };

  // A transfer creates one indexing task per listed video: it counts as an indexing request.
  return [
    {
      method: 'post',
      path: '/tasks/external-provider',
      rate: 'index',
      availability: 'POST /tasks/external-provider',
      doc: docs.externalProvider,
      handle: externalProvider,
    },
    {
      method: 'post',
      path: '/tasks/transfers',
      rate: 'index',
      availability: 'POST /tasks/transfers',
      doc: docs.transfers,
      handle: transfers,
    },
  ];
}
