/** The videos' SQL (VideoStore of videos.ts, StreamStore of streams.ts): their rows, artifacts and the counters of their index. */
import { Where, type Database, type Queryable } from '@vus/db';
import { enqueueEvents } from '@vus/events';
import type { StreamStore } from './streams';
import {
  NUMERIC_FILTER_FIELDS,
  TIMED_KINDS,
  videoIdTaken,
  type HlsInfo,
  type TimedKind,
  type VideoArtifacts,
  type VideoFilter,
  type VideoRecord,
  type VideoStore,
} from './videos';

/** A video as a row: the columns' names and types as pg hands them over. */
interface VideoRow {
  id: string;
  org_id: string;
  index_id: string;
  filename: string;
  duration: number;
  fps: number;
  width: number;
  height: number;
  size: string; // bigint arrives as text
  title: string | null;
  user_metadata: VideoRecord['userMetadata'];
  hls: { video_url: string; thumbnail_urls: string[]; status: string; updated_at: string | null } | null;
  extractors_run: string[];
  media_blob_key: string | null;
  speech_language: string | null;
  created_at: Date;
  updated_at: Date;
  indexed_at: Date;
  [column: string]: unknown;
}

const VIDEO_COLUMNS =
  'id, org_id, index_id, filename, duration, fps, width, height, size, title, user_metadata, hls, extractors_run, media_blob_key, speech_language, created_at, updated_at, indexed_at';

function toVideo(row: VideoRow): VideoRecord {
  return {
    id: row.id,
    orgId: row.org_id,
    indexId: row.index_id,
    system: { filename: row.filename, duration: row.duration, fps: row.fps, width: row.width, height: row.height, size: Number(row.size) },
    userMetadata: row.user_metadata,
    title: row.title,
    hls: row.hls && {
      videoUrl: row.hls.video_url,
      thumbnailUrls: row.hls.thumbnail_urls,
      status: row.hls.status,
      updatedAt: row.hls.updated_at ? new Date(row.hls.updated_at) : null,
    },
    extractorsRun: row.extractors_run,
    mediaBlobKey: row.media_blob_key,
    speechLanguage: row.speech_language,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    indexedAt: row.indexed_at,
  };
}

function hlsJson(hls: HlsInfo | null): string | null {
  if (!hls) return null;
  return JSON.stringify({
    video_url: hls.videoUrl,
    thumbnail_urls: hls.thumbnailUrls,
    status: hls.status,
    updated_at: hls.updatedAt?.toISOString() ?? null,
  });
}

/** The WHERE of a video list: one index's videos, narrowed by the filter. */
function videoWhereClause(orgId: string, indexId: string, filter: VideoFilter): Where {
  const where = new Where().add((p) => `org_id = ${p}`, orgId).add((p) => `index_id = ${p}`, indexId);
  if (filter.ids?.length) where.add((p) => `id = ANY(${p}::text[])`, filter.ids);
  if (filter.filename !== undefined) where.add((p) => `filename = ${p}`, filter.filename);
  for (const field of NUMERIC_FILTER_FIELDS) where.bounds(field, filter[field]);
  where.bounds('created_at', filter.createdAt).bounds('updated_at', filter.updatedAt).bounds('indexed_at', filter.indexedAt);
  for (const [key, values] of Object.entries(filter.userMetadata ?? {})) {
    const keyPlaceholder = where.param(key);
    where.add(
      (p) => `user_metadata -> ${keyPlaceholder}::text = ANY(${p}::jsonb[])`,
      values.map((v) => JSON.stringify(v)),
    );
  }
  return where;
}

/**
 * Writers of one index's videos take turns: each recounts the index afterwards, and two that held
 * FOR SHARE and then both updated the row deadlocked (seen with concurrent CreateVideo). Taken
 * first, the lock also makes the recount's statement see every video committed before it. An
 * index being deleted (FOR UPDATE) cannot gain a video meanwhile.
 */
async function lockIndex(tx: Queryable, orgId: string, indexId: string) {
  return tx.query('SELECT id FROM indexes WHERE org_id = $1 AND id = $2 FOR NO KEY UPDATE', [orgId, indexId]);
}

/** Keeps an index's counters equal to its videos (recounted: never drifts on retries). */
async function recountIndex(tx: Queryable, indexId: string): Promise<void> {
  await tx.query(
    `UPDATE indexes SET video_count = s.count, total_duration = s.total
     FROM (SELECT count(*)::int AS count, coalesce(sum(duration), 0) AS total FROM videos WHERE index_id = $1) s
     WHERE id = $1`,
    [indexId],
  );
}

