import type { Database, Queryable } from '@vus/db';
import type { IndexedFaceTrack } from './entity-search';

/** An index's face tracks (migration 0009) for entity search (entity-search.ts). */
export interface FaceTrackStore {
  /** Replaces the video's tracks (a re-index makes them anew) and marks the video tracked. */
  replaceVideo(orgId: string, indexId: string, videoId: string, tracks: readonly Omit<IndexedFaceTrack, 'videoId'>[]): Promise<void>;
  /** Every track of the index, or of the given videos only. */
  tracks(orgId: string, indexId: string, videoIds?: readonly string[]): Promise<IndexedFaceTrack[]>;
  /** Which of the videos had their faces tracked (perhaps none on screen). */
  trackedVideos(orgId: string, indexId: string, videoIds: readonly string[]): Promise<Set<string>>;
  /**
   * For each moment, the thumbnail of the video's visual segment nearest its middle ('' when the video
   * has none): a clip found by a face alone is shown like any visual clip.
   */
  thumbnailsAt(orgId: string, indexId: string, moments: readonly { videoId: string; start: number; end: number }[]): Promise<string[]>;
  /** The index's videos with segments (indexedVideos), of `videoIds` only when given. */
  indexedVideos(orgId: string, indexId: string, videoIds?: readonly string[]): Promise<string[]>;
  deleteVideo(orgId: string, indexId: string, videoId: string, q?: Queryable): Promise<void>;
  deleteIndex(orgId: string, indexId: string): Promise<void>;
}

export function createFaceTrackStore(db: Database): FaceTrackStore {
  const remove = async (q: Queryable, where: string, params: unknown[]) => {
    await q.query(`DELETE FROM face_tracks WHERE ${where}`, params);
    await q.query(`DELETE FROM face_tracked_videos WHERE ${where}`, params);
  };
  return {
    async replaceVideo(orgId, indexId, videoId, tracks) {
      await db.withTx(async (tx) => {
        await remove(tx, 'org_id = $1 AND index_id = $2 AND video_id = $3', [orgId, indexId, videoId]);
        if (tracks.length > 0) {
          await tx.query(
            `INSERT INTO face_tracks (org_id, index_id, video_id, start_sec, end_sec, embedding)
             SELECT $1, $2, $3, t.start_sec, t.end_sec, ARRAY(SELECT jsonb_array_elements_text(t.embedding)::real)
             FROM jsonb_to_recordset($4::jsonb) AS t(start_sec double precision, end_sec double precision, embedding jsonb)`,
            [
              orgId,
              indexId,
              videoId,
              JSON.stringify(tracks.map((t) => ({ start_sec: t.startSec, end_sec: t.endSec, embedding: Array.from(t.embedding) }))),
            ],
          );
        }
        await tx.query('INSERT INTO face_tracked_videos (org_id, index_id, video_id) VALUES ($1, $2, $3)', [orgId, indexId, videoId]);
      });
    },

    async tracks(orgId, indexId, videoIds) {
      const { rows } = await db.query<{ video_id: string; start_sec: number; end_sec: number; embedding: number[] }>(
        `SELECT video_id, start_sec, end_sec, embedding FROM face_tracks
         WHERE org_id = $1 AND index_id = $2 AND ($3::text[] IS NULL OR video_id = ANY($3::text[]))
         ORDER BY video_id, start_sec, id`,
        [orgId, indexId, videoIds ?? null],
      );
      return rows.map((r) => ({
        videoId: r.video_id,
        startSec: r.start_sec,
        endSec: r.end_sec,
        embedding: Float32Array.from(r.embedding),
      }));
    },

    async trackedVideos(orgId, indexId, videoIds) {
      if (videoIds.length === 0) return new Set();
      const { rows } = await db.query<{ video_id: string }>(
        'SELECT video_id FROM face_tracked_videos WHERE org_id = $1 AND index_id = $2 AND video_id = ANY($3::text[])',
        [orgId, indexId, videoIds],
      );
      return new Set(rows.map((r) => r.video_id));
    },

    async thumbnailsAt(orgId, indexId, moments) {
      if (moments.length === 0) return [];
      // One statement for every moment: each takes one row of the video's visual segments (segments_video index).
      const { rows } = await db.query<{ at: string; thumbnail_key: string | null }>(
        `SELECT p.at, t.thumbnail_key
         FROM unnest($3::text[], $4::float8[]) WITH ORDINALITY AS p(video_id, middle, at)
         LEFT JOIN LATERAL (
           SELECT s.thumbnail_key FROM segments s
           WHERE s.org_id = $1 AND s.index_id = $2 AND s.video_id = p.video_id AND s.modality = 'visual' AND s.thumbnail_key <> ''
           ORDER BY abs((s.start_sec + s.end_sec) / 2 - p.middle), s.start_sec
           LIMIT 1
         ) t ON true
         ORDER BY p.at`,
        [orgId, indexId, moments.map((m) => m.videoId), moments.map((m) => (m.start + m.end) / 2)],
      );
      return rows.map((r) => r.thumbnail_key ?? '');
    },

    indexedVideos: (orgId, indexId, videoIds) => indexedVideos(db, orgId, indexId, videoIds),

    deleteVideo: (orgId, indexId, videoId, q = db) =>
      remove(q, 'org_id = $1 AND index_id = $2 AND video_id = $3', [orgId, indexId, videoId]),

    deleteIndex: (orgId, indexId) => db.withTx((tx) => remove(tx, 'org_id = $1 AND index_id = $2', [orgId, indexId])),
  };
}

/**
 * The videos of an index that have segments (every indexed video has some), or those of `videoIds`
 * that do: the videos an entity search looks at, to name those without face tracks.
 */
export async function indexedVideos(db: Database, orgId: string, indexId: string, videoIds?: readonly string[]): Promise<string[]> {
  const { rows } = await db.query<{ video_id: string }>(
    `SELECT DISTINCT video_id FROM segments
     WHERE org_id = $1 AND index_id = $2 AND ($3::text[] IS NULL OR video_id = ANY($3::text[]))
     ORDER BY video_id`,
    [orgId, indexId, videoIds ?? null],
  );
  return rows.map((r) => r.video_id);
}
