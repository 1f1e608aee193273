import { ApiError } from '@vus/core';
import type { OutgoingContext } from '@vus/grpc';
import type { ClassifyRequest__Input } from '@vus/grpc/types/classify/v1/ClassifyRequest';
import { classifyRequestUnits } from '@vus/limits';
import type { Request, Response } from 'express';
import type { Endpoint } from '../endpoints/endpoint';
import { clientGone, locals, outgoing } from '../http/context';
import { thumbnailUrls } from '../http/media-urls';
import { presentClassification, type ClipThumbnail } from '../presenters/classify';
import type { ClassifyShape } from '../versions';
import { parseClassify, parseClassifyBulk } from './classify.schema';
import { configured, type RouteDeps } from './deps';
import * as docs from './classify.docs';
import { versionOf } from './version';

/**
 * Classify (API-CONTRACT §5.6, v1.1 → v1.2): POST /classify over some videos, POST /classify/bulk
 * over an index, GET /classify/{page_token} for later pages. Versions without classify never get
 * here (their adapters list it as unavailable); the names a version uses are its ClassifyShape.
 */
export function classifyEndpoints({ clients, timeoutMs, thumbnails }: Pick<RouteDeps, 'clients' | 'timeoutMs' | 'thumbnails'>): Endpoint[] {
  const client = () => configured(clients.classify, 'classify');
  const presentation = (req: Request, res: Response) => {
    const signed = thumbnailUrls(req, res, thumbnails);
    const thumbnailUrl: ClipThumbnail = (clip, videoId) =>
      clip.thumbnail_key ? signed({ indexId: clip.index_id, videoId, time: clip.start }) : undefined;
    return { version: versionOf(res), thumbnailUrl };
  };
  const shapeOf = (res: Response): ClassifyShape => {
    const shape = versionOf(res).classify;
    if (!shape) throw new ApiError('not_implemented', 'Classification is not available in this version.');
    return shape;
  };

  /**
   * A classification runs a search per prompt: it counts as that many Search requests (the one it
   * took on arrival included), and a client that leaves cancels it.
   */
  const countAndCall = async (res: Response, classes: ClassifyRequest__Input['classes']): Promise<OutgoingContext> => {
    await locals(res).countRequestAs?.('search', classifyRequestUnits((classes ?? []).map((c) => ({ prompts: c.prompts ?? [] }))));
    return { ...outgoing(res, timeoutMs), signal: clientGone(res) };
  };

  // Without classify-service the answer is 501 whatever the body (the client is resolved first).
  const classify = async (req: Request, res: Response) => {
    const service = client();
    const { request, names } = parseClassify(versionOf(res), shapeOf(res), req.body as Record<string, unknown>);
    const call = await countAndCall(res, request.classes);
    const page = await service.classify(call, request);
    res.json(presentClassification(page, presentation(req, res), { ...names, videoId: request.video_ids?.[0] }));
  };
  const classifyBulk = async (req: Request, res: Response) => {
    const service = client();
    const { request, names } = parseClassifyBulk(versionOf(res), shapeOf(res), req.body as Record<string, unknown>);
    const call = await countAndCall(res, request.classes);
    res.json(presentClassification(await service.classifyBulk(call, request), presentation(req, res), names));
  };
  const laterPage = async (req: Request, res: Response) => {
    const service = client();
    shapeOf(res);
    const page = await service.getClassifyPage(outgoing(res, timeoutMs), String(req.params.pageToken));
    // A token page carries no request: classes are `classes`, the envelope always.
    res.json(presentClassification(page, presentation(req, res), { classesKey: 'classes', singleVideo: false }));
  };
  // SPEC §8 gives classification no category: each of its prompts is a search (countAndCall); later pages are free.
  return [
    { method: 'post', path: '/classify', rate: 'search', availability: 'POST /classify', doc: docs.classify, handle: classify },
    {
      method: 'post',
      path: '/classify/bulk',
      rate: 'search',
      availability: 'POST /classify',
      doc: docs.classifyBulk,
      handle: classifyBulk,
    },
    { method: 'get', path: '/classify/:pageToken', availability: 'POST /classify', doc: docs.classifyPage, handle: laterPage },
  ];
}
