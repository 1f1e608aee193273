import type { Logger } from '@vus/core';
import type { Database, Queryable } from '@vus/db';
import type { SearchOption } from './clips';
import type { NewSegment, SegmentWriter } from './ingest';
import { RANKED_POOL_FACTOR, tsQueryText, type DocWeight, type LexicalPlan } from './lexical';
import { DEFAULT_RESIDENT_SEGMENTS, type SearchServiceOptions } from './env';
import { withResidentIndexes, type ResidentRow, type ResidentSource } from './resident/resident-indexes';
import { createResultSetStore, type ResultSetStore } from './result-set-store';
import type { LexicalHit, Scope, SearchStore, SegmentHit, VectorHit } from './search-types';

/**
 * The stores search and ingest declare, on SQL, with what main.ts and the deletion consumer add:
 * a video's segments deleted inside the caller's transaction, and the purge of old result sets.
 * This module holds the segments' SQL; the result sets' is result-set-store.ts.
 */
export interface SegmentStore extends SearchStore, SegmentWriter, ResultSetStore, ResidentSource {
  deleteVideo(orgId: string, indexId: string, videoId: string, q?: Queryable): Promise<number>;
}

/**
 * Records a change of these videos' segments (migration 0010): the index's next generation, on
 * each video. In the writer's transaction, last, so that the index's generation row is held only
 * until the commit that follows.
 */
async function recordChange(q: Queryable, orgId: string, indexId: string, videoIds: readonly string[] | 'all'): Promise<void> {
  const next = `INSERT INTO index_generations AS g (org_id, index_id, generation) VALUES ($1, $2, 1)
    ON CONFLICT (org_id, index_id) DO UPDATE SET generation = g.generation + 1 RETURNING generation`;
  if (videoIds === 'all') {
    await q.query(
      `WITH next AS (${next}) UPDATE video_generations v SET generation = next.generation FROM next WHERE v.org_id = $1 AND v.index_id = $2`,
      [orgId, indexId],
    );
    return;
  }
  await q.query(
    `WITH next AS (${next})
     INSERT INTO video_generations (org_id, index_id, video_id, generation) SELECT $1, $2, v, next.generation FROM next, unnest($3::text[]) AS v
     ON CONFLICT (org_id, index_id, video_id) DO UPDATE SET generation = EXCLUDED.generation`,
    [orgId, indexId, videoIds],
  );
}

/** A SegmentHit's fields, read straight from the columns (the names are the mapping). */
const HIT_COLUMNS = `s.id::text AS id, s.video_id AS "videoId", s.modality, s.start_sec AS start, s.end_sec AS "end", s.text, s.thumbnail_key AS "thumbnailKey"`;

/** A hit as a row (pg's rows are records of anything). */
type HitRow = SegmentHit & Record<string, unknown>;

