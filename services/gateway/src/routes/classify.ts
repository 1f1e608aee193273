import { ApiError } from '@vus/core';
import type { OutgoingContext } from '@vus/grpc';
import type { ClassifyRequest__Input } from '@vus/grpc/types/classify/v1/ClassifyRequest';
import { classifyRequestUnits } from '@vus/limits';
import { Router, type Request, type Response } from 'express';
import { clientGone, locals, outgoing } from '../http/context';
import { thumbnailUrls } from '../http/media-urls';
import { presentClassification, type ClipThumbnail } from '../presenters/classify';
import type { ClassifyShape } from '../versions';
import { parseClassify, parseClassifyBulk } from './classify.schema';
import { configured, type RouteDeps } from './deps';
import { versionOf } from './version';

/**
 * Classify (API-CONTRACT §5.6, v1.1 → v1.2): POST /classify over some videos, POST /classify/bulk
 * over an index, GET /classify/{page_token} for later pages. Versions without classify never get
 * here (their adapters list it as unavailable); the names a version uses are its ClassifyShape.
 */
export function classifyRoutes({ clients, timeoutMs, thumbnails }: Pick<RouteDeps, 'clients' | 'timeoutMs' | 'thumbnails'>): Router {
  const router = Router();
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
  router.post('/classify', async (req: Request, res: Response) => {
    const service = client();
    const { request, names } = parseClassify(versionOf(res), shapeOf(res), req.body as Record<string, unknown>);
    const call = await countAndCall(res, request.classes);
    const page = await service.classify(call, request);
    res.json(presentClassification(page, presentation(req, res), { ...names, videoId: request.video_ids?.[0] }));
  });
  router.post('/classify/bulk', async (req: Request, res: Response) => {
    const service = client();
    const { request, names } = parseClassifyBulk(versionOf(res), shapeOf(res), req.body as Record<string, unknown>);
    const call = await countAndCall(res, request.classes);
    res.json(presentClassification(await service.classifyBulk(call, request), presentation(req, res), names));
  });
  router.get('/classify/:pageToken', async (req: Request, res: Response) => {
    const service = client();
    shapeOf(res);
    const page = await service.getClassifyPage(outgoing(res, timeoutMs), String(req.params.pageToken));
    // A token page carries no request: classes are `classes`, the envelope always.
    res.json(presentClassification(page, presentation(req, res), { classesKey: 'classes', singleVideo: false }));
  });
  return router;
}
