import { createSearchClient } from '@vus/clients';
import type { OutgoingContext } from '@vus/grpc';

/** One searchable stretch of a video (search.proto Segment), as the worker builds it. */
export interface Segment {
  start: number;
  end: number;
  modality: 'visual' | 'conversation' | 'text_in_video' | 'logo';
  text: string;
  labels: string[];
  vector?: Float32Array | undefined;
  vectorModel?: string | undefined;
}

/** Where segments go: search-service's IngestSegments (replaces the video's segments). */
export interface SegmentSink {
  ingest(ctx: OutgoingContext, indexId: string, videoId: string, segments: readonly Segment[]): Promise<void>;
}

export function searchSegmentSink(address: string): SegmentSink & { close(): void } {
  const client = createSearchClient(address);
  return {
    async ingest(ctx, indexId, videoId, segments) {
      const request = {
        index_id: indexId,
        video_id: videoId,
        segments: segments.map((s) => ({
          start: s.start,
          end: s.end,
          modality: s.modality,
          text: s.text,
          labels: s.labels,
          vector: s.vector ? [...s.vector] : [],
          vector_model: s.vectorModel ?? '',
        })),
      };
      await client.ingestSegments(ctx, request);
    },
    close: () => client.close(),
  };
}
