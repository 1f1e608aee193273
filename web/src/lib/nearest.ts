/** Cosine similarity; 0 when either vector is empty, zero, or the lengths differ. */
export function cosine(a: readonly number[], b: readonly number[]): number {
  if (a.length === 0 || a.length !== b.length) return 0;
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    normA += a[i]! * a[i]!;
    normB += b[i]! * b[i]!;
  }
  return normA === 0 || normB === 0 ? 0 : dot / Math.sqrt(normA * normB);
}

export interface Segment {
  start: number;
  end: number;
  embedding: number[];
}

/** The segments closest to a query vector, best first. */
export function nearestSegments(
  query: readonly number[],
  segments: readonly Segment[],
  count: number,
): { start: number; end: number; similarity: number }[] {
  return segments
    .map((segment) => ({ start: segment.start, end: segment.end, similarity: cosine(query, segment.embedding) }))
    .sort((a, b) => b.similarity - a.similarity)
    .slice(0, count);
}
