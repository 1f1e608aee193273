/**
 * Segments in: what the indexing worker found becomes searchable rows. Labels are expanded with
 * WordNet here, once per video, so a query for "vehicle" finds a scene labelled car without
 * expanding every query into every hyponym.
 */
import type { Logger } from '@vus/core';
import type { SearchOption } from './clips';

export interface IncomingSegment {
  start: number;
  end: number;
  modality: SearchOption;
  text: string;
  labels: string[];
  /** Those of `labels` the detector only guessed at (empty from producers that do not grade labels). */
  tentative_labels: string[];
  vector: number[];
  vector_model: string;
  thumbnail_key: string;
}

/** A segment as the worker hands it over, plus the WordNet expansions of its labels. */
export interface NewSegment {
  start: number;
  end: number;
  modality: SearchOption;
  text: string;
  labels: string[];
  /** Other names of the clearly seen labels (WordNet synonyms, aliases): matched like the labels themselves (weight A). */
  labelNames: string[];
  /** Broader terms of the clearly seen labels (WordNet hypernyms): weight B, an expanded match. */
  broaderTerms: string[];
  /** The labels seen only tentatively (a subset of `labels`), their other names and broader terms: weights C and D. */
  tentative: LabelTerms;
  thumbnailKey: string;
  vector?: number[] | undefined;
  vectorModel?: string | undefined;
}

/** Labels with their WordNet expansions. */
export interface LabelTerms {
  labels: string[];
  names: string[];
  broader: string[];
}

/** What ingest needs from storage: store.ts implements it on SQL, tests on memory. */
export interface SegmentWriter {
  /** Replaces every segment of the video at once (a retried ingest never duplicates). */
  replaceVideoSegments(orgId: string, indexId: string, videoId: string, segments: readonly NewSegment[]): Promise<void>;
  /** How many segments were deleted. */
  deleteVideo(orgId: string, indexId: string, videoId: string): Promise<number>;
  deleteIndex(orgId: string, indexId: string): Promise<number>;
}

export interface IngestDeps {
  store: SegmentWriter;
  /** A label's other names and broader terms (expansion.ts labelTerms). */
  labelTerms(label: string): { names: string[]; broader: string[] };
  /**
   * Starts loading what queries are expanded with (word vectors, WordNet definitions: seconds of
   * CPU), if nothing has yet: words said or shown arriving mean searches for them are coming, and
   * the first would otherwise wait for it. Not awaited. Visual segments alone do not call it: word
   * neighbours are matched against words, not labels (search.ts).
   */
  prepareSearch?: (() => void) | undefined;
  logger: Logger;
}

/**
 * A line of speech is evidence that someone talks: conversation segments carry these words as
 * broader terms (an expanded match), so "a man talking" is answered by a person seen while speech
 * is heard. Migration 0007 added them to the segments stored before.
 */
export const SPEECH_TERMS = ['talk', 'speak', 'speech', 'conversation'] as const;

export function createIngest(deps: IngestDeps) {
  const expansions = new Map<string, { names: string[]; broader: string[] }>();
  const termsOf = (label: string): { names: string[]; broader: string[] } => {
    const key = label.toLowerCase();
    let found = expansions.get(key);
    if (!found) {
      found = deps.labelTerms(key);
      // Labels come from a small vocabulary (COCO-80, faces, colours): the cache stays small.
      if (expansions.size < 10_000) expansions.set(key, found);
    }
    return found;
  };

  const termsOfAll = (labels: readonly string[]): LabelTerms => ({
    labels: [...labels],
    names: [...new Set(labels.flatMap((label) => termsOf(label).names))],
    broader: [...new Set(labels.flatMap((label) => termsOf(label).broader))],
  });

  return {
    async replace(orgId: string, indexId: string, videoId: string, segments: readonly IncomingSegment[]): Promise<void> {
      if (segments.some((s) => s.modality !== 'visual')) deps.prepareSearch?.();
      const rows = segments.map((s): NewSegment => {
        const tentative = new Set(s.tentative_labels);
        const clear = termsOfAll(s.labels.filter((label) => !tentative.has(label)));
        return {
          start: s.start,
          end: s.end,
          modality: s.modality,
          text: s.text,
          labels: s.labels,
          labelNames: clear.names,
          broaderTerms: [...new Set([...clear.broader, ...(s.modality === 'conversation' ? SPEECH_TERMS : [])])],
          tentative: termsOfAll(s.labels.filter((label) => tentative.has(label))),
          thumbnailKey: s.thumbnail_key,
          vector: s.vector.length > 0 ? s.vector : undefined,
          vectorModel: s.vector_model || undefined,
        };
      });
      await deps.store.replaceVideoSegments(orgId, indexId, videoId, rows);
      deps.logger.debug({ orgId, indexId, videoId, segments: rows.length }, 'segments ingested');
    },
    deleteVideo: (orgId: string, indexId: string, videoId: string) => deps.store.deleteVideo(orgId, indexId, videoId),
    deleteIndex: (orgId: string, indexId: string) => deps.store.deleteIndex(orgId, indexId),
  };
}

export type Ingest = ReturnType<typeof createIngest>;
