import type { Queryable } from '@vus/db';
import type { SearchOption } from './clips';

/** A stored segment as analyze-service reads it: where it is and what it holds, without its vector. */
export interface StoredSegment {
  start: number;
  end: number;
  modality: SearchOption;
  text: string;
  labels: string[];
  thumbnailKey: string;
}

export interface VideoSegmentReader {
  /** Every segment of one video, by start then modality. */
  videoSegments(orgId: string, indexId: string, videoId: string): Promise<StoredSegment[]>;
}

export function createVideoSegmentReader(db: Queryable): VideoSegmentReader {
  return {
    async videoSegments(orgId, indexId, videoId) {
      const { rows } = await db.query<{
        start_sec: number;
        end_sec: number;
        modality: SearchOption;
        text: string;
        labels: string[];
        thumbnail_key: string;
      }>(
        `SELECT start_sec, end_sec, modality, text, labels, thumbnail_key FROM segments
          WHERE org_id = $1 AND index_id = $2 AND video_id = $3 ORDER BY start_sec, modality, end_sec`,
        [orgId, indexId, videoId],
      );
      return rows.map((r) => ({
        start: Number(r.start_sec),
        end: Number(r.end_sec),
        modality: r.modality,
        text: r.text,
        labels: r.labels,
        thumbnailKey: r.thumbnail_key,
      }));
    },
  };
}
