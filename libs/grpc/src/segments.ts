import type { Segment__Input } from './generated/vus/search/v1/Segment';

/** A searchable stretch of a video as the services hold it (search.proto Segment in camelCase). */
export interface SegmentFields {
  start: number;
  end: number;
  modality: string;
  text: string;
  labels: readonly string[];
  /** Those of `labels` seen only tentatively (search.proto Segment.tentative_labels). */
  tentativeLabels?: readonly string[] | undefined;
  vector?: Float32Array | readonly number[] | undefined;
  vectorModel?: string | undefined;
  thumbnailKey?: string | undefined;
}

/** The wire form of a segment: what the worker ingests and what search-service lists. */
export function toProtoSegment(s: SegmentFields): Segment__Input {
  return {
    start: s.start,
    end: s.end,
    modality: s.modality,
    text: s.text,
    labels: [...s.labels],
    tentative_labels: [...(s.tentativeLabels ?? [])],
    vector: s.vector ? [...s.vector] : [],
    vector_model: s.vectorModel ?? '',
    thumbnail_key: s.thumbnailKey ?? '',
  };
}
