/** What an image query must be before it is searched (API-CONTRACT §5.5). */
import { errors } from '@vus/core';
import { describeImage } from '@vus/models';

/** Image queries: at most 5 MB, JPEG or PNG, at least 64 px on each side (API-CONTRACT §5.5). */
export const QUERY_IMAGE_MAX_BYTES = 5 * 1024 * 1024;
const QUERY_IMAGE_MIN_SIDE = 64;

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
