import { fromMetadataValues, fromTimestamp } from '@vus/grpc';
import type { Hls } from '@vus/grpc/types/index/v1/Hls';
import type { TimedValue } from '@vus/grpc/types/index/v1/TimedValue';
import type { Video } from '@vus/grpc/types/index/v1/Video';
import type { VersionAdapter } from '../versions';

const iso = (ts: Video['created_at']): string | undefined => fromTimestamp(ts)?.toISOString();

/** The six fields every SDK requires (py VideoMetadata), integers where the SDKs want them; indexed assets show the same. */
export function systemMetadata(video: Pick<Video, 'system_metadata'>) {
  const system = video.system_metadata;
  return {
    filename: system?.filename ?? '',
    duration: system?.duration ?? 0,
    fps: system?.fps ?? 0,
    width: Math.round(system?.width ?? 0),
    height: Math.round(system?.height ?? 0),
    size: Math.round(system?.size ?? 0),
  };
}

function userMetadata(video: Video): Record<string, string | number | boolean> {
  const plain = fromMetadataValues(video.user_metadata);
  return Object.fromEntries(Object.entries(plain).filter((entry): entry is [string, string | number | boolean] => entry[1] != null));
}

/** Turns a stored stream file (a blob key) into the signed URL a player fetches; undefined: none. */
export type HlsUrlOf = (key: string) => string | undefined;

/**
 * A video's or task's `hls` (API-CONTRACT §5.2, §5.3). Services store blob keys; the URLs are
 * signed as the object is shown (they expire). Without `urlOf` no URL is shown.
 */
export function presentHls(hls: Hls, urlOf: HlsUrlOf | undefined): Record<string, unknown> {
  const url = (key: string) => (key ? urlOf?.(key) : undefined);
  const videoUrl = url(hls.video_url);
  return {
    ...(videoUrl ? { video_url: videoUrl } : {}),
    thumbnail_urls: hls.thumbnail_urls.map(url).filter((u): u is string => u !== undefined),
    status: hls.status,
    updated_at: iso(hls.updated_at),
  };
}

export const presentTimedValues = (values: readonly TimedValue[]) => values.map(({ start, end, value }) => ({ start, end, value }));

/**
 * A video as the version shows it (API-CONTRACT §5.2): the common fields, then its system and
 * user metadata, title and (when asked) transcription arranged by the version. Never an
 * `index_id` (py SDK constructor).
 */
export function presentVideo(
  version: VersionAdapter,
  video: Video,
  extra: { transcription?: readonly TimedValue[]; hlsUrl?: HlsUrlOf; embedding?: Record<string, unknown> | undefined } = {},
): Record<string, unknown> {
  return {
    _id: video.id,
    created_at: iso(video.created_at),
    updated_at: iso(video.updated_at),
    indexed_at: iso(video.indexed_at),
    ...(video.hls ? { hls: presentHls(video.hls, extra.hlsUrl) } : {}),
    ...version.videos.presentMetadata({
      system: systemMetadata(video),
      user: userMetadata(video),
      title: video.title,
      transcription: extra.transcription ? presentTimedValues(extra.transcription) : undefined,
    }),
    ...(extra.embedding ? { embedding: extra.embedding } : {}),
  };
}

/** …/transcription, …/text-in-video, …/logo (v1.2): `data` is always an array. */
export function presentArtifact(indexId: string, videoId: string, values: readonly TimedValue[]): Record<string, unknown> {
  return { _id: videoId, index_id: indexId, data: presentTimedValues(values) };
}
