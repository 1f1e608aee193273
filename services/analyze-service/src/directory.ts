import type { IndexClient, SearchClient } from '@vus/clients';
import { fromMetadataValues, fromTimestamp } from '@vus/grpc';
import type { UserMetadata } from '@vus/domain';
import type { TimedValue } from '@vus/grpc/types/index/v1/TimedValue';
import type { VideoDirectory } from './analyze';
import type { EvidenceSources } from './evidence';

const timed = (values: readonly TimedValue[]) => values.map((v) => ({ start: v.start, end: v.end, value: v.value }));

/**
 * The video and its evidence from the services that hold them: index-service (the video in any
 * index of the organization, its index's engines, transcript, on-screen text, logos) and
 * search-service (visual segments: shots and their labels). Calls carry the caller's deadline.
 */
export function serviceDirectory(index: IndexClient, search: SearchClient): VideoDirectory {
  return {
    async find(orgId, videoId) {
      const ctx = { orgId };
      const video = await index.getVideo(ctx, '', videoId);
      const found = await index.getIndex(ctx, video.index_id);
      const version = [video.indexed_at, video.updated_at].map((t) => fromTimestamp(t)?.getTime() ?? 0).join('.');
      return { id: video.id, indexId: video.index_id, version, engines: found.models.map((m) => m.name) };
    },
    async evidence(orgId, ref, signal): Promise<EvidenceSources> {
      const ctx = { orgId, signal };
      const [video, artifacts, segments] = await Promise.all([
        index.getVideo(ctx, ref.indexId, ref.id),
        index.getVideoArtifacts(ctx, { index_id: ref.indexId, video_id: ref.id, kinds: ['transcription', 'text_in_video', 'logo'] }),
        search.listVideoSegments(ctx, ref.indexId, ref.id),
      ]);
      const userMetadata = Object.fromEntries(
        Object.entries(fromMetadataValues(video.user_metadata)).filter(([, v]) => v !== undefined && v !== null),
      ) as UserMetadata;
      return {
        video: {
          id: video.id,
          indexId: video.index_id,
          title: video.title,
          filename: video.system_metadata?.filename ?? '',
          duration: video.system_metadata?.duration ?? 0,
          userMetadata,
        },
        transcription: timed(artifacts.transcription),
        textInVideo: timed(artifacts.text_in_video),
        logos: timed(artifacts.logo),
        visualSegments: segments.segments
          .filter((s) => s.modality === 'visual')
          .map((s) => ({ start: s.start, end: s.end, labels: s.labels })),
      };
    },
  };
}
