import { createSearchClient } from '@vus/clients';
import type { CanonicalOption } from '@vus/domain';
import { toProtoSegment, type OutgoingContext } from '@vus/grpc';
import type { FaceTrack } from './extract/face-tracks';

/** One searchable stretch of a video (search.proto Segment), as the worker builds it. */
export interface Segment {
  start: number;
  end: number;
  modality: CanonicalOption;
  text: string;
  labels: string[];
  /** Those of `labels` no frame of the segment saw clearly. */
  tentativeLabels?: string[] | undefined;
  vector?: Float32Array | undefined;
  vectorModel?: string | undefined;
  /** Blob key of a stored frame that shows the segment (search results' thumbnail_url). */
  thumbnailKey?: string | undefined;
}

/**
 * The stored thumbnail that best shows a stretch: the first taken inside it, else the nearest to
 * its middle; undefined when none was stored.
 */
export function thumbnailFor(thumbnails: readonly { time: number; key: string }[], start: number, end: number): string | undefined {
  const inside = thumbnails.filter((t) => t.time >= start && t.time < end).sort((a, b) => a.time - b.time)[0];
  if (inside) return inside.key;
  const middle = (start + end) / 2;
  let nearest: { time: number; key: string } | undefined;
  for (const t of thumbnails) if (!nearest || Math.abs(t.time - middle) < Math.abs(nearest.time - middle)) nearest = t;
  return nearest?.key;
}

/** Where segments go: search-service's IngestSegments (replaces the video's segments). */
export interface SegmentSink {
  ingest(ctx: OutgoingContext, indexId: string, videoId: string, segments: readonly Segment[]): Promise<void>;
  /** The video's face tracks for entity search (IngestFaceTracks, replacing the video's); absent in sinks that keep none. */
  ingestFaceTracks?(ctx: OutgoingContext, indexId: string, videoId: string, tracks: readonly FaceTrack[]): Promise<void>;
}

export function searchSegmentSink(address: string): SegmentSink & { close(): void } {
  const client = createSearchClient(address);
  return {
    async ingest(ctx, indexId, videoId, segments) {
      const request = {
        index_id: indexId,
        video_id: videoId,
        segments: segments.map(toProtoSegment),
      };
      await client.ingestSegments(ctx, request);
    },
    async ingestFaceTracks(ctx, indexId, videoId, tracks) {
      await client.ingestFaceTracks(ctx, {
        index_id: indexId,
        video_id: videoId,
        tracks: tracks.map((t) => ({ start: t.startSec, end: t.endSec, embedding: Array.from(t.embedding) })),
      });
    },
    close: () => client.close(),
  };
}
