/** What an image query must be before it is searched (API-CONTRACT §5.5). */
import { errors } from '@vus/core';
import { describeImage } from '@vus/models';

/** Image queries: at most 5 MB, JPEG or PNG, at least 64 px on each side (API-CONTRACT §5.5). */
export const QUERY_IMAGE_MAX_BYTES = 5 * 1024 * 1024;
const QUERY_IMAGE_MIN_SIDE = 64;

/** Query images one search takes (v1.3: query_media_url and query_media_file repeated). */
export const MAX_QUERY_IMAGES = 10;
/** The search model that takes several query images, as twelvelabs-js 1.3.4's reference says (Marengo 3.0 only). */
export const SEVERAL_IMAGES_MODEL = 'marengo3.0';

/** Several query images need a Marengo 3.0 index; any other model is named in the 400. Pure. */
export function checkSeveralImagesModel(imageCount: number, indexId: string, searchModel: string | undefined): void {
  if (imageCount <= 1 || searchModel === SEVERAL_IMAGES_MODEL) return;
  throw errors.invalid(
    'query_media_file',
    `Several query images are searched with ${SEVERAL_IMAGES_MODEL} only; the index ${indexId} uses ${searchModel ?? 'another model'}. Send one image.`,
  );
}

/**
 * Several query images searched as one: the mean direction of their embeddings. Each vector is
 * normalised first (so no image weighs more for its length), averaged and normalised again: the
 * query then stands nearest to what all the images share (for photos of one thing from several
 * sides, the thing), where a best-of would chase whichever image happens to match closest, and
 * costs one nearest-neighbour query instead of one per image. Pure; equal lengths (one model).
 */
export function meanDirection(vectors: readonly Float32Array[]): Float32Array {
  if (vectors.length === 0) throw new Error('meanDirection needs at least one vector');
  const length = vectors[0]!.length;
  const sum = new Float64Array(length);
  for (const vector of vectors) {
    if (vector.length !== length) throw new Error('meanDirection: vectors of different lengths');
    let norm = 0;
    for (const value of vector) norm += value * value;
    norm = Math.sqrt(norm);
    if (norm === 0) continue;
    for (let i = 0; i < length; i++) sum[i]! += vector[i]! / norm;
  }
  let total = 0;
  for (const value of sum) total += value * value;
  total = Math.sqrt(total);
  return Float32Array.from(sum, (value) => (total === 0 ? 0 : value / total));
}

/** A query image must be a real JPEG or PNG (by its bytes), within the size limits. */
export async function checkQueryImage(image: Buffer): Promise<void> {
  if (image.length > QUERY_IMAGE_MAX_BYTES) {
    throw errors.invalid('query_media_file', `The image is ${image.length} bytes; at most ${QUERY_IMAGE_MAX_BYTES} bytes are accepted.`);
  }
  const facts = await describeImage(image);
  if (!facts || (facts.format !== 'jpeg' && facts.format !== 'png')) {
    throw errors.invalid('query_media_file', 'It is not a JPEG or PNG image.');
  }
  if (facts.width < QUERY_IMAGE_MIN_SIDE || facts.height < QUERY_IMAGE_MIN_SIDE) {
    throw errors.invalid(
      'query_media_file',
      `The image is ${facts.width}x${facts.height}; at least ${QUERY_IMAGE_MIN_SIDE}x${QUERY_IMAGE_MIN_SIDE} pixels are needed.`,
    );
  }
}
