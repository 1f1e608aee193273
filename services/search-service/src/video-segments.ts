import type { Queryable } from '@vus/db';
import type { SearchOption } from './clips';

/** A stored segment as analyze-service reads it: where it is and what it holds, without its vector. */
export interface StoredSegment {
  start: number;
  end: number;
  modality: SearchOption;
  text: string;
  labels: string[];
  /** Those of `labels` seen only tentatively. */
  tentativeLabels: string[];
  thumbnailKey: string;
}

export interface VideoSegmentReader {
  /** Every segment of one video, by start then modality. */
  videoSegments(orgId: string, indexId: string, videoId: string): Promise<StoredSegment[]>;
}

export function createVideoSegmentReader(db: Queryable): VideoSegmentReader {
  return {
    async videoSegments(orgId, indexId, videoId) {
      const { rows } = await db.query<StoredSegment & Record<string, unknown>>(
        `SELECT start_sec AS start, end_sec AS "end", modality, text, labels, tentative_labels AS "tentativeLabels", thumbnail_key AS "thumbnailKey" FROM segments
          WHERE org_id = $1 AND index_id = $2 AND video_id = $3 ORDER BY start_sec, modality, end_sec`,
        [orgId, indexId, videoId],
      );
      return rows;
    },
  };
}
