/**
 * Whether two faces are one person: the euclidean distance of their embeddings (face-recognition.ts)
 * under FACE_MATCH_THRESHOLD.
 *
 * 0.35, measured by scripts/bench/face-match.js on the 21 faces BlazeFace finds in
 * @vladmandic/face-api's six demo photographs, as face-recognition.ts embeds them (BlazeFace's box and
 * eyes, levelled, the mean with the mirror image): the largest threshold of the sweep with no false
 * match among 4,370 pairs of different people (605 within one photo, 3,765 across photos). The
 * closest within a photo are 0.492 apart; across photos 0.354 — two photos of what looks like one
 * woman (p1f2, p3f2), counted as false all the same. True matches (a face scaled to 60 and 40 px,
 * cropped tight, blurred, JPEG quality 10, mirrored, rotated 15°, squeezed to 75 % width as a stand-in
 * for a turned head, pasted 70 px wide into a recompressed 720p frame) are matched in 173 of the 208
 * variants the detector found (83.2 %), 173 of 210 in all (82.4 %). Before issue 30 (face-api's own
 * detector and landmarks, no levelling, no mirror) 0.40 matched 149 of the 176 variants it found
 * (84.7 %), 149 of 220 in all (67.7 %), none of 3,927 pairs false. dlib publishes 0.6 for this model
 * on LFW; on these faces 0.6 falsely matched 15 % of the same-photo pairs.
 */
export const FACE_MATCH_THRESHOLD = 0.35;

/** Euclidean distance of two embeddings of the same length. Pure. */
export function faceDistance(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`face embeddings of different lengths: ${a.length} and ${b.length}`);
  let sum = 0;
  for (let i = 0; i < a.length; i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    sum += d * d;
  }
  return Math.sqrt(sum);
}

/** True when the two faces are taken for one person. Pure. */
export function isSameFace(a: ArrayLike<number>, b: ArrayLike<number>, threshold: number = FACE_MATCH_THRESHOLD): boolean {
  return faceDistance(a, b) < threshold;
}

/**
 * The closest of a person's reference faces to `face`, and whether it matches: a person shown by
 * several reference images matches when any of them does. Undefined without references. Pure.
 */
export function closestFace(
  references: readonly ArrayLike<number>[],
  face: ArrayLike<number>,
  threshold: number = FACE_MATCH_THRESHOLD,
): { index: number; distance: number; match: boolean } | undefined {
  let best: { index: number; distance: number } | undefined;
  references.forEach((reference, index) => {
    const distance = faceDistance(reference, face);
    if (!best || distance < best.distance) best = { index, distance };
  });
  return best && { ...best, match: best.distance < threshold };
}