/** Labels and expansions travel as one newline-joined string per row (unnest takes flat arrays). */
function joinWords(words: readonly string[]): string {
  return words
    .map((w) => w.replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .join('\n');
}

/** pgvector's text form. */
function vectorLiteral(vector: readonly number[]): string {
  return `[${vector.map((x) => (Number.isFinite(x) ? x : 0)).join(',')}]`;
}

const INSERT_BATCH = 500;

/** pgvector's hnsw.ef_search: its default and its largest value. */
const HNSW_DEFAULT_EF_SEARCH = 40;
const HNSW_MAX_EF_SEARCH = 1000;

export function createSegmentStore(db: Database): SegmentStore {
  /** Whether this database has pgvector (migration 0002 created the table). */
  let vectors: boolean | undefined;
  /** Whether its pgvector can go on scanning an HNSW index past ef_search (0.8 and later: hnsw.iterative_scan). */
  let iterativeScans = false;
  const vectorsEnabled = async (q: Queryable = db): Promise<boolean> => {
    if (vectors === undefined) {
      const { rows } = await q.query<{ present: boolean; iterative: boolean | null }>(
        `SELECT to_regclass('segment_vectors') IS NOT NULL AS present,
                (SELECT string_to_array(extversion, '.')::int[] >= '{0,8}' FROM pg_extension WHERE extname = 'vector') AS iterative`,
      );
      vectors = rows[0]?.present === true;
      iterativeScans = rows[0]?.iterative === true;
    }
    return vectors;
  };

  async function insertBatch(tx: Queryable, orgId: string, indexId: string, videoId: string, batch: readonly NewSegment[]): Promise<void> {
    // Ids are taken first so that each vector row can name its segment without relying on RETURNING order.
    const { rows: idRows } = await tx.query<{ id: string }>(`SELECT nextval('segments_id_seq')::text AS id FROM generate_series(1, $1)`, [
      batch.length,
    ]);
    const ids = idRows.map((r) => r.id);
    // The document's weights: A the segment's own words (text, clearly seen labels and their names),
    // B their broader terms, C the tentatively seen labels and their names, D their broader terms
    // (lexical.ts DocWeight; the store's match kinds read them back).
    await tx.query(
      `INSERT INTO segments (id, org_id, index_id, video_id, modality, start_sec, end_sec, text, labels, tentative_labels, thumbnail_key, doc, words)
       SELECT u.id::bigint, $1, $2, $3, u.modality, u.start_sec, u.end_sec, u.text,
              array_remove(string_to_array(u.labels, E'\\n'), ''), array_remove(string_to_array(u.tentative, E'\\n'), ''), u.thumbnail_key,
              setweight(to_tsvector('english', u.text || ' ' || replace(u.clear, E'\\n', ' ') || ' ' || replace(u.names, E'\\n', ' ')), 'A')
                || setweight(to_tsvector('english', replace(u.broader, E'\\n', ' ')), 'B')
                || setweight(to_tsvector('english', replace(u.tentative, E'\\n', ' ') || ' ' || replace(u.tentative_names, E'\\n', ' ')), 'C')
                || setweight(to_tsvector('english', replace(u.tentative_broader, E'\\n', ' ')), 'D'),
              to_tsvector('simple', u.text)
       FROM unnest($4::text[], $5::text[], $6::float8[], $7::float8[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[],
                   $13::text[], $14::text[], $15::text[], $16::text[])
         AS u(id, modality, start_sec, end_sec, text, labels, clear, names, broader, tentative, tentative_names, tentative_broader, thumbnail_key)`,
      [
        orgId,
        indexId,
        videoId,
        ids,
        batch.map((s) => s.modality),
        batch.map((s) => s.start),
        batch.map((s) => s.end),
        batch.map((s) => s.text),
        batch.map((s) => joinWords(s.labels)),
        batch.map((s) => joinWords(s.labels.filter((label) => !s.tentative.labels.includes(label)))),
        batch.map((s) => joinWords(s.labelNames)),
        batch.map((s) => joinWords(s.broaderTerms)),
        batch.map((s) => joinWords(s.tentative.labels)),
        batch.map((s) => joinWords(s.tentative.names)),
        batch.map((s) => joinWords(s.tentative.broader)),
        batch.map((s) => s.thumbnailKey),
      ],
    );
    const withVectors = batch.flatMap((s, i) => (s.vector && s.vector.length > 0 && s.vectorModel ? [{ id: ids[i]!, segment: s }] : []));
    if (withVectors.length === 0 || !(await vectorsEnabled(tx))) return;
    await tx.query(
      `INSERT INTO segment_vectors (segment_id, modality, org_id, index_id, model, dimensions, embedding)
       SELECT u.id::bigint, u.modality, $1, $2, u.model, u.dimensions, u.embedding::vector
       FROM unnest($3::text[], $7::text[], $4::text[], $5::int[], $6::text[]) AS u(id, modality, model, dimensions, embedding)`,
      [
        orgId,
        indexId,
        withVectors.map((v) => v.id),
        withVectors.map((v) => v.segment.vectorModel!),
        withVectors.map((v) => v.segment.vector!.length),
        withVectors.map((v) => vectorLiteral(v.segment.vector!)),
        withVectors.map((v) => v.segment.modality),
      ],
    );
  }

  return {
    vectorsEnabled: () => vectorsEnabled(),

    /** Replaces every segment of the video in one transaction (a retried ingest never duplicates). */
    async replaceVideoSegments(orgId: string, indexId: string, videoId: string, segments: readonly NewSegment[]): Promise<void> {
      await db.withTx(async (tx) => {
        await tx.query('DELETE FROM segments WHERE org_id = $1 AND index_id = $2 AND video_id = $3', [orgId, indexId, videoId]);
        for (let i = 0; i < segments.length; i += INSERT_BATCH) {
          await insertBatch(tx, orgId, indexId, videoId, segments.slice(i, i + INSERT_BATCH));
        }
        // The index's vocabulary (search's word neighbours): the video's plain words, once each.
        await tx.query(
          `INSERT INTO index_words (org_id, index_id, word)
           SELECT DISTINCT $1, $2, w.word FROM segments s, unnest(tsvector_to_array(s.words)) AS w(word)
           WHERE s.org_id = $1 AND s.index_id = $2 AND s.video_id = $3 AND s.modality <> 'visual' AND w.word ~ '^[a-z]{3,}$'
           ON CONFLICT DO NOTHING`,
          [orgId, indexId, videoId],
        );
        await recordChange(tx, orgId, indexId, [videoId]);
      });
    },

    async deleteVideo(orgId: string, indexId: string, videoId: string, q?: Queryable): Promise<number> {
      const remove = async (tx: Queryable) => {
        const result = await tx.query('DELETE FROM segments WHERE org_id = $1 AND index_id = $2 AND video_id = $3', [
          orgId,
          indexId,
          videoId,
        ]);
        await recordChange(tx, orgId, indexId, [videoId]);
        return result.rowCount ?? 0;
      };
      return q ? remove(q) : db.withTx(remove);
    },

    async deleteIndex(orgId: string, indexId: string): Promise<number> {
      return db.withTx(async (tx) => {
        await tx.query('DELETE FROM index_words WHERE org_id = $1 AND index_id = $2', [orgId, indexId]);
        const result = await tx.query('DELETE FROM segments WHERE org_id = $1 AND index_id = $2', [orgId, indexId]);
        await recordChange(tx, orgId, indexId, 'all');
        return result.rowCount ?? 0;
      });
    },

    async videoChanges(orgId: string, indexId: string, since: number): Promise<{ videoIds: string[]; generation: number }> {
      const { rows } = await db.query<{ video_id: string; generation: string }>({
        name: 'search_video_changes',
        text: 'SELECT video_id, generation::text AS generation FROM video_generations WHERE org_id = $1 AND index_id = $2 AND generation > $3',
        values: [orgId, indexId, since],
      });
      return { videoIds: rows.map((r) => r.video_id), generation: rows.reduce((g, r) => Math.max(g, Number(r.generation)), since) };
    },

    async residentSegments(orgId: string, indexId: string, videoIds: readonly string[]): Promise<ResidentRow[]> {
      const { rows } = await db.query<ResidentRow & Record<string, unknown>>(
        `SELECT s.id::text AS id, s.video_id AS "videoId", s.modality, s.start_sec AS start, s.end_sec AS "end", s.text,
                s.thumbnail_key AS "thumbnailKey", s.doc::text AS doc, CASE WHEN s.modality = 'conversation' THEN s.words::text END AS words
         FROM segments s WHERE s.org_id = $1 AND s.index_id = $2 AND s.video_id = ANY($3::text[])
         ORDER BY s.id`,
        [orgId, indexId, videoIds],
      );
      return rows;
    },

    async segmentCount(orgId: string, indexId: string): Promise<number> {
      const { rows } = await db.query<{ n: string }>('SELECT count(*)::text AS n FROM segments WHERE org_id = $1 AND index_id = $2', [
        orgId,
        indexId,
      ]);
      return Number(rows[0]?.n ?? 0);
    },

    async normalizedQueries(kind: 'lexical' | 'phrase', texts: readonly string[]): Promise<string[]> {
      // As store.ts's own statements read them: lexical alternatives by to_tsquery('english'), exact phrases by phraseto_tsquery('simple').
      const normalize = kind === 'lexical' ? `to_tsquery('english', u.q)` : `phraseto_tsquery('simple', u.q)`;
      const { rows } = await db.query<{ normalized: string }>(
        `SELECT ${normalize}::text AS normalized FROM unnest($1::text[]) WITH ORDINALITY AS u(q, n) ORDER BY u.n`,
        [texts],
      );
      return rows.map((r) => r.normalized);
    },

    /** The index's plain words (index_words), at most `limit`. */
    async vocabulary(orgId: string, indexId: string, limit: number): Promise<string[]> {
      const { rows } = await db.query<{ word: string }>('SELECT word FROM index_words WHERE org_id = $1 AND index_id = $2 LIMIT $3', [
        orgId,
        indexId,
        limit,
      ]);
      return rows.map((r) => r.word);
    },

    /**
     * Segments of each of the given modalities that match the plan (its broad alternatives anywhere
     * in the document, its own-only ones in the segment's own words), at most `limit` per modality
     * (so that a common modality cannot crowd out the others' candidates), each with its match
     * kinds: one character per alternative, `d` when the segment's own words matched it (direct),
     * `e` when only its label expansions did, `-` when nothing did.
     *
     * Common words can match a large share of an index, and ranking every match was the cost of a
     * search (the benchmark: 110k matches, about 1 s). So candidates come in two tiers: first
     * segments matching every word group of the query (only they can score highest), ranked over a
     * bounded pool, then the others as found; scoring in Node orders the union. The queries are
     * written into the scans (not read from a CTE) so that the planner sees how common their words
     * are: for a common word a sequential scan that stops at the pool size beats building the
     * whole bitmap.
     *
     * The modalities share one statement (issue 31): each has its own two tiers, and the match kinds,
     * the longest part of the text, are written, parsed and planned once, not once per modality
     * (parsing and planning the long statements were ~30 % of PostgreSQL's time in a text search).
     *
     * The tiers read the parent table, not each partition by name, though through the parent
     * PostgreSQL 15 plans the pruned partition for all its rows (an Append of the cheapest total
     * path), so a common word's tier builds its whole GIN bitmap despite the LIMIT. Named, the LIMIT
     * counts, but the planner then trusts its estimate of an OR of many words (747 rows where none
     * matched) and scans whole partitions: the same rows, and 5.7 -> 13.6 PostgreSQL CPU-ms per
     * text statement (issue 31, 2,000 videos, the bench's recorded statements).
     */
    async lexical(scope: Scope, modalities: readonly SearchOption[], plan: LexicalPlan, limit: number): Promise<LexicalHit[]> {
      if (modalities.length === 0) return [];
      const values: unknown[] = [];
      const param = (value: unknown): string => `$${values.push(value)}`;
      const tsquery = (text: string): string => `to_tsquery('english', ${param(text)})`;
      const videoIds = param(scope.videoIds ?? null);
      const inIndex = `s.org_id = ${param(scope.orgId)} AND s.index_id = ${param(scope.indexId)}
        AND (${videoIds}::text[] IS NULL OR s.video_id = ANY(${videoIds}::text[]))`;
      const pool = `${param(limit)}::int`;
      const every = tsquery(plan.everyQuery);
      const rank = tsquery(plan.rankQuery);
      // In arms (lexical.ts ALTERNATIVES_PER_ARM): a BitmapOr of small tsqueries, not one long one.
      const any = [
        ...plan.broadArms.map((arm) => `s.doc @@ ${tsquery(arm)}`),
        ...plan.ownArms.map((arm) => `s.own @@ ${tsquery(arm)}`),
      ].join(' OR ');
      // Each modality's own tiers, its modality a constant of the scans (one partition each).
      const modalityParams = modalities.map((modality) => `${param(modality)}::text`);
      const tiers = modalityParams.map((modality, m) => {
        const inScope = `s.modality = ${modality} AND ${inIndex}`;
        return `best${m} AS MATERIALIZED (
           SELECT c.id FROM (SELECT s.id, s.doc FROM segments s WHERE ${inScope} AND s.doc @@ ${every} LIMIT ${pool} * ${RANKED_POOL_FACTOR}) c
           ORDER BY ts_rank(c.doc, ${rank}) DESC, c.id LIMIT ${pool}),
         -- Partial matches are taken as found, not ranked: evaluating the query on a visual
         -- segment costs ~4 µs, and ranking twice the pool doubled the rows read for a weak
         -- ordering signal (scoring in Node orders them).
         rest${m} AS MATERIALIZED (
           SELECT c.id FROM (
             SELECT s.id FROM segments s
             WHERE (SELECT count(*) FROM best${m}) < ${pool} AND ${inScope} AND (${any}) AND NOT s.doc @@ ${every}
             LIMIT ${pool}) c
           LIMIT GREATEST(0, ${pool} - (SELECT count(*) FROM best${m})))`;
      });
      // Each candidate names its modality, so that reading its row probes that modality's partition only.
      const candidates = modalityParams
        .map((modality, m) => `SELECT id, ${modality} AS modality FROM best${m} UNION ALL SELECT id, ${modality} FROM rest${m}`)
        .join(' UNION ALL ');
      // One test per alternative, written out so that each tsquery is parsed once, at planning
      // (a subquery over an array of them cost 13 ms per 500 rows). Most alternatives miss, and
      // cost one test each.
      // Where the document matched tells the kind (lexical.ts DocWeight): own words direct, broader
      // terms expanded, a tentative label's words tentative, their broader terms both.
      const kinds = plan.alternatives
        .map((alternative) => {
          const query = tsquery(alternative.query);
          const at = (weight: DocWeight) => tsquery(tsQueryText(alternative.query, weight) ?? alternative.query);
          return alternative.ownOnly
            ? `CASE WHEN s.own @@ ${query} THEN 'd' ELSE '-' END`
            : `CASE WHEN s.doc @@ ${query} THEN CASE WHEN s.own @@ ${query} THEN 'd' WHEN s.doc @@ ${at('B')} THEN 'e'
               WHEN s.doc @@ ${at('C')} THEN 't' ELSE 'u' END ELSE '-' END`;
        })
        .join(' || ');
      const { rows } = await db.query<HitRow & { kinds: string }>(
        `WITH ${tiers.join(',\n         ')}
         SELECT ${HIT_COLUMNS}, ${kinds} AS kinds
         FROM segments s JOIN (${candidates}) c ON s.modality = c.modality AND s.id = c.id
         WHERE s.modality = ANY(${param(modalities)}::text[])`,
        values,
      );
      return rows;
    },

    /** Conversation segments containing `phrase` word for word (unstemmed, in order). */
    async exactPhrase(scope: Scope, phrase: string, limit: number): Promise<SegmentHit[]> {
      // Named, so prepared once per connection: its plan does not depend on the phrase (a bitmap
      // scan of the words index either way), and the generic plan PostgreSQL keeps after five runs
      // saves the planning (EXPLAIN ANALYZE: 0.14 -> 0.01 ms, issue 31).
      const { rows } = await db.query<HitRow>({
        name: 'search_exact_phrase',
        text: `SELECT ${HIT_COLUMNS} FROM segments s
         WHERE s.org_id = $1 AND s.index_id = $2 AND s.modality = 'conversation'
           AND ($5::text[] IS NULL OR s.video_id = ANY($5::text[]))
           AND s.words @@ phraseto_tsquery('simple', $3)
         ORDER BY s.video_id, s.start_sec
         LIMIT $4`,
        values: [scope.orgId, scope.indexId, phrase, limit, scope.videoIds ?? null],
      });
      return rows;
    },

    /**
     * Visual segments nearest to `vector` (cosine) among those embedded by `model`, at most `limit`.
     *
     * An HNSW scan yields at most hnsw.ef_search graph elements, 40 by default: on 150k vectors
     * (the search bench at 10,000 videos) a search asking for 200 got 162, with vectors that repeat
     * (an element holds up to 10 equal ones), and would get 40 with distinct ones; MatchClips asks
     * for 10,000. So ef_search is raised to the limit for this statement (pgvector allows up to
     * 1,000), and where pgvector has iterative scans the scan goes on past it in exact order — also
     * when the video filter drops some of the scanned rows. Both are transaction-local settings.
     */
    async nearest(scope: Scope, model: string, vector: readonly number[], limit: number): Promise<VectorHit[]> {
      if (!(await vectorsEnabled())) return [];
      // The 512-d HNSW index is a partial expression index: the query must use the same expression.
      const distance = vector.length === 512 ? `(v.embedding::vector(512)) <=> $4::vector(512)` : `v.embedding <=> $4::vector`;
      const rows = await db.withTx(async (tx) => {
        // One round trip for both settings (iterative_scan is unknown to pgvector before 0.8).
        const iterative = iterativeScans ? `, set_config('hnsw.iterative_scan', 'strict_order', true)` : '';
        await tx.query(`SELECT set_config('hnsw.ef_search', $1, true)${iterative}`, [
          String(Math.min(HNSW_MAX_EF_SEARCH, Math.max(HNSW_DEFAULT_EF_SEARCH, limit))),
        ]);
        const result = await tx.query<HitRow & { similarity: number }>(
          `SELECT ${HIT_COLUMNS}, 1 - (${distance}) AS similarity
           FROM segment_vectors v JOIN segments s ON s.id = v.segment_id AND s.modality = v.modality
           WHERE v.org_id = $1 AND v.index_id = $2 AND v.model = $3 AND v.dimensions = $5
             AND ($7::text[] IS NULL OR s.video_id = ANY($7::text[]))
           ORDER BY ${distance}
           LIMIT $6`,
          [scope.orgId, scope.indexId, model, vectorLiteral(vector), vector.length, limit, scope.videoIds ?? null],
        );
        return result.rows;
      });
      return rows.map((row) => ({ ...row, similarity: Number(row.similarity) }));
    },

    ...createResultSetStore(db),
  };
}

/** The segment store with resident indexes (resident/) answering its lexical and exact-phrase statements. */
export const createSearchStore = (
  db: Database,
  options: Pick<SearchServiceOptions, 'residentSegments' | 'onResidentLoaded'>,
  logger: Logger,
): SegmentStore =>
  withResidentIndexes(createSegmentStore(db), {
    maxSegments: options.residentSegments ?? DEFAULT_RESIDENT_SEGMENTS,
    onLoaded: options.onResidentLoaded,
    logger,
  });