export function createVideoStore(db: Database): VideoStore {
  return {
    async upsert(video) {
      return db.withTx(async (tx) => {
        const index = await lockIndex(tx, video.orgId, video.indexId);
        if (index.rowCount !== 1) return undefined;
        const { system } = video;
        const { rows } = await tx.query<VideoRow>(
          `INSERT INTO videos (${VIDEO_COLUMNS})
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
           ON CONFLICT (id) DO UPDATE SET
             filename = EXCLUDED.filename, duration = EXCLUDED.duration, fps = EXCLUDED.fps,
             width = EXCLUDED.width, height = EXCLUDED.height, size = EXCLUDED.size, hls = EXCLUDED.hls,
             extractors_run = EXCLUDED.extractors_run, media_blob_key = EXCLUDED.media_blob_key,
             speech_language = EXCLUDED.speech_language,
             updated_at = EXCLUDED.updated_at, indexed_at = EXCLUDED.indexed_at
           WHERE videos.org_id = EXCLUDED.org_id AND videos.index_id = EXCLUDED.index_id
           RETURNING ${VIDEO_COLUMNS}`,
          [
            video.id,
            video.orgId,
            video.indexId,
            system.filename,
            system.duration,
            system.fps,
            system.width,
            system.height,
            system.size,
            video.title,
            JSON.stringify(video.userMetadata),
            hlsJson(video.hls),
            video.extractorsRun,
            video.mediaBlobKey,
            video.speechLanguage,
            video.createdAt,
            video.updatedAt,
            video.indexedAt,
          ],
        );
        if (!rows[0]) throw videoIdTaken(video.id);
        await recountIndex(tx, video.indexId);
        return toVideo(rows[0]);
      });
    },

    async get(orgId, indexId, id) {
      const { rows } = await db.query<VideoRow>(
        `SELECT ${VIDEO_COLUMNS} FROM videos WHERE org_id = $1 AND id = $2 AND ($3::text IS NULL OR index_id = $3)`,
        [orgId, id, indexId ?? null],
      );
      return rows[0] && toVideo(rows[0]);
    },

    async list(orgId, indexId, filter, sort, limit, offset) {
      const where = videoWhereClause(orgId, indexId, filter);
      const direction = sort.order === 'asc' ? 'ASC' : 'DESC';
      const order = `${sort.by === 'updated_at' ? 'updated_at' : 'created_at'} ${direction}, id ${direction}`;
      const [page, count] = await Promise.all([
        db.query<VideoRow>(
          `SELECT ${VIDEO_COLUMNS} FROM videos WHERE ${where.sql} ORDER BY ${order}
           LIMIT $${where.params.length + 1} OFFSET $${where.params.length + 2}`,
          [...where.params, limit, offset],
        ),
        db.query<{ total: string }>(`SELECT count(*) AS total FROM videos WHERE ${where.sql}`, where.params),
      ]);
      return { rows: page.rows.map(toVideo), total: Number(count.rows[0]?.total ?? 0) };
    },

    async listIds(orgId, indexId, filter, limit) {
      const where = videoWhereClause(orgId, indexId, filter);
      const { rows } = await db.query<{ id: string }>(
        `SELECT id FROM videos WHERE ${where.sql} ORDER BY id LIMIT $${where.params.length + 1}`,
        [...where.params, limit],
      );
      return rows.map((r) => r.id);
    },

    async updateMetadata(orgId, indexId, id, change, at) {
      const { rows } = await db.query<VideoRow>(
        `UPDATE videos SET
           user_metadata = CASE WHEN $4::boolean THEN $5::jsonb ELSE (user_metadata || $5::jsonb) - $6::text[] END,
           title = coalesce($7, title),
           updated_at = $8
         WHERE org_id = $1 AND index_id = $2 AND id = $3
         RETURNING ${VIDEO_COLUMNS}`,
        [orgId, indexId, id, change.replace, JSON.stringify(change.set), change.unset, change.title ?? null, at],
      );
      return rows[0] && toVideo(rows[0]);
    },

    async delete(orgId, indexId, id, events) {
      return db.withTx(async (tx) => {
        await lockIndex(tx, orgId, indexId);
        // Read before the cascade removes them; a concurrent delete then finds no row below.
        const thumbnails = await tx.query<{ blob_key: string }>(
          'SELECT blob_key FROM video_thumbnails WHERE video_id = $1 ORDER BY time_s',
          [id],
        );
        const { rows } = await tx.query<{ media_blob_key: string | null }>(
          'DELETE FROM videos WHERE org_id = $1 AND index_id = $2 AND id = $3 RETURNING media_blob_key',
          [orgId, indexId, id],
        );
        if (!rows[0]) return false;
        await recountIndex(tx, indexId);
        const media = rows[0].media_blob_key;
        const blobKeys = [...(media ? [media] : []), ...thumbnails.rows.map((t) => t.blob_key)];
        await enqueueEvents(tx, events({ id, indexId, blobKeys }));
        return true;
      });
    },

    async putArtifacts(orgId, indexId, id, artifacts) {
      return db.withTx(async (tx) => {
        const video = await tx.query('SELECT id FROM videos WHERE org_id = $1 AND index_id = $2 AND id = $3 FOR UPDATE', [
          orgId,
          indexId,
          id,
        ]);
        if (video.rowCount !== 1) return false;
        await tx.query('DELETE FROM video_timed_values WHERE video_id = $1', [id]);
        await tx.query('DELETE FROM video_thumbnails WHERE video_id = $1', [id]);
        const timed = TIMED_KINDS.flatMap((kind) => artifacts[kind].map((v, position) => ({ kind, position, ...v })));
        if (timed.length > 0) {
          await tx.query(
            `INSERT INTO video_timed_values (video_id, kind, position, start_s, end_s, value, confidence)
             SELECT $1, * FROM unnest($2::text[], $3::int[], $4::float8[], $5::float8[], $6::text[], $7::float8[])`,
            [
              id,
              timed.map((t) => t.kind),
              timed.map((t) => t.position),
              timed.map((t) => t.start),
              timed.map((t) => t.end),
              timed.map((t) => t.value),
              timed.map((t) => t.confidence),
            ],
          );
        }
        if (artifacts.thumbnails.length > 0) {
          await tx.query(
            `INSERT INTO video_thumbnails (video_id, time_s, blob_key, content_type)
             SELECT $1, * FROM unnest($2::float8[], $3::text[], $4::text[])`,
            [
              id,
              artifacts.thumbnails.map((t) => t.time),
              artifacts.thumbnails.map((t) => t.blobKey),
              artifacts.thumbnails.map((t) => t.contentType),
            ],
          );
        }
        return true;
      });
    },

    async getArtifacts(orgId, indexId, id, kinds, window) {
      const video = await db.query('SELECT id FROM videos WHERE org_id = $1 AND index_id = $2 AND id = $3', [orgId, indexId, id]);
      if (video.rowCount !== 1) return undefined;
      const result: VideoArtifacts = { transcription: [], text_in_video: [], logo: [], thumbnails: [] };
      const timedKinds = TIMED_KINDS.filter((kind) => kinds.includes(kind));
      if (timedKinds.length > 0) {
        const { rows } = await db.query<{ kind: TimedKind; start_s: number; end_s: number; value: string; confidence: number }>(
          `SELECT kind, start_s, end_s, value, confidence FROM video_timed_values
           WHERE video_id = $1 AND kind = ANY($2::text[])
             AND ($3::float8 IS NULL OR end_s >= $3) AND ($4::float8 IS NULL OR start_s <= $4)
           ORDER BY kind, start_s, position`,
          [id, timedKinds, window.start ?? null, window.end ?? null],
        );
        for (const row of rows) {
          result[row.kind].push({ start: row.start_s, end: row.end_s, value: row.value, confidence: row.confidence });
        }
      }
      if (kinds.includes('thumbnails')) {
        const { rows } = await db.query<{ time_s: number; blob_key: string; content_type: string }>(
          'SELECT time_s, blob_key, content_type FROM video_thumbnails WHERE video_id = $1 ORDER BY time_s',
          [id],
        );
        result.thumbnails = rows.map((r) => ({ time: r.time_s, blobKey: r.blob_key, contentType: r.content_type }));
      }
      return result;
    },
  };
}

export function createStreamStore(db: Database): StreamStore {
  return {
    async streamKeysOf(videoId) {
      const { rows } = await db.query<{ hls: VideoRow['hls'] }>('SELECT hls FROM videos WHERE id = $1', [videoId]);
      if (!rows[0]) return undefined;
      const hls = rows[0].hls;
      return hls ? [hls.video_url, ...hls.thumbnail_urls].filter((key) => key !== '') : [];
    },
  };
}
