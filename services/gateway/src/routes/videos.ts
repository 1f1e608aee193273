import { knownId } from '@vus/core';
import { familyOfEngine } from '@vus/domain';
import type { OutgoingContext } from '@vus/grpc';
import type { Embedding } from '@vus/grpc/types/embed/v1/Embedding';
import type { Video } from '@vus/grpc/types/index/v1/Video';
import type { Request, Response } from 'express';
import type { EmbedClient, IndexClient, SearchClient } from '../clients';
import type { Endpoint } from '../endpoints/endpoint';
import { outgoing } from '../http/context';
import { hidingInternalIndexes } from '../http/internal-indexes';
import { streamUrls, thumbnailUrls } from '../http/media-urls';
import { readQuery } from '../http/query';
import { presentVideoEmbedding } from '../presenters/embed';
import { presentArtifact, presentVideo } from '../presenters/videos';
import {
  parseArtifactWindow,
  parseListVideos,
  parseRetrieveVideo,
  parseThumbnailTime,
  parseUpdateVideo,
  type UpdateMethod,
} from './videos.schema';
import { configured, type RouteDeps } from './deps';
import * as docs from './videos.docs';
import { versionOf } from './version';

const idParam = (what: 'Index' | 'Video', raw: string | string[] | undefined) => knownId(what, raw);

function ids(req: Request): { indexId: string; videoId: string } {
  return { indexId: idParam('Index', req.params.indexId), videoId: idParam('Video', req.params.videoId) };
}

/** A video's timed artifacts: path, kind (index-service), and the operation. */
const ARTIFACT_PATHS = [
  ['transcription', 'transcription', docs.transcription],
  ['text-in-video', 'text_in_video', docs.textInVideo],
  ['logo', 'logo', docs.logo],
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

export function videoEndpoints({ clients, timeoutMs, thumbnails }: Pick<RouteDeps, 'clients' | 'timeoutMs' | 'thumbnails'>): Endpoint[] {
  const { index, search, embed } = clients;
  const embeddings = search && embed ? { search, embed } : undefined;
  const base = '/indexes/:indexId/videos';

  const list = async (req: Request, res: Response) => {
    const request = parseListVideos(idParam('Index', req.params.indexId), readQuery(req.originalUrl));
    const result = await index.listVideos(outgoing(res, timeoutMs), request);
    const version = versionOf(res);
    const urls = streamUrls(req, { ...thumbnails, signer: thumbnails.signer.hls });
    res.json({
      data: result.data.map((v) => presentVideo(version, v, { hlsUrl: urls(v.system_metadata?.duration ?? 0) })),
      page_info: result.page_info,
    });
  };

  const retrieve = async (req: Request, res: Response) => {
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
  };

  const update = (method: UpdateMethod) => async (req: Request, res: Response) => {
    const request = parseUpdateVideo(versionOf(res), method, ids(req), req.body);
    await index.updateVideo(outgoing(res, timeoutMs), request);
    // No Content-Type on 204: js 0.1/0.2 would try to parse an empty JSON body (API-CONTRACT §2.4).
    res.status(204).end();
  };

  const remove = async (req: Request, res: Response) => {
    const { indexId, videoId } = ids(req);
    await index.deleteVideo(outgoing(res, timeoutMs), indexId, videoId);
    res.status(204).end();
  };

  const artifact = (kind: (typeof ARTIFACT_PATHS)[number][1]) => async (req: Request, res: Response) => {
    const { indexId, videoId } = ids(req);
    const window = parseArtifactWindow(readQuery(req.originalUrl));
    const artifacts = await index.getVideoArtifacts(outgoing(res, timeoutMs), {
      index_id: indexId,
      video_id: videoId,
      kinds: [kind],
      ...window,
    });
    res.json(presentArtifact(indexId, videoId, artifacts[kind]));
  };

  const thumbnail = async (req: Request, res: Response) => {
    const { indexId, videoId } = ids(req);
    const time = parseThumbnailTime(readQuery(req.originalUrl));
    const chosen = await index.getVideoThumbnail(outgoing(res, timeoutMs), {
      index_id: indexId,
      video_id: videoId,
      ...(time !== undefined ? { time } : {}),
      include_data: false,
    });
    res.json({ thumbnail: thumbnailUrls(req, res, thumbnails)({ indexId, videoId, time: chosen.time }) });
  };

  return hidingInternalIndexes(index, timeoutMs, [
    { method: 'get', path: base, doc: docs.listVideos, handle: list },
    { method: 'get', path: `${base}/:videoId`, doc: docs.retrieveVideo, handle: retrieve },
    { method: 'put', path: `${base}/:videoId`, doc: docs.putVideo, handle: update('PUT') },
    { method: 'patch', path: `${base}/:videoId`, doc: docs.patchVideo, handle: update('PATCH') },
    { method: 'delete', path: `${base}/:videoId`, doc: docs.deleteVideo, handle: remove },
    ...ARTIFACT_PATHS.map(([path, kind, doc]): Endpoint => ({
      method: 'get',
      path: `${base}/:videoId/${path}`,
      availability: `GET /indexes/{index_id}/videos/{video_id}/${path}`,
      doc,
      handle: artifact(kind),
    })),
    {
      method: 'get',
      path: `${base}/:videoId/thumbnail`,
      availability: 'GET /indexes/{index_id}/videos/{video_id}/thumbnail',
      doc: docs.thumbnail,
      handle: thumbnail,
    },
  ]);
}
