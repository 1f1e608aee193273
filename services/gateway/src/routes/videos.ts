import { familyOfEngine, knownId } from '@vus/core';
import type { OutgoingContext } from '@vus/grpc';
import type { Embedding } from '@vus/grpc/types/embed/v1/Embedding';
import type { Video } from '@vus/grpc/types/index/v1/Video';
import { Router, type Request, type Response } from 'express';
import type { EmbedClient, IndexClient, SearchClient } from '../clients';
import { outgoing } from '../http/context';
import { streamUrls, thumbnailUrls } from '../http/media-urls';
import { readQuery } from '../http/query';
import { presentVideoEmbedding } from '../presenters/embed';
import { presentArtifact, presentVideo } from '../presenters/videos';
import { requireEndpoint } from '../versions';
import {
  parseArtifactWindow,
  parseListVideos,
  parseRetrieveVideo,
  parseThumbnailTime,
  parseUpdateVideo,
  type UpdateMethod,
} from './videos.schema';
import { configured, type RouteDeps } from './deps';
import { versionOf } from './version';

const idParam = (what: 'Index' | 'Video', raw: string | string[] | undefined) => knownId(what, raw);

function ids(req: Request): { indexId: string; videoId: string } {
  return { indexId: idParam('Index', req.params.indexId), videoId: idParam('Video', req.params.videoId) };
}

const ARTIFACT_PATHS = [
  ['transcription', 'transcription'],
  ['text-in-video', 'text_in_video'],
  ['logo', 'logo'],
] as const;

/** Where a video's embeddings come from: what indexing wrote (search-service), embedded by embed-service. */
export interface VideoEmbeddingSources {
  search: SearchClient;
  embed: EmbedClient;
}

/** A video's clip embeddings, in the space of its index's video model (marengo…). */
async function videoEmbedding(
  ctx: OutgoingContext,
  index: IndexClient,
  sources: VideoEmbeddingSources | undefined,
  video: Video,
  indexId: string,
  options: string[],
): Promise<Embedding> {
  const { search, embed } = configured(sources, 'videoEmbeddings');
  const [{ models }, { segments }] = await Promise.all([index.getIndex(ctx, indexId), search.listVideoSegments(ctx, indexId, video.id)]);
  return embed.embedIndexedVideo(ctx, {
    model_name: models.find((m) => familyOfEngine(m.name) === 'marengo')?.name ?? '',
    embedding_options: options,
    duration: video.system_metadata?.duration ?? 0,
    segments: segments.map(({ start, end, modality, text, labels }) => ({ start, end, modality, text, labels })),
  });
}

export function videoRoutes({ clients, timeoutMs, thumbnails }: Pick<RouteDeps, 'clients' | 'timeoutMs' | 'thumbnails'>): Router {
  const { index, search, embed } = clients;
  const embeddings = search && embed ? { search, embed } : undefined;
  const router = Router();
  const base = '/indexes/:indexId/videos';

  router.get(base, async (req, res) => {
    const request = parseListVideos(idParam('Index', req.params.indexId), readQuery(req.originalUrl));
    const result = await index.listVideos(outgoing(res, timeoutMs), request);
    const version = versionOf(res);
    const urls = streamUrls(req, { ...thumbnails, signer: thumbnails.signer.hls });
    res.json({
      data: result.data.map((v) => presentVideo(version, v, { hlsUrl: urls(v.system_metadata?.duration ?? 0) })),
      page_info: result.page_info,
    });
  });

  router.get(`${base}/:videoId`, async (req, res) => {
    const { indexId, videoId } = ids(req);
    const version = versionOf(res);
    const options = parseRetrieveVideo(version, readQuery(req.originalUrl));
    const ctx = outgoing(res, timeoutMs);
    const video = await index.getVideo(ctx, indexId, videoId);
    const transcription = options.transcription
      ? (await index.getVideoArtifacts(ctx, { index_id: indexId, video_id: videoId, kinds: ['transcription'] })).transcription
      : undefined;
    const embedding =
      options.embeddingOptions && version.embed
        ? presentVideoEmbedding(await videoEmbedding(ctx, index, embeddings, video, indexId, options.embeddingOptions), version.embed)
        : undefined;
    const hlsUrl = streamUrls(req, { ...thumbnails, signer: thumbnails.signer.hls })(video.system_metadata?.duration ?? 0);
    res.json(presentVideo(version, video, { transcription, hlsUrl, embedding }));
  });

  const update = (method: UpdateMethod) => async (req: Request, res: Response) => {
    const request = parseUpdateVideo(versionOf(res), method, ids(req), req.body);
    await index.updateVideo(outgoing(res, timeoutMs), request);
    // No Content-Type on 204: js 0.1/0.2 would try to parse an empty JSON body (API-CONTRACT §2.4).
    res.status(204).end();
  };
  router.put(`${base}/:videoId`, update('PUT'));
  router.patch(`${base}/:videoId`, update('PATCH'));

  router.delete(`${base}/:videoId`, async (req, res) => {
    const { indexId, videoId } = ids(req);
    await index.deleteVideo(outgoing(res, timeoutMs), indexId, videoId);
    res.status(204).end();
  });

  for (const [path, kind] of ARTIFACT_PATHS) {
    router.get(`${base}/:videoId/${path}`, async (req, res) => {
      requireEndpoint(versionOf(res), `GET /indexes/{index_id}/videos/{video_id}/${path}`);
      const { indexId, videoId } = ids(req);
      const window = parseArtifactWindow(readQuery(req.originalUrl));
      const artifacts = await index.getVideoArtifacts(outgoing(res, timeoutMs), {
        index_id: indexId,
        video_id: videoId,
        kinds: [kind],
        ...window,
      });
      res.json(presentArtifact(indexId, videoId, artifacts[kind]));
    });
  }

  router.get(`${base}/:videoId/thumbnail`, async (req, res) => {
    requireEndpoint(versionOf(res), 'GET /indexes/{index_id}/videos/{video_id}/thumbnail');
    const { indexId, videoId } = ids(req);
    const time = parseThumbnailTime(readQuery(req.originalUrl));
    const chosen = await index.getVideoThumbnail(outgoing(res, timeoutMs), {
      index_id: indexId,
      video_id: videoId,
      ...(time !== undefined ? { time } : {}),
      include_data: false,
    });
    res.json({ thumbnail: thumbnailUrls(req, res, thumbnails)({ indexId, videoId, time: chosen.time }) });
  });

  return router;
}
